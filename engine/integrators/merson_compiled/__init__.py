"""The compiled path of RungeKuttaMersonIntegrator: the same Runge-Kutta-Merson steps as
the integrator's Python methods, bit for bit, for States whose derivatives a kernel can
evaluate (``FusedRealization.compiledDerivatives``).

* ``trial_stages``: the four trial-stage derivative evaluations of one step;
* ``attempt``: one whole step attempt (trial stages, kinematics at the end, error
  estimate, quaternion projection, weighted error norm);
* ``steps``: many steps in one call, attempts repeated with the step sizes of
  ``engine.integrators.step_control`` (the one source of the step-size rule, which the
  Python path calls too) until one passes the error test;
* ``run_record``: the typed record of what ``steps`` reads and writes between calls
  (times, step sizes, counts), declared once.

``RungeKuttaMersonIntegrator`` (engine/integrators/runge_kutta_merson.py) and the
``EnsembleIntegrator`` (engine/integrators/ensemble/) call these kernels.
"""

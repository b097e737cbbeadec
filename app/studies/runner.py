"""One run of a study, from a model dict: set the run's parameters, build, simulate, sample.

This is what a Dask worker executes; it takes and returns plain data (dicts, lists, numpy
arrays), never engine objects, so the model travels as its document JSON and results as
arrays. A run that cannot be built, assembled or integrated comes back with
``status="failed"`` and the reason, keeping the samples taken before the failure.

Sampled columns (``sample_columns``): ``t`` (s); ``q:BODY[i]`` and ``u:BODY[i]`` for every
generalized coordinate and speed, in the State's order; ``kinetic_energy``,
``potential_energy``, ``total_energy`` (J); ``measure:NAME`` for each Measure of the document
(its value, or the first component of a vector value).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from app.studies.parameters import RunSpec, apply_values

#: integrator statistics recorded per run (column name -> Integrator getter)
STATISTICS = {
    "steps_taken": "getNumStepsTaken",
    "steps_attempted": "getNumStepsAttempted",
    "realizations": "getNumRealizations",
    "error_test_failures": "getNumErrorTestFailures",
    "projections": "getNumProjections",
}

ENERGY_COLUMNS = ("kinetic_energy", "potential_energy", "total_energy")


@dataclass(frozen=True)
class RunSettings:
    """What every run of a study shares: final time ``until`` (s), sample interval ``dt`` (s),
    integrator ``accuracy`` (Runge-Kutta-Merson's relative accuracy) and the sampled column
    names of the base model (``sample_columns``)."""

    until: float
    dt: float
    accuracy: float
    columns: tuple[str, ...]


def sample_times(until: float, dt: float) -> list[float]:
    """0, dt, 2 dt, ... up to and including ``until`` (always the last time)."""
    n = int(math.floor(until / dt + 1e-9))
    times = [k * dt for k in range(n + 1)]
    if until - times[-1] > 1e-12 * max(1.0, until):
        times.append(until)
    return times


def load_model(text: str, where: str = "<model>") -> dict:
    """The ``"model"`` dict of a model-document JSON text, checked by the document loader
    (raises ``app.document.model_io.ModelFileError``)."""
    from app.document.model_io import loads

    return loads(text, where).data.to_dict()


def build_model(model: dict):
    """The BuiltModel of a model dict (validated first: raises SpecError, DocumentError or
    BuildError naming the field)."""
    from app.document import build
    from app.document.specs import ModelData
    from app.document.validation import validate

    data = ModelData.from_dict(model)
    validate(data)
    return build(data)


def default_state(built) -> dict[str, tuple[list, list]]:
    """Body name -> (q, u) of the built model's initial State."""
    out = {}
    for name in built.body_name_of_index[1:]:
        mb = built.mobilized_bodies[name]
        out[name] = (
            [float(v) for v in mb.getQ(built.state)],
            [float(v) for v in mb.getU(built.state)],
        )
    return out


def sample_columns(built) -> tuple[str, ...]:
    """The sampled column names of a built model (see the module docstring)."""
    cols = ["t"]
    for kind in ("q", "u"):
        for name in built.body_name_of_index[1:]:
            mb = built.mobilized_bodies[name]
            n = mb.getNumQ(built.state) if kind == "q" else mb.getNumU(built.state)
            cols += [f"{kind}:{name}[{i}]" for i in range(n)]
    cols += ENERGY_COLUMNS
    cols += [f"measure:{name}" for name in built.measures]
    return tuple(cols)


def _sample(built, state) -> list[float]:
    from engine import Stage

    needed = Stage.Acceleration if built.measures else Stage.Dynamics
    if state.getSystemStage() < needed:
        built.system.realize(state, needed)
    ke = float(built.system.calcKineticEnergy(state))
    pe = float(built.system.calcPotentialEnergy(state))
    row = [float(state.getTime())]
    row += [float(v) for v in built.matter.getQ(state)]
    row += [float(v) for v in built.matter.getU(state)]
    row += [ke, pe, ke + pe]
    row += [float(np.ravel(m.getValue(state))[0]) for m in built.measures.values()]
    return row


def _assemble(built, state) -> None:
    """Satisfy the constraints at the initial pose (models with constraints only)."""
    if not built.constraints:
        return
    from engine import Assembler

    Assembler(built.system).assemble(state)


def _stepper(built, state, accuracy: float):
    from engine import RungeKuttaMersonIntegrator, TimeStepper

    integrator = RungeKuttaMersonIntegrator(built.system)
    integrator.setAccuracy(accuracy)
    stepper = TimeStepper(built.system, integrator)
    stepper.initialize(state)
    return stepper, integrator


def run_one(model: dict, spec: RunSpec, settings: RunSettings) -> dict:
    """Simulate one run; returns ``{"run", "status", "reason", "data", "stats"}`` where
    ``data`` is a (samples x columns) float64 array over ``settings.columns`` and ``stats``
    holds the integrator statistics, ``final_time`` (s reached) and ``wall_time_s``."""
    start = time.perf_counter()
    rows: list[list[float]] = []
    stats: dict[str, float] = {name: 0 for name in STATISTICS}
    stats["final_time"] = math.nan
    status, reason = "ok", ""
    stage = "build"
    integrator = None
    try:
        built = build_model(apply_values(model, spec.values))
        columns = sample_columns(built)
        if columns != tuple(settings.columns):
            raise ValueError("the run's model has other state variables than the study's model")
        state = built.state.copy()
        stage = "assemble"
        _assemble(built, state)
        stage = "initialize"
        stepper, integrator = _stepper(built, state, settings.accuracy)
        stage = "simulate"
        for t in sample_times(settings.until, settings.dt):
            if t > stepper.getTime():
                stepper.stepTo(t)
            rows.append(_sample(built, stepper.getState()))
        stats["final_time"] = float(stepper.getTime())
    except Exception as exc:  # any failure is this run's result; the study goes on
        status = "failed"
        reason = f"{stage}: {type(exc).__name__}: {exc}"
        if integrator is not None:
            try:
                stats["final_time"] = float(integrator.getTime())
                reason = f"{stage} at t = {stats['final_time']:.6g} s: {type(exc).__name__}: {exc}"
            except Exception:  # the reason above still holds
                pass
    if integrator is not None:
        for name, getter in STATISTICS.items():
            stats[name] = int(getattr(integrator, getter)())
    stats["wall_time_s"] = time.perf_counter() - start
    data = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(settings.columns))
    return {"run": spec.run, "status": status, "reason": reason, "data": data, "stats": stats}


def warm_up(model: dict, settings: RunSettings) -> None:
    """Build the model and take a few steps, so numba's kernels are compiled or loaded from
    its on-disk cache before the first real run (a worker calls this once)."""
    built = build_model(model)
    state = built.state.copy()
    try:
        _assemble(built, state)
        stepper, _ = _stepper(built, state, settings.accuracy)
        stepper.stepTo(min(settings.dt, settings.until))
        _sample(built, stepper.getState())
    except Exception:  # a model that fails here fails (and says why) in its runs
        pass

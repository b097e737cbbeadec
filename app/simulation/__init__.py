"""The live simulation: a Qt-free session stepped by a worker thread, immutable snapshots for
the GUI, plot-sample ring buffer, integrator choice and pacing (see session.py)."""

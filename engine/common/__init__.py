"""The SimTK framework layer: Stage, State, System, Subsystem, events, exceptions."""

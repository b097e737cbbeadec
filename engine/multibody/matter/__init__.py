"""Mixin classes that add groups of operators to SimbodyMatterSubsystem (one job each)."""

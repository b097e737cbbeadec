"""Compliant contact (Simbody 3.7's ContactTracker / CompliantContact subsystems)."""

"""Decorative geometry (Simbody's DecorativeGeometry family), one concern per module.

Import from ``engine.common.decorative_geometry``, which re-exports everything here.
"""

"""Importers that turn other model formats into mbstudio model documents (``urdf``)."""

"""mbstudio desktop studio (PySide6 + VTK).

This package's ``__init__`` must stay import-free: ``python3 -m app.bootstrap`` runs under the
system Python before Qt, VTK or numpy are installed.
"""

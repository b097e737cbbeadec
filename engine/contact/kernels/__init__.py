"""Numba kernels of compliant contact over flat arrays (see docs/contact.md)."""

"""The row widths of the compiled force-term table (``engine.forces.compiled_terms``): each
term is at most ``INTS`` int64 values and ``FLOATS`` float64 values. In a module of their
own so that the term makers (e.g. the contact kernels' mesh rows) read them without
importing the table's kernels."""

INTS = 5
FLOATS = 19

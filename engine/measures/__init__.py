# ruff: noqa: F401  (this module re-exports the measures)
"""Measures: named quantities computed from a State (Simbody's Measure family).

Use the nested names, as in Simbody::

    from engine.measures import Measure
    ds = system.updDefaultSubsystem()
    wave = Measure.Sinusoid(ds, 2.0, 3.0)          # 2 sin(3 t)
    area = Measure.Integrate(ds, wave, Measure.Zero(ds))

or the flat aliases ``Measure_Sinusoid``, ``Measure_Integrate``, ...
One file per kind of measure; measure.py holds the shared machinery.
"""

from engine.measures.constant import Constant, One, Zero
from engine.measures.differentiate import Differentiate
from engine.measures.extreme import Extreme, MaxAbs, Maximum, MinAbs, Minimum
from engine.measures.integrate import Integrate
from engine.measures.measure import INFINITE_DERIVATIVES, Measure
from engine.measures.minus import Minus
from engine.measures.plus import Plus
from engine.measures.result import Result
from engine.measures.scale import Scale
from engine.measures.sinusoid import Sinusoid
from engine.measures.time import Time
from engine.measures.variable import Variable

_KINDS = {
    "Constant": Constant,
    "Zero": Zero,
    "One": One,
    "Time": Time,
    "Variable": Variable,
    "Result": Result,
    "Plus": Plus,
    "Minus": Minus,
    "Scale": Scale,
    "Integrate": Integrate,
    "Differentiate": Differentiate,
    "Extreme": Extreme,
    "Minimum": Minimum,
    "Maximum": Maximum,
    "MinAbs": MinAbs,
    "MaxAbs": MaxAbs,
    "Sinusoid": Sinusoid,
}
for _name, _cls in _KINDS.items():
    setattr(Measure, _name, _cls)
    globals()[f"Measure_{_name}"] = _cls

__all__ = ["Measure", "INFINITE_DERIVATIVES", *_KINDS, *(f"Measure_{n}" for n in _KINDS)]

"""Function_<Vec3>: Simbody's vector-valued Function family, f(x) in R^3 for a vector x.

``Function_[Vec3]`` is the class (``Function_[float]`` is the scalar ``Function``); its
members ``Constant``, ``Linear``, ``Polynomial``, ``Step`` and ``Custom`` take Vec3 where the
scalar ones take numbers, as Simbody's templates do:

* ``Constant(value: Vec3, argumentSize=1)``;
* ``Linear(coefficients)``: n+1 Vec3 (an (n+1, 3) array), f = sum_i c_i x_i + c_n;
* ``Polynomial(coefficients)``: Vec3 coefficients, highest power first, one argument;
* ``Step(y0: Vec3, y1: Vec3, x0, x1)``: the smooth quintic step of each component;
* ``Custom(value, argumentSize=1, derivative=None)``: a Python callable returning 3 numbers
  (derivatives by central differences when no ``derivative`` is given).

``calcValue(x)`` and ``calcDerivative(derivComponents, x)`` return (3,) arrays; an empty
component list is the 0th derivative (the value).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.function import Function
from engine.math.vec import Vec3


class Vec3Function:
    """Base of the Function_<Vec3> family: a Vec3 value of a vector argument."""

    def __init__(self, components: Sequence[Function]) -> None:
        self._parts = tuple(components)

    def calcValue(self, x) -> np.ndarray:
        return np.array([f.calcValue(x) for f in self._parts])

    def calcDerivative(self, derivComponents, x) -> np.ndarray:
        return np.array([f.calcDerivative(derivComponents, x) for f in self._parts])

    def getArgumentSize(self) -> int:
        return self._parts[0].getArgumentSize()

    def getMaxDerivativeOrder(self) -> int:
        return min(f.getMaxDerivativeOrder() for f in self._parts)


def _vec3_rows(values, what: str, rows: int | None = None) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.shape[0] < 1 or not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what} needs a list of finite Vec3, got shape {arr.shape}")
    return arr


def _vec3(value, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what} needs a finite Vec3, got {value!r}")
    return arr


class _Constant(Vec3Function):
    """f(x) = value (a Vec3) for every x."""

    def __init__(self, value, argumentSize: int = 1) -> None:
        v = _vec3(value, "Function_<Vec3>.Constant")
        super().__init__([Function.Constant(c, argumentSize) for c in v])

    def setValue(self, value) -> None:
        for f, c in zip(self._parts, _vec3(value, "setValue"), strict=True):
            f.setValue(c)


class _Linear(Vec3Function):
    """f(x) = sum_i c_i x_i + c_n with Vec3 coefficients c_0..c_n."""

    def __init__(self, coefficients) -> None:
        c = _vec3_rows(coefficients, "Function_<Vec3>.Linear")
        self._c = c
        super().__init__([Function.Linear(c[:, j]) for j in range(3)])

    def getCoefficients(self) -> np.ndarray:
        return self._c.copy()


class _Polynomial(Vec3Function):
    """f(x) = c_0 x^(k-1) + ... + c_(k-1) with Vec3 coefficients, one argument."""

    def __init__(self, coefficients) -> None:
        c = _vec3_rows(coefficients, "Function_<Vec3>.Polynomial")
        self._c = c
        super().__init__([Function.Polynomial(c[:, j]) for j in range(3)])

    def getCoefficients(self) -> np.ndarray:
        return self._c.copy()


class _Step(Vec3Function):
    """The smooth step from the Vec3 y0 at x0 to y1 at x1 (each component as
    ``Function.Step``)."""

    def __init__(self, y0, y1, x0: float, x1: float) -> None:
        a = _vec3(y0, "Function_<Vec3>.Step y0")
        b = _vec3(y1, "Function_<Vec3>.Step y1")
        super().__init__([Function.Step(a[j], b[j], x0, x1) for j in range(3)])


class _Custom(Vec3Function):
    """A Python callable ``value(x) -> 3 numbers``; ``derivative(derivComponents, x)`` (3
    numbers) optional, else first and second partials by central differences."""

    def __init__(
        self,
        value: Callable[[np.ndarray], Sequence[float]],
        argumentSize: int = 1,
        derivative: Callable[[list[int], np.ndarray], Sequence[float]] | None = None,
        maxDerivativeOrder: int = 2,
    ) -> None:
        if not callable(value):
            raise InvalidArgumentError("Function_<Vec3>.Custom needs a callable value(x)")

        def part(j: int) -> Function:
            d = None if derivative is None else (lambda c, x: derivative(c, x)[j])
            return Function.Custom(lambda x: value(x)[j], argumentSize, d, maxDerivativeOrder)

        super().__init__([part(j) for j in range(3)])
        self._value = value

    def calcValue(self, x) -> np.ndarray:
        v = np.asarray(self._value(self._parts[0]._x(x)), dtype=np.float64)
        return _vec3(v, "Function_<Vec3>.Custom value")


Vec3Function.Constant = _Constant
Vec3Function.Linear = _Linear
Vec3Function.Polynomial = _Polynomial
Vec3Function.Step = _Step
Vec3Function.Custom = _Custom


class _FunctionTemplate:
    """``Function_[T]``: Simbody's ``Function_<T>`` for T = Real (``float``) or ``Vec3``."""

    def __getitem__(self, valueType):
        if valueType in (float, "Real"):
            return Function
        if valueType is Vec3 or valueType == "Vec3":
            return Vec3Function
        raise InvalidArgumentError(f"Function_ is available for float and Vec3, not {valueType!r}")


Function_ = _FunctionTemplate()

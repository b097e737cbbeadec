"""Function: Simbody's scalar function family f(x), x a vector, with derivatives.

``Function.Constant``, ``Linear``, ``Polynomial``, ``Sinusoid``, ``Step`` and ``Custom``
(a Python callable) share one interface, as SimTK::Function:

* ``calcValue(x)`` -> float, ``x`` a vector of ``getArgumentSize()`` numbers;
* ``calcDerivative(derivComponents, x)`` -> float, the partial derivative with respect
  to the listed argument components (``[i]`` first, ``[i, j]`` second, ...; ``[]``, the
  0th derivative, is the value, as Simbody);
* ``getArgumentSize()``, ``getMaxDerivativeOrder()``.

The constraints CoordinateCoupler, SpeedCoupler and PrescribedMotion use them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from engine.common.count_arg import count_value
from engine.common.exceptions import InvalidArgumentError


def _with_zeroth_derivative(calc):
    """calcDerivative that answers the value for an empty component list."""

    def calcDerivative(self, derivComponents, x) -> float:  # noqa: N802
        if len(np.atleast_1d(derivComponents)) == 0:
            return self.calcValue(x)
        return calc(self, derivComponents, x)

    calcDerivative.__doc__ = calc.__doc__
    return calcDerivative


class Function:
    """Base class of a scalar function of a vector argument (SimTK::Function)."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "calcDerivative" in cls.__dict__:
            cls.calcDerivative = _with_zeroth_derivative(cls.__dict__["calcDerivative"])

    def calcValue(self, x) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def calcDerivative(self, derivComponents: Sequence[int], x) -> float:  # pragma: no cover
        raise NotImplementedError

    def getArgumentSize(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def getMaxDerivativeOrder(self) -> int:
        return 2**31 - 1

    # ------------------------------------------------------------------ helpers
    def _x(self, x) -> np.ndarray:
        arr = np.atleast_1d(np.asarray(x, dtype=np.float64)).reshape(-1)
        n = self.getArgumentSize()
        if arr.size != n:
            raise InvalidArgumentError(
                f"{type(self).__name__}: expected an argument of {n} number(s), got {arr.size}"
            )
        return arr

    def _components(self, derivComponents) -> list[int]:
        comps = [int(c) for c in np.atleast_1d(derivComponents)]
        n = self.getArgumentSize()
        for c in comps:
            if not 0 <= c < n:
                raise InvalidArgumentError(
                    f"{type(self).__name__}: derivative component {c} is out of range "
                    f"(the function has {n} argument(s))"
                )
        if not comps:
            raise InvalidArgumentError("calcDerivative needs at least one derivative component")
        return comps


class _Constant(Function):
    """f(x) = value for every x (argument size ``argumentSize``, default 1)."""

    def __init__(self, value: float, argumentSize: int = 1) -> None:
        self._value = float(value)
        self._n = count_value(argumentSize, "Function.Constant: argumentSize")

    def calcValue(self, x) -> float:
        self._x(x)
        return self._value

    def calcDerivative(self, derivComponents, x) -> float:
        self._components(derivComponents)
        return 0.0

    def getArgumentSize(self) -> int:
        return self._n

    def setValue(self, value: float) -> None:
        self._value = float(value)


class _Linear(Function):
    """f(x) = sum_i c_i x_i + c_last; the argument size is len(coefficients) - 1."""

    def __init__(self, coefficients) -> None:
        c = np.asarray(coefficients, dtype=np.float64).reshape(-1)
        if c.size < 1 or not np.all(np.isfinite(c)):
            raise InvalidArgumentError("Function.Linear needs at least one finite coefficient")
        self._c = c

    def getCoefficients(self) -> np.ndarray:
        return self._c.copy()

    def calcValue(self, x) -> float:
        x = self._x(x)
        return float(self._c[:-1] @ x + self._c[-1])

    def calcDerivative(self, derivComponents, x) -> float:
        comps = self._components(derivComponents)
        self._x(x)
        return float(self._c[comps[0]]) if len(comps) == 1 else 0.0

    def getArgumentSize(self) -> int:
        return self._c.size - 1


class _Polynomial(Function):
    """f(x) = c0 x^(n-1) + ... + c_(n-1) (one argument; highest power first, as Simbody)."""

    def __init__(self, coefficients) -> None:
        c = np.asarray(coefficients, dtype=np.float64).reshape(-1)
        if c.size < 1 or not np.all(np.isfinite(c)):
            raise InvalidArgumentError("Function.Polynomial needs at least one finite coefficient")
        self._c = c

    def getCoefficients(self) -> np.ndarray:
        return self._c.copy()

    def calcValue(self, x) -> float:
        return float(np.polyval(self._c, self._x(x)[0]))

    def calcDerivative(self, derivComponents, x) -> float:
        comps = self._components(derivComponents)
        p = self._c
        for _ in comps:
            p = np.polyder(p) if p.size > 1 else np.zeros(1)
        return float(np.polyval(p, self._x(x)[0]))

    def getArgumentSize(self) -> int:
        return 1


class _Sinusoid(Function):
    """f(t) = amplitude * sin(frequency * t + phase) (one argument, frequency in rad/s)."""

    def __init__(self, amplitude: float, frequency: float, phase: float = 0.0) -> None:
        self._a, self._w, self._p = float(amplitude), float(frequency), float(phase)

    def getAmplitude(self) -> float:
        return self._a

    def getFrequency(self) -> float:
        return self._w

    def getPhase(self) -> float:
        return self._p

    def calcValue(self, x) -> float:
        return self._a * math.sin(self._w * self._x(x)[0] + self._p)

    def calcDerivative(self, derivComponents, x) -> float:
        order = len(self._components(derivComponents))
        arg = self._w * self._x(x)[0] + self._p
        # d^k/dt^k sin(w t + p) = w^k sin(w t + p + k pi/2)
        return self._a * self._w**order * math.sin(arg + order * math.pi / 2)

    def getArgumentSize(self) -> int:
        return 1


class _Step(Function):
    """A smooth step from y0 at x0 to y1 at x1 (one argument), as SimTK::Function::Step,
    which uses SimTK's stepAny: y0 + (y1 - y0) * stepUp(s), s = (x - x0)/(x1 - x0) clamped
    to [0, 1], with the quintic stepUp(s) = s^3 (10 - 15 s + 6 s^2) (continuous through the
    second derivative)."""

    def __init__(self, y0: float, y1: float, x0: float, x1: float) -> None:
        if float(x0) == float(x1):
            raise InvalidArgumentError("Function.Step: x0 and x1 must differ")
        self._y0, self._y1, self._x0, self._x1 = float(y0), float(y1), float(x0), float(x1)

    def _s(self, x) -> tuple[float, float]:
        d = self._x1 - self._x0
        return (self._x(x)[0] - self._x0) / d, d

    def calcValue(self, x) -> float:
        s, _ = self._s(x)
        if s <= 0.0:  # y0 and y1 exactly outside (and at the ends of) the step
            return self._y0
        if s >= 1.0:
            return self._y1
        return self._y0 + (self._y1 - self._y0) * s**3 * (10.0 - 15.0 * s + 6.0 * s * s)

    def calcDerivative(self, derivComponents, x) -> float:
        order = len(self._components(derivComponents))
        s, d = self._s(x)
        if s <= 0.0 or s >= 1.0:
            return 0.0
        dy = self._y1 - self._y0
        if order == 1:
            return dy * 30.0 * s * s * (1.0 - s) ** 2 / d
        if order == 2:
            return dy * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / d**2
        if order == 3:
            return dy * 60.0 * (1.0 - 6.0 * s + 6.0 * s * s) / d**3
        return 0.0

    def getArgumentSize(self) -> int:
        return 1


class _Custom(Function):
    """A Python function: ``Function.Custom(value, argumentSize, derivative=None)``.

    ``value(x)`` returns f(x); ``derivative(derivComponents, x)`` its partials. Without
    ``derivative``, first and second partials come from central differences.
    """

    def __init__(
        self,
        value: Callable[[np.ndarray], float],
        argumentSize: int = 1,
        derivative: Callable[[list[int], np.ndarray], float] | None = None,
        maxDerivativeOrder: int = 2,
    ) -> None:
        if not callable(value):
            raise InvalidArgumentError("Function.Custom needs a callable value(x)")
        self._f = value
        self._df = derivative
        self._n = count_value(argumentSize, "Function.Custom: argumentSize")
        self._max = count_value(maxDerivativeOrder, "Function.Custom: maxDerivativeOrder")

    def calcValue(self, x) -> float:
        return float(self._f(self._x(x)))

    def calcDerivative(self, derivComponents, x) -> float:
        comps = self._components(derivComponents)
        x = self._x(x)
        if self._df is not None:
            return float(self._df(comps, x))
        if len(comps) > 2:
            raise InvalidArgumentError(
                "Function.Custom without a derivative callable provides only first and "
                "second derivatives (by central differences)"
            )
        return self._fd(comps, x)

    def _fd(self, comps: list[int], x: np.ndarray) -> float:
        i = comps[0]
        h = 1e-5 * max(1.0, abs(x[i]))
        e = np.zeros_like(x)
        e[i] = h
        if len(comps) == 1:
            return (self.calcValue(x + e) - self.calcValue(x - e)) / (2 * h)
        return (self._fd([comps[1]], x + e) - self._fd([comps[1]], x - e)) / (2 * h)

    def getArgumentSize(self) -> int:
        return self._n

    def getMaxDerivativeOrder(self) -> int:
        return self._max


Function.Constant = _Constant
Function.Linear = _Linear
Function.Polynomial = _Polynomial
Function.Sinusoid = _Sinusoid
Function.Step = _Step
Function.Custom = _Custom

"""Simbody's Function_<Vec3> (issue 21): the vector-valued Constant, Linear, Polynomial,
Step and Custom, with derivatives checked against finite differences and against the
scalar Functions component by component."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Function, Function_, InvalidArgumentError, Vec3, Vec3Function


def _fd(f, comps, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    if not comps:
        return f.calcValue(x)
    e = np.zeros_like(x)
    e[comps[0]] = h
    return (_fd(f, comps[1:], x + e) - _fd(f, comps[1:], x - e)) / (2 * h)


def test_template_names_the_families():
    assert Function_[Vec3] is Vec3Function
    assert Function_[float] is Function
    with pytest.raises(InvalidArgumentError):
        Function_[int]


def test_linear_and_constant():
    # f(x0, x1) = c0 x0 + c1 x1 + c2 with Vec3 coefficients
    c = [Vec3(1, 2, 3), Vec3(-1, 0, 0.5), Vec3(0.1, 0.2, 0.3)]
    f = Function_[Vec3].Linear(c)
    x = [0.7, -2.0]
    np.testing.assert_allclose(f.calcValue(x), 0.7 * c[0] - 2.0 * c[1] + c[2])
    np.testing.assert_allclose(f.calcDerivative([1], x), c[1])
    np.testing.assert_array_equal(f.calcDerivative([0, 1], x), np.zeros(3))
    np.testing.assert_allclose(f.calcDerivative([], x), f.calcValue(x))
    assert f.getArgumentSize() == 2
    k = Function_[Vec3].Constant(Vec3(4, 5, 6), 2)
    np.testing.assert_array_equal(k.calcValue(x), [4, 5, 6])
    np.testing.assert_array_equal(k.calcDerivative([0], x), np.zeros(3))


def test_polynomial_and_step_match_finite_differences_and_scalar_components():
    p = Function_[Vec3].Polynomial([Vec3(1, 0, -2), Vec3(0, 3, 1), Vec3(5, 5, 5)])
    for x in (-1.3, 0.2, 2.5):
        np.testing.assert_allclose(p.calcValue([x]), [x * x + 5, 3 * x + 5, -2 * x * x + x + 5])
        np.testing.assert_allclose(p.calcDerivative([0], [x]), _fd(p, [0], [x]), atol=1e-7)
        np.testing.assert_allclose(p.calcDerivative([0, 0], [x]), [2, 0, -4], atol=1e-12)
    y0, y1 = Vec3(0, 1, -1), Vec3(2, 1, 3)
    s = Function_[Vec3].Step(y0, y1, 0.5, 1.5)
    np.testing.assert_array_equal(s.calcValue([0.5]), y0)
    np.testing.assert_array_equal(s.calcValue([1.5]), y1)
    for x in (0.6, 1.0, 1.37):
        scalar = [Function.Step(y0[j], y1[j], 0.5, 1.5).calcValue([x]) for j in range(3)]
        np.testing.assert_allclose(s.calcValue([x]), scalar, rtol=1e-15)
        np.testing.assert_allclose(s.calcDerivative([0], [x]), _fd(s, [0], [x]), atol=1e-7)
        np.testing.assert_allclose(
            s.calcDerivative([0, 0], [x]), _fd(s, [0, 0], [x], h=1e-4), atol=1e-5
        )


def test_custom_vector_function():
    f = Function_[Vec3].Custom(lambda x: [np.sin(x[0]) * x[1], x[0] ** 2, np.exp(x[1])], 2)
    x = np.array([0.4, -0.3])
    np.testing.assert_allclose(f.calcValue(x), [np.sin(0.4) * -0.3, 0.16, np.exp(-0.3)])
    np.testing.assert_allclose(f.calcDerivative([0], x), [np.cos(0.4) * -0.3, 0.8, 0.0], atol=1e-8)
    np.testing.assert_allclose(f.calcDerivative([0, 1], x), [np.cos(0.4), 0.0, 0.0], atol=1e-5)
    with pytest.raises(InvalidArgumentError):
        Function_[Vec3].Constant([1, 2])

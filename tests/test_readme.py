"""The README's engine example runs as printed and gives the pendulum's closed-form answer."""

from __future__ import annotations

import pathlib
import re

import numpy as np

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_engine_example_runs():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## The engine") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    # Pin about z at Mo; the mass centre is 1 m from the joint: Izz about Mo = 0.1 + 0.75
    np.testing.assert_allclose(namespace["M"], [[0.85]], rtol=1e-12)
    np.testing.assert_allclose(namespace["udot"], [-9.81 * np.sin(0.3) / 0.85], rtol=1e-12)
    assert namespace["stepper"].getTime() == 2.0
    assert "math" not in namespace or namespace["math"].__name__ == "math"

"""Plain-language explanations of why a run stopped, for students, with the remedies the
studio can apply in one click.

``explain(message)`` reads the engine's error text (as the studio shows it: "what failed:
engine message") and returns an ``Explanation``: a title, a paragraph saying what happened
and what in the model most likely caused it, and remedy keys the studio offers as buttons:

- ``"assemble"``: re-assemble the model (satisfy the constraints by moving the bodies least);
- ``"go_back"``: show the last recorded State before the failure;
- ``"tighten_accuracy"``: ten times tighter integrator accuracy;
- ``"implicit"``: switch to the implicit integrator (CPodes), for stiff models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Explanation:
    """What a student is told about a failure; ``details`` is the engine's own text."""

    title: str
    text: str
    remedies: tuple[str, ...]
    details: str


REMEDY_LABELS = {
    "assemble": "Re-assemble",
    "go_back": "Go back to the last good State",
    "tighten_accuracy": "Tighten the accuracy",
    "implicit": "Use the implicit integrator",
}


def _constraint(message: str) -> str | None:
    match = re.search(r"Constraint\.(\w+)(?: (\d+))?", message)
    if not match:
        return None
    return f"the {match.group(1)} constraint" + (f" #{match.group(2)}" if match.group(2) else "")


def explain(message: str) -> Explanation:
    """The explanation of the failure reported as ``message``."""
    text = message.lower()
    constraint = _constraint(message)
    if "project" in text and ("constraint" in text or "satisfy" in text):
        which = constraint or "a constraint"
        hint = (
            " For a Rod, the length must equal the distance between its two points in the "
            "starting pose; for a Ball or Weld, the two points (or frames) must coincide."
            if constraint is None or "rod" in constraint.lower()
            else ""
        )
        return Explanation(
            "The constraints cannot be satisfied",
            f"After a step the engine moves the bodies back onto the constraints (projection), "
            f"but {which} stayed violated. Most often the constraint does not fit the model: "
            f"its parameters disagree with the pose, or two constraints contradict each "
            f"other.{hint} Re-assembling moves the bodies to the nearest pose that satisfies "
            f"every constraint, if there is one.",
            ("assemble", "go_back"),
            message,
        )
    if "assembl" in text:
        return Explanation(
            "The model cannot be assembled",
            "No pose satisfies all the constraints from here: a loop cannot close (its links "
            "are too short or too long), or a coordinate you set is locked in a pose that the "
            "constraints forbid. Move the bodies back toward a pose where the loop closes, or "
            "check the lengths and attachment points of the constraints.",
            ("go_back",),
            message,
        )
    if any(word in text for word in ("non-finite", "nan", "infinite", "inf ")):
        return Explanation(
            "The simulation blew up",
            "Some state variable became infinite or not a number. A force grew without bound "
            "(a very stiff spring, a body of tiny mass or inertia, a huge velocity) and the "
            "integrator could not follow it. Check masses and stiffnesses; a tighter accuracy "
            "or the implicit integrator often helps.",
            ("go_back", "tighten_accuracy", "implicit"),
            message,
        )
    if "step" in text and ("fail" in text or "size" in text or "accuracy" in text):
        return Explanation(
            "The integrator could not take a step",
            "The error-controlled integrator kept shrinking its step and still could not meet "
            "the accuracy. This happens with stiff models (a very stiff spring, bushing or "
            "contact next to slow motion) on an explicit method, or when the model is "
            "singular at this pose. The implicit integrator handles stiffness; a tighter "
            "accuracy helps when the step fails on a fast but smooth motion.",
            ("implicit", "tighten_accuracy", "go_back"),
            message,
        )
    if "stage" in text and ("realiz" in text or "requires" in text or "needs" in text):
        return Explanation(
            "A quantity was asked for too early",
            "Every quantity belongs to a stage (Time, Position, Velocity, Dynamics, "
            "Acceleration...): it can be read only once the State has been realized to that "
            "stage. Use 'Realize to' in the Stage inspector to bring the State there.",
            (),
            message,
        )
    return Explanation(
        "The simulation stopped",
        "The engine reported a problem it could not recover from. The details below give "
        "its own words; going back to the last good State keeps your work.",
        ("go_back",),
        message,
    )

"""Motions (prescribed motion of one mobilizer): Motion.Steady, Motion.Sinusoid,
Motion.Custom; levels and methods as Simbody's Motion."""

from engine.multibody.motions.custom import Custom
from engine.multibody.motions.motion import Motion, MotionLevel, MotionMethod
from engine.multibody.motions.sinusoid import Sinusoid
from engine.multibody.motions.steady import Steady

Motion.Steady = Steady
Motion.Sinusoid = Sinusoid
Motion.Custom = Custom

__all__ = ["Motion", "MotionLevel", "MotionMethod"]

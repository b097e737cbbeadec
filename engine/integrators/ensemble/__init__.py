"""Ensembles: many States of one System integrated together by compiled kernels
(``EnsembleIntegrator``; design in docs/ensembles.md)."""

from engine.integrators.ensemble.ensemble_integrator import EnsembleIntegrator

__all__ = ["EnsembleIntegrator"]

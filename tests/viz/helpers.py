"""Pixel helpers for the offscreen viz tests (images are (h, w, 3) uint8, row 0 at the top)."""

from __future__ import annotations

import numpy as np

WIDTH, HEIGHT = 200, 150


def color_mask(img: np.ndarray, rgb, tol: float = 0.25, min_level: int = 50) -> np.ndarray:
    """Pixels whose chromaticity matches ``rgb`` (shading-tolerant: compares rgb / max)."""
    a = img.astype(np.float64)
    level = a.max(axis=2)
    norm = a / np.maximum(level, 1.0)[..., None]
    target = np.asarray(rgb, dtype=np.float64)
    target = target / target.max()
    return (level >= min_level) & (np.abs(norm - target).max(axis=2) <= tol)


def exact_mask(img: np.ndarray, rgb255) -> np.ndarray:
    """Pixels exactly equal to an RGB triple (0..255), e.g. a uniform background."""
    return np.all(img == np.asarray(rgb255, dtype=np.uint8), axis=2)


def centroid(mask: np.ndarray) -> tuple[float, float]:
    """(x, y) centre of a mask's pixels, y measured from the top row."""
    ys, xs = np.nonzero(mask)
    assert len(xs), "mask is empty"
    return float(xs.mean()), float(ys.mean())


def assert_shows(img: np.ndarray, rgb, min_pixels: int = 15, background=(255, 255, 255)):
    """The image is not blank: it has background pixels and ``rgb`` object pixels."""
    bg = exact_mask(img, background).sum()
    obj = color_mask(img, rgb).sum()
    assert bg > 0.2 * img.shape[0] * img.shape[1], f"too few background pixels ({bg})"
    assert obj >= min_pixels, f"too few object pixels of colour {rgb} ({obj})"
    return color_mask(img, rgb)

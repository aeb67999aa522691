"""Analytic bodies marked on the grid: sphere, cylinder and box.

A cell is solid when its centre lies inside the body. Each primitive also gives its frontal area
(projected onto the y-z plane, normal to the flow along x) inside the domain, and its default
reference length (diameter, or the box's length along x).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.config import AXES, BodyConfig


@dataclass(frozen=True)
class Primitive:
    shape: str
    center: np.ndarray      # [m]
    radius: float           # [m]
    size: np.ndarray        # [m]
    axis: int               # cylinder axis index

    @classmethod
    def from_config(cls, body: BodyConfig) -> "Primitive":
        return cls(body.shape, np.asarray(body.center_m, float), float(body.radius_m),
                   np.asarray(body.size_m, float), AXES.index(body.axis))

    def inside(self, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Boolean mask of points (broadcast arrays, metres) inside the body."""
        p = [x - self.center[0], y - self.center[1], z - self.center[2]]
        if self.shape == "sphere":
            return p[0] ** 2 + p[1] ** 2 + p[2] ** 2 < self.radius**2
        if self.shape == "cylinder":
            a, b = (i for i in range(3) if i != self.axis)
            return np.broadcast_to(p[a] ** 2 + p[b] ** 2 < self.radius**2, np.broadcast(x, y, z).shape)
        if self.shape == "box":
            h = self.size / 2
            return (np.abs(p[0]) < h[0]) & (np.abs(p[1]) < h[1]) & (np.abs(p[2]) < h[2])
        return np.zeros(np.broadcast(x, y, z).shape, dtype=bool)

    def reference_length(self) -> float:
        if self.shape in ("sphere", "cylinder"):
            return 2 * self.radius
        if self.shape == "box":
            return float(self.size[0])
        raise ValueError("a body of shape 'none' has no reference length")

    def frontal_area(self, domain_lo: np.ndarray, domain_hi: np.ndarray) -> float:
        """Area of the body's shadow on the y-z plane, clipped to the domain [m^2]."""
        if self.shape == "sphere":
            return math.pi * self.radius**2
        lo_y, hi_y, lo_z, hi_z = domain_lo[1], domain_hi[1], domain_lo[2], domain_hi[2]

        def span(c: float, half: float, lo: float, hi: float) -> float:
            return max(0.0, min(c + half, hi) - max(c - half, lo))

        if self.shape == "box":
            return span(self.center[1], self.size[1] / 2, lo_y, hi_y) * span(
                self.center[2], self.size[2] / 2, lo_z, hi_z)
        if self.shape == "cylinder":
            if self.axis == 0:
                return math.pi * self.radius**2
            other = 2 if self.axis == 1 else 1
            length = domain_hi[self.axis] - domain_lo[self.axis]
            return span(self.center[other], self.radius, domain_lo[other], domain_hi[other]) * length
        return 0.0

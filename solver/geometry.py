"""Analytic bodies marked on the grid: sphere, cylinder and box.

A cell is solid when its centre lies inside the body. Each primitive also gives its frontal area
(projected onto the y-z plane, normal to the flow along x) inside the domain, and its default
reference length (diameter, or the box's length along x).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.config import AXES, BodyConfig


@dataclass(frozen=True)
class Primitive:
    """An analytic body: a sphere, a cylinder infinite along an axis, or an axis-aligned box."""

    shape: str
    center_m: np.ndarray
    radius_m: float
    size_m: np.ndarray  # box lengths along x, y, z
    axis: int  # cylinder axis: 0 x, 1 y, 2 z

    @classmethod
    def from_config(cls, body: BodyConfig) -> Primitive:
        return cls(
            body.shape,
            np.asarray(body.center_m, float),
            float(body.radius_m),
            np.asarray(body.size_m, float),
            AXES.index(body.axis),
        )

    def inside(self, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Boolean mask of points (broadcast arrays, metres) inside the body."""
        p = [x - self.center_m[0], y - self.center_m[1], z - self.center_m[2]]
        shape = np.broadcast(x, y, z).shape
        if self.shape == "sphere":
            return np.broadcast_to(p[0] ** 2 + p[1] ** 2 + p[2] ** 2 < self.radius_m**2, shape)
        if self.shape == "cylinder":
            a, b = (i for i in range(3) if i != self.axis)
            return np.broadcast_to(p[a] ** 2 + p[b] ** 2 < self.radius_m**2, shape)
        h = self.size_m / 2
        return np.broadcast_to(
            (np.abs(p[0]) < h[0]) & (np.abs(p[1]) < h[1]) & (np.abs(p[2]) < h[2]), shape
        )

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The smallest axis-aligned box holding the body [m], min and max corners; a cylinder's
        is infinite along its axis."""
        if self.shape == "box":
            return self.center_m - self.size_m / 2, self.center_m + self.size_m / 2
        half = np.full(3, self.radius_m)
        if self.shape == "cylinder":
            half[self.axis] = np.inf
        return self.center_m - half, self.center_m + half

    def wall_fraction(self, start_m: np.ndarray, link_m: np.ndarray) -> np.ndarray:
        """For segments start + t link (arrays [n, 3], metres) that start outside the body and end
        inside it, the t in (0, 1] where each first meets the surface: the wall distance q of
        interpolated bounce-back. Exact for the analytic shapes (ray-quadric and ray-slab)."""
        rel = start_m - self.center_m
        if self.shape == "box":
            h = self.size_m / 2
            with np.errstate(divide="ignore", invalid="ignore"):
                t0 = (-h - rel) / link_m
                t1 = (h - rel) / link_m
            near = np.where(link_m != 0, np.minimum(t0, t1), -np.inf)
            t = np.max(near, axis=1)
        else:
            d, o = link_m.copy(), rel.copy()
            if self.shape == "cylinder":
                d[:, self.axis] = 0.0
                o[:, self.axis] = 0.0
            a = np.sum(d * d, axis=1)
            b = 2 * np.sum(o * d, axis=1)
            c = np.sum(o * o, axis=1) - self.radius_m**2
            disc = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
            t = (-b - disc) / (2 * a)
        return np.clip(t, 1e-6, 1.0)

    def reference_length(self) -> float:
        """Default reference length [m]: the diameter, or the box's length along x."""
        if self.shape in ("sphere", "cylinder"):
            return 2 * self.radius_m
        return float(self.size_m[0])

    def frontal_area(self, domain_lo: np.ndarray, domain_hi: np.ndarray) -> float:
        """Area of the body's shadow on the y-z plane, clipped to the domain [m^2]."""
        lo_y, hi_y, lo_z, hi_z = domain_lo[1], domain_hi[1], domain_lo[2], domain_hi[2]
        c = self.center_m
        if self.shape == "box":
            return _overlap(c[1], self.size_m[1] / 2, lo_y, hi_y) * _overlap(
                c[2], self.size_m[2] / 2, lo_z, hi_z
            )
        if self.shape == "cylinder" and self.axis != 0:
            other = 2 if self.axis == 1 else 1
            length = domain_hi[self.axis] - domain_lo[self.axis]
            return _overlap(c[other], self.radius_m, domain_lo[other], domain_hi[other]) * length
        # A circle of radius R in the y-z plane (sphere, or cylinder along x), clipped to the
        # domain's y-z rectangle: integrate the clipped chord over y (midpoint rule, 4096 strips,
        # relative error below 1e-6).
        y0, y1 = max(c[1] - self.radius_m, lo_y), min(c[1] + self.radius_m, hi_y)
        if y1 <= y0:
            return 0.0
        edges = np.linspace(y0, y1, 4097)
        y = 0.5 * (edges[1:] + edges[:-1])
        half = np.sqrt(np.maximum(self.radius_m**2 - (y - c[1]) ** 2, 0.0))
        chord = np.clip(np.minimum(c[2] + half, hi_z) - np.maximum(c[2] - half, lo_z), 0.0, None)
        return float(np.sum(chord) * (y1 - y0) / 4096)


def _overlap(center: float, half: float, lo: float, hi: float) -> float:
    """Length of [center - half, center + half] inside [lo, hi]."""
    return max(0.0, min(center + half, hi) - max(center - half, lo))

"""The body in the tunnel, whatever it is made of: an analytic primitive or a closed triangle
mesh. Each kind answers the same four questions the solver asks: which cells are inside, how
far along each link into it the surface lies, its frontal area and its reference length."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Protocol

import numpy as np

from solver import lattice
from solver.backends import Backend
from solver.config import CaseConfig
from solver.errors import ConfigError
from solver.geometry import Primitive
from solver.grid import Grid, links_into_body
from solver.voxelize import CellCentres, frontal_area_m2, inside_mask, link_fractions

log = logging.getLogger(__name__)


class MeshArrays(Protocol):
    """A closed, outward-oriented triangle mesh: vertices [n, 3] in metres, faces [m, 3]."""

    vertices_m: np.ndarray
    faces: np.ndarray


class Body(ABC):
    @abstractmethod
    def cells(self, grid: Grid) -> np.ndarray:
        """bool [z, y, x]: cells whose centres lie inside the body."""

    @abstractmethod
    def wall_fractions(self, grid: Grid, flags: np.ndarray, slot: np.ndarray) -> np.ndarray:
        """float32 [n_slots, 18]: for each fluid cell next to the body (slot [z, y, x] >= 0, in
        slot order) and each link q = 1..18 whose source cell is in the body, the fraction of
        the link from the cell centre to the surface; 0 on other links."""

    @abstractmethod
    def frontal_area_m2(
        self, domain_lo_m: np.ndarray, domain_hi_m: np.ndarray, dx_m: float
    ) -> float:
        """Area of the shadow on the y-z plane, clipped to the domain."""

    @abstractmethod
    def reference_length_m(self) -> float:
        """Default reference length: the primitive's own, or the mesh's length along x."""

    @abstractmethod
    def bounds_m(self) -> tuple[np.ndarray, np.ndarray]:
        """The min and max corners of the body's axis-aligned bounding box [m]."""


class PrimitiveBody(Body):
    def __init__(self, primitive: Primitive) -> None:
        self.primitive = primitive

    def cells(self, grid: Grid) -> np.ndarray:
        x, y, z = grid.centers(0), grid.centers(1), grid.centers(2)
        return self.primitive.inside(x[None, None, :], y[None, :, None], z[:, None, None])

    def wall_fractions(self, grid: Grid, flags: np.ndarray, slot: np.ndarray) -> np.ndarray:
        cells = np.argwhere(slot >= 0)  # [n, 3] as (z, y, x), in slot order
        into = links_into_body(slot, (flags & lattice.BODY) != 0)
        fractions = np.zeros(into.shape, dtype=np.float32)
        centres = np.stack(
            [
                grid.centers(0)[cells[:, 2]],
                grid.centers(1)[cells[:, 1]],
                grid.centers(2)[cells[:, 0]],
            ],
            axis=1,
        )
        for q in range(1, 19):
            in_body = into[:, q - 1]
            if np.any(in_body):
                link = np.broadcast_to(-lattice.C[q] * grid.dx_m, (int(in_body.sum()), 3)).astype(
                    float
                )
                fractions[in_body, q - 1] = self.primitive.wall_fraction(centres[in_body], link)
        return fractions

    def frontal_area_m2(
        self, domain_lo_m: np.ndarray, domain_hi_m: np.ndarray, dx_m: float
    ) -> float:
        return self.primitive.frontal_area(domain_lo_m, domain_hi_m)

    def reference_length_m(self) -> float:
        return self.primitive.reference_length()

    def bounds_m(self) -> tuple[np.ndarray, np.ndarray]:
        return self.primitive.bounds()


class MeshBody(Body):
    """A closed triangle mesh, voxelized by the kernels of cuda/voxelize.cuh on the backend."""

    def __init__(self, mesh: MeshArrays, backend: Backend) -> None:
        self.vertices_m = np.asarray(mesh.vertices_m, dtype=np.float64)
        self.faces = np.asarray(mesh.faces, dtype=np.int64)
        self.backend = backend

    def _centres(self, grid: Grid) -> CellCentres:
        first = tuple(float(grid.centers(a)[0]) for a in range(3))
        return CellCentres(grid.shape_zyx, first, grid.dx_m)  # type: ignore[arg-type]

    def cells(self, grid: Grid) -> np.ndarray:
        return inside_mask(self.backend, self.vertices_m, self.faces, self._centres(grid)).astype(
            bool
        )

    def wall_fractions(self, grid: Grid, flags: np.ndarray, slot: np.ndarray) -> np.ndarray:
        body = (flags & lattice.BODY) != 0
        q, missing = link_fractions(
            self.backend, self.vertices_m, self.faces, self._centres(grid), slot, body
        )
        if missing:
            log.warning(
                "%d links into the body cross no triangle (surface within round-off of a "
                "cell centre): halfway bounce-back on those",
                missing,
            )
        return q

    def frontal_area_m2(
        self, domain_lo_m: np.ndarray, domain_hi_m: np.ndarray, dx_m: float
    ) -> float:
        return frontal_area_m2(
            self.backend,
            self.vertices_m,
            self.faces,
            (domain_lo_m[1], domain_hi_m[1]),
            (domain_lo_m[2], domain_hi_m[2]),
            dx_m / 16,
        )

    def reference_length_m(self) -> float:
        return float(np.ptp(self.vertices_m[:, 0]))

    def bounds_m(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vertices_m.min(axis=0), self.vertices_m.max(axis=0)


def make_body(case: CaseConfig, backend: Backend, mesh: MeshArrays | None) -> Body | None:
    """The case's body: None without one; a mesh body needs the mesh (read by the caller)."""
    if case.body.shape == "none":
        return None
    if case.body.shape == "mesh":
        if mesh is None:
            raise ConfigError(
                "body.shape 'mesh' needs a mesh: give geometry.path (run_case.py) "
                "or pass the mesh to Simulation"
            )
        return MeshBody(mesh, backend)
    return PrimitiveBody(Primitive.from_config(case.body))

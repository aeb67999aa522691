"""The Ahmed body (Ahmed, Ramm & Faltin 1984, SAE 840300) as a closed triangle mesh.

Length 1.044 m, width 0.389 m, height 0.288 m; the four front edges rounded with radius 0.100 m
(the edges along the body stay sharp, so every section is a rectangle); a rear slant of length
0.222 m along its surface at slant_deg from the horizontal; ground clearance 0.050 m; optional
four cylindrical stilts of diameter 30 mm at 0.372 m and 0.842 m behind the nose, 0.1635 m either
side of the centre plane. Frame: nose at x = 0, centre plane y = 0, ground at z = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from shapes.errors import MeshError
from shapes.loft import loft, rectangle_ring
from shapes.mesh import TriangleMesh
from shapes.parameters import Parameter
from shapes.solids import cylinder_along

STILT_X_M = (0.372, 0.842)
STILT_Y_M = 0.1635
STILT_RADIUS_M = 0.015
#: Gap between a stilt's top and the body: the two stay separate closed surfaces.
STILT_GAP_M = 1e-4

#: The named parts of the body's surface, as automotive aerodynamicists break down its drag:
#: the forebody is the front face and the rounded nose (x < front radius), the base the rear
#: face, the slant the rear slope; the rest by the way it faces. Stilts, where modelled, are a
#: seventh part.
PART_NAMES = ("forebody", "roof", "sides", "underbody", "slant", "base")
STILTS_PART = "stilts"

#: The Ahmed family's design parameter: the rear slant, the variable of Ahmed et al.'s study.
PARAMETERS: tuple[Parameter, ...] = (
    Parameter("slant_deg", "deg", 0.0, 40.0, 25.0, "rear slant angle from the horizontal"),
)


@dataclass(frozen=True)
class AhmedBody:
    slant_deg: float = 25.0  # rear slant angle, 0-40 degrees
    length_m: float = 1.044
    width_m: float = 0.389
    height_m: float = 0.288
    front_radius_m: float = 0.100
    slant_length_m: float = 0.222  # along the slant surface
    ground_clearance_m: float = 0.050
    stilts: bool = False
    resolution: int = 24  # points per quarter of the nose's rounding

    def validate(self) -> None:
        if not 0.0 <= self.slant_deg <= 40.0:
            raise MeshError(f"slant_deg {self.slant_deg} is outside 0-40 degrees")
        if self.ground_clearance_m <= 0 or self.resolution < 4:
            raise MeshError("ground_clearance_m must be positive and resolution at least 4")

    def mesh(self) -> TriangleMesh:
        """The body (and its stilts) in metres, outward-oriented."""
        self.validate()
        L, W, H, R = self.length_m, self.width_m, self.height_m, self.front_radius_m
        phi = math.radians(self.slant_deg)
        slant_dx = self.slant_length_m * math.cos(phi)
        nose = R * (
            1 - np.cos(np.linspace(0, math.pi / 2, self.resolution + 1))
        )  # 0 .. R, dense at the tip
        stations = np.concatenate([nose, [L - slant_dx, L]])
        inset = R - np.sqrt(np.maximum(R**2 - (R - np.minimum(stations, R)) ** 2, 0.0))
        top = np.where(stations > L - slant_dx, H - (stations - (L - slant_dx)) * math.tan(phi), H)
        if self.slant_deg == 0.0:
            stations, inset, top = stations[:-1].copy(), inset[:-1], top[:-1]
            stations[-1] = L
        n_w, n_h = 2 * self.resolution, self.resolution
        rings = np.stack(
            [
                rectangle_ring(W / 2 - d, d, t - d, n_w, n_h)
                for d, t in zip(inset, top, strict=False)
            ]
        )
        rings[:, :, 1] += self.ground_clearance_m
        body = loft(stations, rings)
        body = TriangleMesh(
            body.vertices_m, body.faces, self._face_parts(body, L - slant_dx), PART_NAMES
        )
        if not self.stilts:
            return body
        stilt = len(PART_NAMES)
        parts = [body] + [
            cylinder_along(
                2,
                (x, y, 0.0),
                STILT_RADIUS_M,
                0.0,
                self.ground_clearance_m - STILT_GAP_M,
                n=24,
                stations=2,
            )
            for x in STILT_X_M
            for y in (-STILT_Y_M, STILT_Y_M)
        ]
        merged = merge(parts)
        labels = np.full(len(merged.faces), stilt, np.int32)
        labels[: len(body.faces)] = body.face_part
        return TriangleMesh(merged.vertices_m, merged.faces, labels, (*PART_NAMES, STILTS_PART))

    def _face_parts(self, body: TriangleMesh, slant_start_x_m: float) -> np.ndarray:
        """Each face's index in PART_NAMES, from where it lies and the way it faces."""
        corners_x = body.vertices_m[body.faces][:, :, 0]
        centre_x = corners_x.mean(axis=1)
        normal = body.face_normals()
        tol = 1e-9 * self.length_m
        part = np.where(
            normal[:, 2] > 0.5,
            PART_NAMES.index("roof"),
            np.where(normal[:, 2] < -0.5, PART_NAMES.index("underbody"), PART_NAMES.index("sides")),
        )
        slant = (corners_x.min(axis=1) >= slant_start_x_m - tol) & (normal[:, 2] > 0.0)
        part = np.where(slant, PART_NAMES.index("slant"), part)
        part = np.where(
            corners_x.min(axis=1) >= self.length_m - tol, PART_NAMES.index("base"), part
        )
        part = np.where(centre_x < self.front_radius_m, PART_NAMES.index("forebody"), part)
        return part.astype(np.int32)

    def frontal_area_m2(self) -> float:
        """The shadow on the y-z plane: every section is a rectangle no larger than the middle
        one, so it is W x H, plus diameter times height for each of the two stilt positions
        across the width (the rear stilts stand in the front ones' shadow)."""
        stilts = (
            2 * 2 * STILT_RADIUS_M * (self.ground_clearance_m - STILT_GAP_M) if self.stilts else 0.0
        )
        return self.width_m * self.height_m + stilts


def merge(parts: list[TriangleMesh]) -> TriangleMesh:
    """Several closed meshes as one (they must not overlap)."""
    offsets = np.cumsum([0] + [len(p.vertices_m) for p in parts[:-1]])
    return TriangleMesh(
        np.vstack([p.vertices_m for p in parts]),
        np.vstack([p.faces + o for p, o in zip(parts, offsets, strict=False)]),
    )

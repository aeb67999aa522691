"""The `geometry` section of a case: where the body's mesh comes from and where it sits.

run_case.py adds this section to the solver's case schema, builds the mesh with
`build_geometry`, and hands it to the solver (which takes any closed mesh as arrays).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, make_dataclass

import numpy as np

from shapes import ahmed, car
from shapes.ahmed import AhmedBody
from shapes.car import PARAMETERS, CarParameters, car_mesh
from shapes.errors import MeshError
from shapes.mesh import TriangleMesh, check_mesh, read_mesh
from shapes.parameters import Parameter
from shapes.solids import tube_along

SOURCES = ("none", "file", "ahmed", "car", "pipe")

#: The parametric shape families a sweep or an optimizer searches: geometry.source -> its
#: design parameters, each a key under geometry.<family>.
FAMILIES: dict[str, tuple[Parameter, ...]] = {"car": car.PARAMETERS, "ahmed": ahmed.PARAMETERS}

#: The parametric car's keys (geometry.car.*), one per design parameter, defaulting to the
#: baseline; units and bounds in shapes/car.py's PARAMETERS and docs/geometry.md.
#: `wheels` adds the four wheels of shapes/wheels.py (not a design parameter).
CarConfig = make_dataclass(
    "CarConfig", [(p.name, float, p.baseline) for p in PARAMETERS] + [("wheels", bool, False)]
)


@dataclass
class AhmedConfig:
    slant_deg: float = 25.0  # rear slant angle [deg], 0-40
    ground_clearance_m: float = 0.050  # [m]
    stilts: bool = False  # the four cylindrical stilts
    resolution: int = 24  # points per quarter of the nose rounding [-]


@dataclass
class PipeConfig:
    """A circular pipe along x: its wall is a tube whose bore is the fluid. For a periodic pipe
    let it run past both x ends of the domain (the ends then lie outside the grid)."""

    radius_m: float = 0.5  # the bore's radius R [m]
    wall_m: float = 0.5  # the tube wall's thickness [m]; R + wall past the corners of the section
    center_y_m: float = 0.5  # the axis [m]
    center_z_m: float = 0.5
    x_min_m: float = -1.0  # the tube's ends [m]
    x_max_m: float = 10.0
    facets: int = 256  # facets round the circumference [-]


@dataclass
class PlacementConfig:
    nose_x_m: float | None = None  # x of the body's foremost point [m]; None: as built
    center_y_m: float | None = None  # y of the middle of its width [m]; None: as built
    z_offset_m: float = 0.0  # added to every z [m] (ahmed: ground at z = 0)


@dataclass
class GeometryConfig:
    source: str = "none"  # none | file | ahmed | car | pipe
    path: str = ""  # mesh file (STL, OBJ, PLY, OFF, VTP, VTU) for source file
    unit: str = "m"  # the file's length unit: m | cm | mm | in | ft
    downstream: str = "+x"  # the file's axis from nose to tail: +x -x +y -y +z -z
    up: str = "+z"  # the file's up axis
    ahmed: AhmedConfig = field(default_factory=AhmedConfig)
    car: CarConfig = field(default_factory=CarConfig)  # type: ignore[valid-type]
    pipe: PipeConfig = field(default_factory=PipeConfig)
    placement: PlacementConfig = field(default_factory=PlacementConfig)


def build_geometry(geometry: GeometryConfig) -> TriangleMesh | None:
    """The placed, checked mesh the section describes, or None for source none. MeshError on a
    file that cannot be read or a surface that is not closed, oriented and clean."""
    if geometry.source not in SOURCES:
        raise MeshError(f"geometry.source '{geometry.source}' is unknown: use one of {SOURCES}")
    if geometry.source == "none":
        return None
    if geometry.source == "file":
        if not geometry.path:
            raise MeshError(
                "geometry.path is empty: give the mesh file, e.g. geometry.path=my_car.stl"
            )
        mesh = read_mesh(geometry.path, geometry.unit, geometry.downstream, geometry.up)
        name = geometry.path
    else:
        section = f"geometry.{geometry.source}"
        try:
            if geometry.source == "ahmed":
                a = geometry.ahmed
                mesh = AhmedBody(
                    slant_deg=a.slant_deg,
                    ground_clearance_m=a.ground_clearance_m,
                    stilts=a.stilts,
                    resolution=a.resolution,
                ).mesh()
            elif geometry.source == "pipe":
                pp = geometry.pipe
                mesh = tube_along(
                    0,
                    (0.0, pp.center_y_m, pp.center_z_m),
                    pp.radius_m,
                    pp.radius_m + pp.wall_m,
                    pp.x_min_m,
                    pp.x_max_m,
                    n=pp.facets,
                )
            else:
                design = asdict(geometry.car)
                wheels = design.pop("wheels")
                mesh = car_mesh(CarParameters(**design), wheels=wheels)
        except MeshError as exc:
            raise MeshError(f"{section}: {exc}") from exc
        name = section
    check_mesh(mesh, name)
    return place(mesh, geometry.placement)


def family_overrides(family: str, values: dict[str, float]) -> list[str]:
    """The case overrides (key=value) that select a shape family and set its parameters."""
    if family not in FAMILIES:
        raise MeshError(f"shape family '{family}' is unknown: use one of {tuple(FAMILIES)}")
    known = {p.name for p in FAMILIES[family]}
    unknown = sorted(set(values) - known)
    if unknown:
        raise MeshError(f"{family} has no parameter {unknown[0]}: use one of {sorted(known)}")
    return [f"geometry.source={family}"] + [
        f"geometry.{family}.{k}={float(v)!r}" for k, v in values.items()
    ]


def place(mesh: TriangleMesh, placement: PlacementConfig) -> TriangleMesh:
    """The mesh moved as placement says (metres)."""
    lo, hi = mesh.bounds_m()
    offset = np.array([0.0, 0.0, placement.z_offset_m])
    if placement.nose_x_m is not None:
        offset[0] = placement.nose_x_m - lo[0]
    if placement.center_y_m is not None:
        offset[1] = placement.center_y_m - 0.5 * (lo[1] + hi[1])
    return mesh.transformed(offset_m=offset)

"""Cases with a `geometry` section: the solver's case schema plus the section shapes/ turns into
a mesh. run_case.py, the dataset sweep and the optimizer's verification all load cases here."""

from __future__ import annotations

import numpy as np

from shapes.geometry_config import GeometryConfig, build_geometry
from shapes.mesh import UNITS, TriangleMesh
from solver.config import CaseConfig, extended_schema
from solver.errors import ConfigError

#: The solver's case schema plus the geometry section.
CASE_SCHEMA = extended_schema({"geometry": GeometryConfig})


def case_mesh(case: CaseConfig) -> TriangleMesh | None:
    """The placed, checked mesh of the case's geometry section (None for source none).
    ConfigError when body.shape and geometry.source disagree; MeshError on a bad mesh."""
    mesh = build_geometry(case.geometry)
    if (mesh is None) != (case.body.shape != "mesh"):
        raise ConfigError(
            "body.shape 'mesh' and a geometry.source other than 'none' go together: "
            "set both, or neither"
        )
    if mesh is not None and case.geometry.source == "file":
        check_size_against_tunnel(mesh, case.geometry.unit, np.asarray(case.domain.size_m, float))
    return mesh


def check_size_against_tunnel(mesh: TriangleMesh, unit: str, tunnel_m: np.ndarray) -> None:
    """Refuse a file's mesh larger than the tunnel on any axis, naming geometry.unit first (a
    mesh in millimetres read as metres is 1000 times too large) and the unit that would fit."""
    extent_m = np.ptp(mesh.vertices_m, axis=0)
    if np.all(extent_m <= tunnel_m):
        return
    file_extent = extent_m / UNITS[unit]
    fitting = [
        name
        for name, scale in sorted(UNITS.items(), key=lambda item: -item[1])
        if np.all(file_extent * scale <= tunnel_m)
    ]
    hint = (
        f"if the file is in {fitting[0]}, set geometry.unit={fitting[0]}; otherwise widen "
        "domain.size_m"
        if fitting
        else "widen domain.size_m"
    )
    size = " x ".join(f"{v:.4g}" for v in extent_m)
    tunnel = " x ".join(f"{v:.4g}" for v in tunnel_m)
    raise ConfigError(
        f"the mesh read with geometry.unit={unit} is {size} m, larger than the "
        f"{tunnel} m tunnel (domain.size_m): {hint}"
    )

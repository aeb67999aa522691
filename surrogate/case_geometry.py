"""Cases with a `geometry` section: the solver's case schema plus the section shapes/ turns into
a mesh. run_case.py, the dataset sweep and the optimizer's verification all load cases here."""

from __future__ import annotations

from shapes.geometry_config import GeometryConfig, build_geometry
from shapes.mesh import TriangleMesh
from solver.config import CaseConfig, extended_schema
from solver.errors import ConfigError

#: The solver's case schema plus the geometry section.
CASE_SCHEMA = extended_schema({"geometry": GeometryConfig})


def case_mesh(case: CaseConfig) -> TriangleMesh | None:
    """The placed, checked mesh of the case's geometry section (None for source none).
    ConfigError when body.shape and geometry.source disagree; MeshError on a bad mesh."""
    mesh = build_geometry(case.geometry)
    if (mesh is None) != (case.body.shape != "mesh"):
        raise ConfigError("body.shape 'mesh' and a geometry.source other than 'none' go together: "
                          "set both, or neither")
    return mesh

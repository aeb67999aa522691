"""A case built in Python: the same typed dataclasses the YAML loader fills, under short names,
and the same checks.

    case = Case(flow=Flow(speed_m_s=30.0, nu_m2_s=1.5e-5), body=Body(shape="sphere"), ...)

``Case`` is the case schema itself (solver/config.py's CaseConfig with the geometry section of
shapes/case_geometry.py), so a case from a YAML file and one built here are the same object;
``checked_case`` runs a built case through the loader's type and range checks.
"""

from __future__ import annotations

from dataclasses import asdict

from shapes.case_geometry import CASE_SCHEMA
from shapes.geometry_config import GeometryConfig, PlacementConfig
from solver.config import (
    BodyConfig,
    BoundariesConfig,
    CaseConfig,
    ConvergenceConfig,
    DomainConfig,
    FlowConfig,
    LevelConfig,
    OutputConfig,
    RefinementConfig,
    ResolutionConfig,
    RunConfig,
    SpongeConfig,
    WallsConfig,
    merge_case,
)

Case = CASE_SCHEMA
Flow = FlowConfig
Domain = DomainConfig
Boundaries = BoundariesConfig
Sponge = SpongeConfig
Body = BodyConfig
Resolution = ResolutionConfig
Walls = WallsConfig
Run = RunConfig
Convergence = ConvergenceConfig
Output = OutputConfig
Refinement = RefinementConfig
Level = LevelConfig
Geometry = GeometryConfig
Placement = PlacementConfig


def checked_case(case: CaseConfig) -> CaseConfig:
    """The case after the checks a YAML case gets (types, ranges, consistency); ConfigError names
    the first key at fault, as for a file."""
    return merge_case(asdict(case), [], source="the Python case", schema=CASE_SCHEMA)

"""Case configuration: typed OmegaConf structured configs, loaded from YAML, validated on load.

Every field carries its unit in its comment; ``cases/README.md`` lists them all with their
defaults and ranges. A case's YAML is merged onto these defaults, then ``key=value`` overrides
(OmegaConf dot-list) are merged on top, then :func:`validate` checks ranges and combinations.
Any problem ends in a :class:`~solver.errors.ConfigError` whose message names the key.

Over 250 lines: the schema and its checks stay side by side, so a key's meaning and its allowed
range are read (and added) together.
"""

from __future__ import annotations

import difflib
import math
import typing
from dataclasses import dataclass, field, fields, is_dataclass, make_dataclass
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from solver.errors import ConfigError

FACE_TYPES = ("periodic", "noslip", "freeslip", "moving", "inlet", "outflow")
SHAPES = ("none", "sphere", "cylinder", "box", "mesh")
BOUNCE_BACK = ("interpolated", "halfway", "volumetric", "projected")
#: The forms of the volumetric wall.
VOLUMETRIC = ("volumetric", "projected")
INLET_PROFILES = ("uniform", "parabolic_y")
INITIAL_STATES = ("inflow", "rest", "taylor_green")
COLLISIONS = ("bgk", "entropic")
STORAGES = ("fp32", "fp16s", "fp16c")
STREAMINGS = ("ab", "aa")
SUBGRIDS = ("smagorinsky", "wale", "vreman")
WALL_MODELS = ("none", "loglaw")
WALL_BODY_RULES = ("faces", "surface", "slip")
AXES = ("x", "y", "z")


@dataclass
class FlowConfig:
    speed_m_s: float = 1.0  # reference speed U [m/s]: free stream or mean inflow
    nu_m2_s: float | None = None  # kinematic viscosity [m^2/s]; or give reynolds
    reynolds: float | None = None  # Re = U L / nu on the reference length [-]
    density_kg_m3: float = 1.225  # fluid density [kg/m^3], scales forces and pressure
    inlet_profile: str = "uniform"  # uniform | parabolic_y (mean U, zero at the y walls)
    body_accel_m_s2: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # [m/s^2]
    initial: str = "inflow"  # inflow (the inlet profile everywhere) | rest | taylor_green
    initial_perturbation: float = 0.0  # random velocity added to the initial state, share of U [-]
    reynolds_tau: float | None = (
        None  # channel: Re_tau = u_tau h / nu, h half the y size; drives it along x [-]
    )


@dataclass
class BoundariesConfig:
    x_min: str = "inlet"  # periodic | noslip | freeslip | moving | inlet
    x_max: str = "outflow"  # periodic | noslip | freeslip | moving | outflow
    y_min: str = "freeslip"  # periodic | noslip | freeslip | moving
    y_max: str = "freeslip"
    z_min: str = "moving"  # the rolling road: moves at U along x
    z_max: str = "freeslip"


@dataclass
class SpongeConfig:
    length_m: float = 0.0  # sponge length before the outflow [m]; 0 = none
    tau_outlet: float = 1.0  # lattice relaxation time reached at the outflow [-]


@dataclass
class DomainConfig:
    size_m: list[float] = field(default_factory=lambda: [1.0, 1.0, 1.0])  # box lengths [m]
    origin_m: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # min corner [m]
    boundaries: BoundariesConfig = field(default_factory=BoundariesConfig)
    sponge: SpongeConfig = field(default_factory=SpongeConfig)


@dataclass
class BodyConfig:
    shape: str = "none"  # none | sphere | cylinder | box | mesh
    center_m: list[float] = field(default_factory=lambda: [0.5, 0.5, 0.5])  # [m]
    radius_m: float = 0.1  # sphere and cylinder radius [m]
    size_m: list[float] = field(default_factory=lambda: [0.2, 0.2, 0.2])  # box lengths [m]
    axis: str = "z"  # cylinder axis
    reference_length_m: float | None = (
        None  # L for Re and the grid [m]; default: diameter or box length
    )
    reference_area_m2: float | None = (
        None  # A for Cd, Cl [m^2]; default: frontal area in the domain
    )
    lift_axis: str = "z"  # the axis Cl is measured along
    # interpolated (Bouzidi et al. 2001) | halfway | volumetric (Chen, Teixeira & Molvig 1998:
    # every cell with fluid in it flows, the mesh's elements send back what they gather, with
    # the wall model the law's stress on each element; mesh bodies, two-buffer grids, the
    # finest refinement level; docs/solver.md) | projected (the volumetric wall with each cell
    # near the body linear across its fluid, its slopes carried as state: no-slip about the
    # true surface; docs/solver.md, "The projected volumetric wall")
    bounce_back: str = "interpolated"


@dataclass
class ResolutionConfig:
    cells_per_length: int = 20  # cells across the reference length [-]
    u_lattice: float | None = None  # lattice speed of U [-]; default: largest <= 0.1 with tau <= 1
    smagorinsky_cs: float = 0.0  # Smagorinsky constant [-]; 0 disables the subgrid model
    # smagorinsky | wale | vreman: the subgrid model; wale and vreman (from the velocity
    # gradient, vanishing at walls; solver/subgrid.py) take their strength from smagorinsky_cs
    subgrid: str = "smagorinsky"
    collision: str | None = (
        None  # bgk | entropic; default: entropic with the subgrid model, else bgk
    )
    min_gap_cells: float = 2.0  # narrowest body-wall gap a case may have [cells]; contact excluded
    # fp32 | fp16s | fp16c: the populations stored as float32 (152 B per cell for the two
    # buffers), as binary16 of the shifted population times 2^15, or in a 16-bit format with 4
    # exponent and 11 significand bits (76 B each; the arithmetic stays float32)
    storage: str = "fp32"
    # ab | aa: two population buffers, each step pulling from one into the other, or one buffer
    # streamed in place (the AA pattern, half the populations' bytes; not with refinement.levels
    # or walls.pool_cells: solver/streaming.py)
    streaming: str = "ab"


@dataclass
class WallsConfig:
    model: str | None = None  # none | loglaw; default: loglaw with the subgrid model, else none
    sample_cells: int = (
        4  # the law of the wall reads the velocity of the n-th cell off the wall [cells]
    )
    # faces | surface | slip: the body's wall per voxel face; about the true surface, the
    # no-slip exchange scaled to the law's (experimental); or about the true surface, a wall
    # slipping with each cell, the law's stress set through the slip and the density along the
    # surface, sharp edges on the face rule (experimental; docs/solver.md, "The slip rule")
    body_rule: str = "faces"
    # surface rule: radius of the patches of wall cells over which the links' tangential exchange
    # beyond the modelled stress is pooled [cells]; 0: none (cuda/lbm_wall_pool.cuh)
    pool_cells: float = 0.0


@dataclass
class ConvergenceConfig:
    window_steps: int = 1000  # moving-average window of Cd [steps]
    tolerance: float = 1e-3  # relative change of the mean between windows [-]


@dataclass
class RunConfig:
    max_steps: int = 10000  # step limit [steps]
    check_every: int = 100  # divergence check, progress and convergence [steps]
    convergence: ConvergenceConfig = field(default_factory=ConvergenceConfig)
    average_steps: int = 0  # steps averaged after convergence [steps]; 0 = none
    # start averaging at this step whatever Cd does (unsteady flows) [steps]; 0 = at
    # convergence
    average_from_step: int = 0
    sample_every: int = 50  # field samples while averaging [steps]
    checkpoint_every: int = 0  # checkpoint interval [steps]; 0 = none


@dataclass
class OutputConfig:
    fields: bool = True  # write fields.vti
    stride: int = 1  # write every stride-th cell along each axis [-]
    snapshot_every: int = (
        0  # a fields snapshot (snapshots/, fields.pvd) this often [steps]; 0 = none
    )
    images: bool = True  # draw the pictures in images/ at the end


@dataclass
class LevelConfig:
    """One refined box, at twice the resolution of the level round it: a box in metres, or the
    body's bounding box grown by margin_m on every side and by wake_m more downstream (+x)."""

    box_lo_m: list[float] | None = None  # min corner of the box [m]
    box_hi_m: list[float] | None = None  # max corner of the box [m]
    margin_m: float | None = None  # or: the body's bounds grown by this on every side [m]
    wake_m: float = 0.0  # with margin_m: the box extended this much further downstream [m]


#: Refined boxes a case may nest (four levels with the tunnel's).
MAX_REFINED_BOXES = 3


@dataclass
class RefinementConfig:
    # refined boxes, coarsest first, each inside the one before (up to MAX_REFINED_BOXES);
    # resolution.cells_per_length is then the finest level's and each level round a box runs at
    # 1/2 of the box's (docs/solver.md, "Grid refinement")
    levels: list[LevelConfig] = field(default_factory=list)


@dataclass
class CaseConfig:
    name: str = "case"
    flow: FlowConfig = field(default_factory=FlowConfig)
    domain: DomainConfig = field(default_factory=DomainConfig)
    body: BodyConfig = field(default_factory=BodyConfig)
    resolution: ResolutionConfig = field(default_factory=ResolutionConfig)
    walls: WallsConfig = field(default_factory=WallsConfig)
    run: RunConfig = field(default_factory=RunConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    refinement: RefinementConfig = field(default_factory=RefinementConfig)


def extended_schema(sections: dict[str, type]) -> type:
    """CaseConfig with further top-level sections (name -> dataclass) that other packages own,
    e.g. the geometry that run_case.py turns into a mesh. The solver only carries them."""
    sections_ = [(name, cls, field(default_factory=cls)) for name, cls in sections.items()]
    return make_dataclass("ExtendedCaseConfig", sections_, bases=(CaseConfig,))


def load_case(
    path: str | Path, overrides: list[str] | None = None, schema: type = CaseConfig
) -> CaseConfig:
    """Read a case YAML, apply ``key=value`` overrides and validate. Raises ConfigError.
    schema: CaseConfig, or one made by extended_schema."""
    return merge_case(read_yaml(path, "case"), overrides or [], source=str(path), schema=schema)


def read_yaml(path: str | Path, what: str) -> DictConfig:
    """The top-level mapping of a YAML file (a case, a sweep, ...). Raises ConfigError."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{what} file '{path}' does not exist: give the path of a {what} YAML")
    try:
        user = OmegaConf.load(path)
    except Exception as exc:  # yaml's scanner and parser errors
        raise ConfigError(
            f"{what} file '{path}' is not valid YAML {_yaml_problem(exc)}: fix its syntax"
        ) from exc
    if not isinstance(user, DictConfig):
        raise ConfigError(f"{what} file '{path}' must hold a mapping of keys at the top level")
    return user


def _yaml_problem(exc: Exception) -> str:
    """Where and what: '(line 2, column 21: expected ',' or '}')' from a yaml error."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"({where}{problem})"


def merge_config(
    schema: type, user: DictConfig | dict, overrides: list[str], source: str = "config"
) -> object:
    """The structured config schema with a user mapping and dot-list overrides merged on top,
    as a dataclass instance (types checked, ranges not). Raises ConfigError naming the key."""
    try:
        merged = OmegaConf.merge(OmegaConf.structured(schema), user)
    except OmegaConfBaseException as exc:
        raise ConfigError(_omegaconf_message(exc, source, schema)) from exc
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override '{item}' is not key=value (e.g. run.max_steps=2000)")
        try:
            merged = OmegaConf.merge(merged, OmegaConf.from_dotlist([item]))
        except OmegaConfBaseException as exc:
            raise ConfigError(_omegaconf_message(exc, f"override '{item}'", schema)) from exc
        except TypeError as exc:  # e.g. a.b[0].c=1: a list's items are set as a whole list
            raise ConfigError(
                f"override '{item}' does not fit the case's keys ({exc}): give a list key as a "
                "whole, e.g. refinement.levels=[{margin_m: 0.1}]"
            ) from exc
    return OmegaConf.to_object(merged)


def merge_case(
    user: DictConfig | dict, overrides: list[str], source: str = "config", schema: type = CaseConfig
) -> CaseConfig:
    """Merge a user mapping and dot-list overrides onto the defaults, then validate."""
    case: CaseConfig = merge_config(schema, user, overrides, source)  # type: ignore[assignment]
    validate(case)
    return case


def schema_keys(schema: type, prefix: str = "") -> list[str]:
    """Every dotted key of a config dataclass, sections and leaves: 'flow', 'flow.reynolds', ...;
    the fields of a list's items as 'refinement.levels[].margin_m'."""
    keys = []
    hints = typing.get_type_hints(schema)
    for item in fields(schema):
        key = f"{prefix}{item.name}"
        keys.append(key)
        kind = hints[item.name]
        if typing.get_origin(kind) is list:
            (kind,) = typing.get_args(kind)
            key += "[]"
        if isinstance(kind, type) and is_dataclass(kind):
            keys += schema_keys(kind, f"{key}.")
    return keys


def _omegaconf_message(exc: OmegaConfBaseException, source: str, schema: type) -> str:
    key = getattr(exc, "full_key", None) or "?"
    text = str(exc).splitlines()[0]
    if "Key '" in text and "not in" in text:
        keys = schema_keys(schema)
        if "." not in key:  # a top-level key, or a list item's field, which OmegaConf names alone
            keys += [k.rsplit(".", 1)[-1] for k in keys if "[]." in k]
        close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
        hint = (
            f"did you mean '{close[0]}'?" if close else "check its spelling against cases/README.md"
        )
        return f"{source}: unknown key '{key}': {hint}"
    return f"{source}: key '{key}': {text}"


def _require(ok: bool, key: str, what: str) -> None:
    if not ok:
        raise ConfigError(f"key '{key}' {what}")


def _require_finite(node: object, prefix: str) -> None:
    """Every float in the config, in lists too, must be a finite number."""
    for name, value in vars(node).items():
        key = f"{prefix}{name}"
        if is_dataclass(value):
            _require_finite(value, f"{key}.")
        elif isinstance(value, float) or (
            isinstance(value, list) and value and isinstance(value[0], float)
        ):
            values = value if isinstance(value, list) else [value]
            _require(all(math.isfinite(v) for v in values), key, "must be finite")


def validate(case: CaseConfig) -> None:
    """Range and consistency checks that types alone cannot express."""
    _require_finite(case, "")
    f, d, b, r, run = case.flow, case.domain, case.body, case.resolution, case.run
    _require(
        bool(case.name) and "/" not in case.name, "name", "must be a non-empty name without '/'"
    )
    _require(f.speed_m_s > 0, "flow.speed_m_s", "must be a positive speed in m/s")
    _require(
        (f.nu_m2_s is None) != (f.reynolds is None),
        "flow.nu_m2_s",
        "and flow.reynolds: set exactly one of them",
    )
    if f.nu_m2_s is not None:
        _require(f.nu_m2_s > 0, "flow.nu_m2_s", "must be positive (m^2/s)")
    if f.reynolds is not None:
        _require(f.reynolds > 0, "flow.reynolds", "must be positive")
    _require(f.density_kg_m3 > 0, "flow.density_kg_m3", "must be positive (kg/m^3)")
    _require(
        f.inlet_profile in INLET_PROFILES, "flow.inlet_profile", f"must be one of {INLET_PROFILES}"
    )
    _require(f.initial in INITIAL_STATES, "flow.initial", f"must be one of {INITIAL_STATES}")
    _require(
        0.0 <= f.initial_perturbation <= 0.5,
        "flow.initial_perturbation",
        "must be in [0, 0.5] (share of U)",
    )
    _require(len(f.body_accel_m_s2) == 3, "flow.body_accel_m_s2", "must be three numbers (x, y, z)")
    if f.reynolds_tau is not None:
        _require(f.reynolds_tau > 0, "flow.reynolds_tau", "must be positive")
        _require(
            f.nu_m2_s is not None, "flow.reynolds_tau", "needs flow.nu_m2_s (u_tau = Re_tau nu / h)"
        )
        _require(
            not any(f.body_accel_m_s2),
            "flow.reynolds_tau",
            "sets the driving acceleration u_tau^2 / h itself: leave flow.body_accel_m_s2 at zero",
        )
        _require(
            d.boundaries.y_min == "noslip" and d.boundaries.y_max == "noslip",
            "flow.reynolds_tau",
            "is a channel between resting walls: set domain.boundaries.y_min and y_max to noslip",
        )
        _require(
            d.boundaries.x_min == "periodic" and d.boundaries.z_min == "periodic",
            "flow.reynolds_tau",
            "is a periodic channel: set domain.boundaries x and z to periodic",
        )
    if f.initial == "taylor_green":
        _require(
            d.boundaries.x_min == "periodic" and d.boundaries.y_min == "periodic",
            "flow.initial",
            "taylor_green needs periodic x and y boundaries",
        )
    _require(
        len(d.size_m) == 3 and all(s > 0 for s in d.size_m),
        "domain.size_m",
        "must be three positive lengths in m",
    )
    _require(len(d.origin_m) == 3, "domain.origin_m", "must be three coordinates in m")
    faces = d.boundaries
    for name in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max"):
        kind = getattr(faces, name)
        _require(kind in FACE_TYPES, f"domain.boundaries.{name}", f"must be one of {FACE_TYPES}")
        if kind == "inlet":
            _require(
                name == "x_min",
                f"domain.boundaries.{name}",
                "cannot be an inlet: the inlet is the x_min face",
            )
        if kind == "outflow":
            _require(
                name == "x_max",
                f"domain.boundaries.{name}",
                "cannot be an outflow: the outflow is the x_max face",
            )
        if kind == "moving":
            _require(
                not name.startswith("x"),
                f"domain.boundaries.{name}",
                "cannot be moving: a moving wall moves along x, so it must be a y or z face",
            )
    for axis in AXES:
        lo, hi = getattr(faces, f"{axis}_min"), getattr(faces, f"{axis}_max")
        _require(
            (lo == "periodic") == (hi == "periodic"),
            f"domain.boundaries.{axis}_min",
            f"and {axis}_max must both be periodic or neither",
        )
    _require(d.sponge.length_m >= 0, "domain.sponge.length_m", "must be >= 0 (m)")
    _require(0.5 < d.sponge.tau_outlet <= 2.0, "domain.sponge.tau_outlet", "must be in (0.5, 2]")
    if d.sponge.length_m > 0:
        _require(
            faces.x_max == "outflow",
            "domain.sponge.length_m",
            "needs domain.boundaries.x_max = outflow",
        )
        _require(
            d.sponge.length_m < d.size_m[0],
            "domain.sponge.length_m",
            "must be shorter than the domain",
        )
    _require(b.shape in SHAPES, "body.shape", f"must be one of {SHAPES}")
    _require(len(b.center_m) == 3, "body.center_m", "must be three coordinates in m")
    _require(
        len(b.size_m) == 3 and all(s > 0 for s in b.size_m),
        "body.size_m",
        "must be three positive lengths in m",
    )
    _require(b.radius_m > 0, "body.radius_m", "must be positive (m)")
    _require(b.axis in AXES, "body.axis", f"must be one of {AXES}")
    _require(b.lift_axis in ("y", "z"), "body.lift_axis", "must be y or z")
    _require(b.bounce_back in BOUNCE_BACK, "body.bounce_back", f"must be one of {BOUNCE_BACK}")
    if b.bounce_back in VOLUMETRIC:
        _require(
            b.shape == "mesh",
            "body.bounce_back",
            f"{b.bounce_back} needs a mesh body (body.shape: mesh and a geometry.source): the "
            "primitives take interpolated or halfway",
        )
        _require(
            r.streaming == "ab",
            "body.bounce_back",
            f"{b.bounce_back} runs on two-buffer grids for now: set resolution.streaming=ab",
        )
        _require(
            case.walls.pool_cells == 0,
            "walls.pool_cells",
            "pools the surface rule's exchange, not the volumetric wall's: set walls.pool_cells=0",
        )
    if b.shape == "none":
        _require(
            b.reference_length_m is not None,
            "body.reference_length_m",
            "is needed when body.shape is none: it sets the grid and Re",
        )
    if b.reference_length_m is not None:
        _require(b.reference_length_m > 0, "body.reference_length_m", "must be positive (m)")
    if b.reference_area_m2 is not None:
        _require(b.reference_area_m2 > 0, "body.reference_area_m2", "must be positive (m^2)")
    _require(
        4 <= r.cells_per_length <= 4096, "resolution.cells_per_length", "must be between 4 and 4096"
    )
    if r.u_lattice is not None:
        _require(0 < r.u_lattice <= 0.3, "resolution.u_lattice", "must be in (0, 0.3]")
    _require(
        0 <= r.smagorinsky_cs <= 0.5,
        "resolution.smagorinsky_cs",
        "must be in [0, 0.5] (typical 0.1-0.2)",
    )
    _require(r.min_gap_cells >= 0, "resolution.min_gap_cells", "must be >= 0 (cells)")
    if r.collision is not None:
        _require(r.collision in COLLISIONS, "resolution.collision", f"must be one of {COLLISIONS}")
    _require(r.storage in STORAGES, "resolution.storage", f"must be one of {STORAGES}")
    _require(r.streaming in STREAMINGS, "resolution.streaming", f"must be one of {STREAMINGS}")
    _require(r.subgrid in SUBGRIDS, "resolution.subgrid", f"must be one of {SUBGRIDS}")
    if r.subgrid != "smagorinsky":
        _require(
            r.smagorinsky_cs > 0,
            "resolution.subgrid",
            f"{r.subgrid} takes its strength from resolution.smagorinsky_cs: set it (e.g. 0.16)",
        )
        _require(
            r.streaming == "ab" and not case.refinement.levels,
            "resolution.subgrid",
            f"{r.subgrid} reads the last step's velocities on one two-buffer grid: set "
            "resolution.streaming=ab and no refinement.levels, or resolution.subgrid=smagorinsky",
        )
    if case.walls.model is not None:
        _require(case.walls.model in WALL_MODELS, "walls.model", f"must be one of {WALL_MODELS}")
    _require(
        case.walls.body_rule in WALL_BODY_RULES,
        "walls.body_rule",
        f"must be one of {WALL_BODY_RULES}",
    )
    _require(
        1 <= case.walls.sample_cells <= 8, "walls.sample_cells", "must be between 1 and 8 (cells)"
    )
    _require(0 <= case.walls.pool_cells <= 8, "walls.pool_cells", "must be between 0 and 8 (cells)")
    _require(
        case.walls.pool_cells == 0 or case.walls.body_rule == "surface",
        "walls.pool_cells",
        "pools the surface rule's exchange: set walls.body_rule=surface, or walls.pool_cells=0",
    )
    _require(run.max_steps >= 1, "run.max_steps", "must be >= 1")
    _require(run.check_every >= 1, "run.check_every", "must be >= 1")
    _require(run.convergence.window_steps >= 1, "run.convergence.window_steps", "must be >= 1")
    _require(run.convergence.tolerance > 0, "run.convergence.tolerance", "must be positive")
    _require(run.average_steps >= 0, "run.average_steps", "must be >= 0")
    _require(
        run.average_from_step >= 0,
        "run.average_from_step",
        "must be >= 0 (0: average once Cd converges)",
    )
    if run.average_from_step > 0:
        _require(run.average_steps > 0, "run.average_from_step", "needs run.average_steps > 0")
        _require(
            run.average_from_step < run.max_steps,
            "run.average_from_step",
            f"must be below run.max_steps ({run.max_steps})",
        )
    _require(run.sample_every >= 1, "run.sample_every", "must be >= 1")
    _require(run.checkpoint_every >= 0, "run.checkpoint_every", "must be >= 0")
    _require(case.output.stride >= 1, "output.stride", "must be >= 1")
    _require(case.output.snapshot_every >= 0, "output.snapshot_every", "must be >= 0")
    if case.refinement.levels:
        _validate_refinement(case)


def _validate_refinement(case: CaseConfig) -> None:
    """The refinement keys that need no grid: the box count, each box's form, a finest
    resolution the levels can halve, the step keys in whole coarse steps. Boxes against the
    domain, each other and the body: solver/refined_simulation.py."""
    levels = case.refinement.levels
    _require(
        case.resolution.streaming == "ab",
        "resolution.streaming",
        "must be ab with refinement.levels (the levels' coupling reads two buffers)",
    )
    _require(
        len(levels) <= MAX_REFINED_BOXES,
        "refinement.levels",
        f"holds {len(levels)} boxes: at most {MAX_REFINED_BOXES} (four levels with the tunnel's)",
    )
    for i, level in enumerate(levels):
        key = f"refinement.levels[{i}]"
        has_box = level.box_lo_m is not None or level.box_hi_m is not None
        _require(
            has_box != (level.margin_m is not None),
            key,
            "needs either box_lo_m and box_hi_m (metres) or margin_m round the body",
        )
        if has_box:
            lo, hi = level.box_lo_m or [], level.box_hi_m or []
            _require(
                len(lo) == 3 and len(hi) == 3,
                f"{key}.box_lo_m",
                "and box_hi_m must both be three coordinates in m",
            )
            _require(
                all(a < b for a, b in zip(lo, hi, strict=True)),
                f"{key}.box_lo_m",
                "must lie below box_hi_m on every axis",
            )
            _require(level.wake_m == 0.0, f"{key}.wake_m", "goes with margin_m, not with a box")
        else:
            assert level.margin_m is not None
            _require(level.margin_m > 0, f"{key}.margin_m", "must be positive (m)")
            _require(level.wake_m >= 0, f"{key}.wake_m", "must be >= 0 (m)")
            _require(
                case.body.shape != "none",
                f"{key}.margin_m",
                "needs a body to grow the box round: give box_lo_m and box_hi_m",
            )
    n_levels = len(levels) + 1
    per = 2 ** len(levels)  # finest steps per coarse step, and the tunnel's resolution divisor
    cells = case.resolution.cells_per_length
    _require(
        cells % per == 0,
        "resolution.cells_per_length",
        f"= {cells} must be a multiple of {per} on {n_levels} levels (the tunnel level takes "
        f"1/{per} of it)",
    )
    # the keys counted in steps of the finest level, which a refined grid takes per coarse step
    steps = {
        "run.max_steps": case.run.max_steps,
        "run.check_every": case.run.check_every,
        "run.convergence.window_steps": case.run.convergence.window_steps,
        "run.average_steps": case.run.average_steps,
        "run.average_from_step": case.run.average_from_step,
        "run.sample_every": case.run.sample_every,
        "run.checkpoint_every": case.run.checkpoint_every,
        "output.snapshot_every": case.output.snapshot_every,
    }
    for key, value in steps.items():
        _require(
            value % per == 0,
            key,
            f"= {value} must be a multiple of {per} on {n_levels} levels: steps count on the "
            f"finest level, {per} to each coarse step",
        )


def collision_operator(resolution: ResolutionConfig) -> str:
    """The collision operator a case runs: resolution.collision, or by default the entropic
    operator for LES (smagorinsky_cs > 0; BGK is linearly unstable there, docs/solver.md) and
    BGK for the laminar cases."""
    if resolution.collision is not None:
        return resolution.collision
    return "entropic" if resolution.smagorinsky_cs > 0 else "bgk"


def body_acceleration_m_s2(case: CaseConfig) -> list[float]:
    """The body acceleration that drives the flow [m/s^2]: flow.body_accel_m_s2, or for a channel
    (flow.reynolds_tau) the mean pressure gradient of that Re_tau, u_tau^2 / h along x, with
    u_tau = Re_tau nu / h and h half the domain's y size (the force balance of a fully developed
    channel: tau_w = rho u_tau^2 = -h dp/dx)."""
    f = case.flow
    if f.reynolds_tau is None:
        return list(f.body_accel_m_s2)
    h = 0.5 * case.domain.size_m[1]
    u_tau = f.reynolds_tau * f.nu_m2_s / h
    return [u_tau * u_tau / h, 0.0, 0.0]


def wall_model(case: CaseConfig) -> str:
    """The wall model a case runs: walls.model, or by default the law of the wall for LES
    (smagorinsky_cs > 0: the first cell lies far outside the viscous sublayer, docs/solver.md)
    and none (no-slip bounce-back) for the laminar cases."""
    if case.walls.model is not None:
        return case.walls.model
    return "loglaw" if case.resolution.smagorinsky_cs > 0 else "none"


def to_yaml(case: CaseConfig) -> str:
    """The resolved configuration as YAML."""
    return OmegaConf.to_yaml(OmegaConf.structured(case))

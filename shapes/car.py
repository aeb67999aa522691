"""A parametric car body: twelve interpretable design parameters to a closed triangle mesh.

The body is lofted through cross-sections along x (nose at x = 0, ground at z = 0, centre plane
y = 0). Each section is a rectangle with rounded corners; the side profile (roof line and
underbody) and the plan-view width vary along x:

- nose: the section grows from a blunt tip into the full body over the first 12% of the length,
  along a quarter ellipse;
- hood: from the nose to `hood_length_frac` of the length, rising at `hood_angle_deg`;
- windscreen: from the hood's end up to the roof at `windscreen_angle_deg` from the horizontal;
- roof: at the full height, bulged by `roof_camber_m` in the middle;
- backlight: down from the roof at `backlight_angle_deg` from the horizontal towards the deck;
  where the length runs out first, the tail is cut off vertically above the deck (a Kamm tail);
- rear: the last quarter tapers inwards in plan view at `boat_tail_deg`; the underbody rises at
  `diffuser_angle_deg` over the last 15% (the diffuser);
- the cabin (windscreen to backlight) has rounder upper corners than the lower body, so the
  glasshouse sits narrower on the body.

Every parameter vector inside PARAMETERS' bounds gives a closed, outward, self-intersection-free
mesh: each section is convex, the stations increase strictly along x, and consecutive rings
share their points' parameterisation (the same arc angles and side directions), so every
section between two stations is convex too; tests check 64 Sobol samples of the box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from shapes.errors import MeshError
from shapes.loft import loft
from shapes.mesh import TriangleMesh
from shapes.parameters import Parameter
from shapes.wheels import WHEELS_PART, union, wheel_centres_m, wheel_meshes
from solver.rolling import RollingWheels

#: The named parts of the car's surface for the drag breakdown (face_parts).
PART_NAMES = (
    "nose",
    "hood",
    "windscreen",
    "roof",
    "backlight",
    "deck",
    "sides",
    "underbody",
    "diffuser",
    "base",
)

PARAMETERS: tuple[Parameter, ...] = (
    Parameter("length_m", "m", 4.0, 5.0, 4.5, "overall length"),
    Parameter("width_m", "m", 1.70, 1.95, 1.80, "overall width"),
    Parameter("height_m", "m", 1.30, 1.60, 1.45, "roof height above the ground"),
    Parameter("ground_clearance_m", "m", 0.10, 0.20, 0.15, "underbody height above the ground"),
    Parameter(
        "hood_length_frac", "-", 0.22, 0.32, 0.27, "nose to windscreen base, share of the length"
    ),
    Parameter("hood_angle_deg", "deg", 0.0, 12.0, 6.0, "rise of the hood towards the windscreen"),
    Parameter(
        "windscreen_angle_deg", "deg", 24.0, 40.0, 30.0, "windscreen slope from the horizontal"
    ),
    Parameter("roof_camber_m", "m", 0.0, 0.06, 0.03, "bulge of the roof above its chord"),
    Parameter(
        "backlight_angle_deg", "deg", 15.0, 45.0, 25.0, "rear window slope from the horizontal"
    ),
    Parameter(
        "boat_tail_deg", "deg", 0.0, 12.0, 5.0, "inward taper of the rear quarter in plan view"
    ),
    Parameter("diffuser_angle_deg", "deg", 0.0, 12.0, 4.0, "upsweep of the underbody's last 15%"),
    Parameter(
        "corner_radius_frac",
        "-",
        0.10,
        0.45,
        0.30,
        "section corner radius, share of the half-height",
    ),
)

NOSE_FRAC = 0.12  # share of the length over which the nose rounds into the body
TAIL_FRAC = 0.25  # share of the length that tapers in plan view
DIFFUSER_FRAC = 0.15  # share of the length of the diffuser
DECK_FRAC = 0.08  # the flat rear deck behind the backlight, share of the length
MIN_ROOF_FRAC = 0.15  # the shortest roof, share of the length
BELT_FRAC = 0.55  # hood and deck height: share of the body height above the underbody


@dataclass(frozen=True)
class CarParameters:
    length_m: float = 4.5
    width_m: float = 1.80
    height_m: float = 1.45
    ground_clearance_m: float = 0.15
    hood_length_frac: float = 0.27
    hood_angle_deg: float = 6.0
    windscreen_angle_deg: float = 30.0
    roof_camber_m: float = 0.03
    backlight_angle_deg: float = 25.0
    boat_tail_deg: float = 5.0
    diffuser_angle_deg: float = 4.0
    corner_radius_frac: float = 0.30

    @classmethod
    def from_vector(cls, values: np.ndarray) -> CarParameters:
        return cls(**{p.name: float(v) for p, v in zip(PARAMETERS, values, strict=False)})

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, p.name) for p in PARAMETERS])

    def validate(self) -> None:
        for p in PARAMETERS:
            v = getattr(self, p.name)
            if not (p.low <= v <= p.high) or not math.isfinite(v):
                raise MeshError(
                    f"car parameter {p.name} = {v} is outside its bounds "
                    f"[{p.low}, {p.high}] {p.unit}"
                )


@dataclass(frozen=True)
class _Stations:
    """Where the profile's pieces start along x [m], and the heights that join them [m]."""

    belt: float
    hood_start: float
    x_nose: float
    x_hood: float
    x_roof: float
    x_back: float
    x_deck: float
    deck: float


def _stations(c: CarParameters) -> _Stations:
    L, H, g = c.length_m, c.height_m, c.ground_clearance_m
    belt = g + BELT_FRAC * (H - g)
    x_nose, x_hood = NOSE_FRAC * L, c.hood_length_frac * L
    hood_start = belt - (x_hood - x_nose) * math.tan(math.radians(c.hood_angle_deg))
    x_roof = x_hood + (H - belt) / math.tan(math.radians(c.windscreen_angle_deg))
    x_deck = L * (1 - DECK_FRAC)
    tan_back = math.tan(math.radians(c.backlight_angle_deg))
    x_back = max(x_roof + MIN_ROOF_FRAC * L, x_deck - (H - belt) / tan_back)
    deck = max(belt, H - (x_deck - x_back) * tan_back)  # the Kamm tail's cut where length runs out
    return _Stations(belt, hood_start, x_nose, x_hood, x_roof, x_back, x_deck, deck)


def profile(c: CarParameters, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Side and plan profiles at stations x [m]: (bottom z, top z, half-width), all in metres."""
    L, H, g = c.length_m, c.height_m, c.ground_clearance_m
    st = _stations(c)
    belt, hood_start, x_nose, x_hood = st.belt, st.hood_start, st.x_nose, st.x_hood
    x_roof, x_back, x_deck, deck = st.x_roof, st.x_back, st.x_deck, st.deck
    rise_hood = belt - hood_start
    tan_back = math.tan(math.radians(c.backlight_angle_deg))

    # Nose rounding: a quarter ellipse from the blunt tip to the full section.
    r = np.sqrt(np.clip(1 - (1 - np.minimum(x, x_nose) / x_nose) ** 2, 0.0, 1.0))
    tip_top, tip_bottom = g + 0.45 * (hood_start - g), g + 0.15 * (hood_start - g)
    top = np.select(
        [x < x_nose, x < x_hood, x < x_roof, x < x_back, x < x_deck],
        [
            tip_top + (hood_start - tip_top) * r,
            hood_start + (x - x_nose) * (rise_hood / max(x_hood - x_nose, 1e-9)),
            belt + (x - x_hood) * math.tan(math.radians(c.windscreen_angle_deg)),
            H
            + 4 * c.roof_camber_m * (x - x_roof) * (x_back - x) / max((x_back - x_roof) ** 2, 1e-9),
            H - (x - x_back) * tan_back,
        ],
        deck,
    )
    x_diffuser = L * (1 - DIFFUSER_FRAC)
    bottom = np.where(
        x < x_nose,
        tip_bottom + (g - tip_bottom) * r,
        g + np.maximum(x - x_diffuser, 0.0) * math.tan(math.radians(c.diffuser_angle_deg)),
    )
    x_tail = L * (1 - TAIL_FRAC)
    half = 0.5 * c.width_m * np.where(x < x_nose, 0.6 + 0.4 * r, 1.0)
    half = half - np.maximum(x - x_tail, 0.0) * math.tan(math.radians(c.boat_tail_deg))
    return bottom, top, half


def section(
    half_width: float,
    bottom: float,
    top: float,
    r_low: float,
    r_high: float,
    n_arc: int,
    n_side: int,
) -> np.ndarray:
    """A convex ring (y, z) round a rectangle with lower corner radius r_low and upper r_high,
    counter-clockwise seen from +x: k = 4 n_arc + 4 n_side points."""
    b, lo, hi = half_width, bottom, top

    def arc(cy: float, cz: float, radius: float, a0: float) -> np.ndarray:
        a = a0 + np.linspace(0, math.pi / 2, n_arc, endpoint=False)
        return np.column_stack([cy + radius * np.cos(a), cz + radius * np.sin(a)])

    def line(p0, p1) -> np.ndarray:
        t = np.linspace(0, 1, n_side, endpoint=False)[:, None]
        return np.asarray(p0) + t * (np.asarray(p1) - np.asarray(p0))

    return np.concatenate(
        [
            line((b, lo + r_low), (b, hi - r_high)),
            arc(b - r_high, hi - r_high, r_high, 0.0),
            line((b - r_high, hi), (-b + r_high, hi)),
            arc(-b + r_high, hi - r_high, r_high, math.pi / 2),
            line((-b, hi - r_high), (-b, lo + r_low)),
            arc(-b + r_low, lo + r_low, r_low, math.pi),
            line((-b + r_low, lo), (b - r_low, lo)),
            arc(b - r_low, lo + r_low, r_low, 1.5 * math.pi),
        ]
    )


def car_mesh(
    c: CarParameters,
    stations: int = 120,
    n_arc: int = 8,
    n_side: int = 6,
    wheels: bool = False,
) -> TriangleMesh:
    """The closed body mesh: `stations` sections along x (denser at the nose and tail), each with
    4 (n_arc + n_side) points. The default resolution gives 13,440 triangles. With `wheels`, the
    four wheels of shapes/wheels.py joined to it, their faces the part "wheels", rolling."""
    c.validate()
    L = c.length_m
    s = np.linspace(0.0, 1.0, stations)
    x = L * (s - np.sin(2 * np.pi * s) / (2 * np.pi) * 0.6)  # clustered at both ends
    bottom, top, half = profile(c, x)
    glasshouse = _glasshouse_weight(c, x)
    rings = []
    for lo, hi, b, w in zip(bottom, top, half, glasshouse, strict=False):
        half_height = 0.5 * (hi - lo)
        r_low = c.corner_radius_frac * min(half_height, b)
        r_cabin = min(0.85 * half_height, 0.9 * b)
        r_high = r_low + w * max(r_cabin - r_low, 0.0)
        rings.append(section(b, lo, hi, r_low, r_high, n_arc, n_side))
    body = loft(x, np.stack(rings))
    if not wheels:
        return TriangleMesh(body.vertices_m, body.faces, face_parts(c, body), PART_NAMES)
    centres = wheel_centres_m(c.length_m, lambda x_m: profile(c, x_m)[2])
    joined, on_wheel = union(body, wheel_meshes(centres))
    part = np.where(on_wheel, len(PART_NAMES), face_parts(c, joined)).astype(np.int32)
    rolling = RollingWheels(WHEELS_PART, centres)
    return TriangleMesh(joined.vertices_m, joined.faces, part, (*PART_NAMES, WHEELS_PART), rolling)


def face_parts(c: CarParameters, body: TriangleMesh) -> np.ndarray:
    """Each face's index in PART_NAMES: the nose (x below the nose's 12%) and the base (the rear
    face) by where they lie; upward faces by the stretch of the roof line they lie under;
    downward ones as underbody or, over the last 15%, diffuser; the rest sides."""
    st = _stations(c)
    corners_x = body.vertices_m[body.faces][:, :, 0]
    centre_x = corners_x.mean(axis=1)
    normal = body.face_normals()
    upper = np.select(
        [centre_x < st.x_hood, centre_x < st.x_roof, centre_x < st.x_back, centre_x < st.x_deck],
        [PART_NAMES.index(n) for n in ("hood", "windscreen", "roof", "backlight")],
        PART_NAMES.index("deck"),
    )
    lower = np.where(
        centre_x < c.length_m * (1 - DIFFUSER_FRAC),
        PART_NAMES.index("underbody"),
        PART_NAMES.index("diffuser"),
    )
    part = np.where(
        normal[:, 2] > 0.5, upper, np.where(normal[:, 2] < -0.5, lower, PART_NAMES.index("sides"))
    )
    part = np.where(centre_x < st.x_nose, PART_NAMES.index("nose"), part)
    part = np.where(
        corners_x.min(axis=1) >= c.length_m * (1 - 1e-9), PART_NAMES.index("base"), part
    )
    return part.astype(np.int32)


def _glasshouse_weight(c: CarParameters, x: np.ndarray) -> np.ndarray:
    """0 on the lower body, 1 under the roof: rises smoothly along the windscreen and falls
    along the backlight (the upper corners round off into the glasshouse)."""
    st = _stations(c)

    def smoothstep(t: np.ndarray) -> np.ndarray:
        t = np.clip(t, 0.0, 1.0)
        return t * t * (3 - 2 * t)

    rise = smoothstep((x - st.x_hood) / (st.x_roof - st.x_hood))
    fall = 1 - smoothstep((x - st.x_back) / (st.x_deck - st.x_back))
    return rise * fall

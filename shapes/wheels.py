"""Four wheels on the parametric car, joined to its body into one closed surface.

Each wheel is a plain cylinder the size of a 205/55 R16 tyre (0.632 m across, 0.205 m wide),
its axis along y: the front axle at 20% of the car's length behind the nose, the rear one at
80% (a 2.7 m wheelbase on the 4.5 m baseline), the outer sidewalls 30 mm inside the body's
narrowest half-width over the wheel's length. A loaded tyre is flattened where it stands: the
wheel sinks 15 mm below the road plane z = 0, a contact patch about 0.2 m long, and the grid
cuts it off at the road. What lies inside the body stands for the wheel house (a closed arch);
what shows is the lower segment under the underbody and the shoulders below the body's rounded
lower corners. The wheels roll on the road: the mesh names their part and centres
(`RollingWheels`), and the solver turns them with the road's speed (solver/rolling.py).

Body and wheels overlap, so they are joined by a mesh boolean (the Manifold library's union,
`manifold3d`, whose result is closed and manifold, as `check_mesh` requires).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from shapes.errors import MeshError
from shapes.mesh import TriangleMesh
from shapes.solids import cylinder_along

#: The part name of the wheels' faces in the drag breakdown.
WHEELS_PART = "wheels"
WHEEL_RADIUS_M = 0.316
WHEEL_WIDTH_M = 0.205
AXLE_FRACS = (0.2, 0.8)  # axles behind the nose, share of the length
SIDEWALL_INSET_M = 0.03  # outer sidewall inside the body's half-width
CONTACT_SINK_M = 0.015  # how far the wheel reaches below the road plane
FACETS = 64  # facets round a wheel


def wheel_centres_m(
    length_m: float, half_width_m: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """The four wheels' centres [4, 3] (metres), front then rear, -y then +y, of a car of this
    length whose plan-view half-width at x [m] is half_width_m(x): each outer sidewall
    SIDEWALL_INSET_M inside the narrowest half-width over its wheel's length (the boat tail
    narrows the body over the rear wheels)."""
    centres = []
    for frac in AXLE_FRACS:
        x = frac * length_m
        along = np.linspace(x - WHEEL_RADIUS_M, x + WHEEL_RADIUS_M, 65)
        y = float(np.min(half_width_m(along))) - SIDEWALL_INSET_M - 0.5 * WHEEL_WIDTH_M
        centres += [
            (x, -y, WHEEL_RADIUS_M - CONTACT_SINK_M),
            (x, y, WHEEL_RADIUS_M - CONTACT_SINK_M),
        ]
    return np.array(centres)


def wheel_meshes(centres_m: np.ndarray) -> list[TriangleMesh]:
    """The wheels round centres_m [k, 3] (nose at x = 0, centre plane y = 0, road at z = 0), in
    metres: cylinders along y."""
    return [
        cylinder_along(
            1,
            centre,
            WHEEL_RADIUS_M,
            centre[1] - 0.5 * WHEEL_WIDTH_M,
            centre[1] + 0.5 * WHEEL_WIDTH_M,
            n=FACETS,
            stations=2,
        )
        for centre in centres_m
    ]


def union(body: TriangleMesh, wheels: list[TriangleMesh]) -> tuple[TriangleMesh, np.ndarray]:
    """The body and the wheels as one closed surface, and for each of its faces whether it
    comes from a wheel (bool). The body's face parts are not carried: label them again from the
    geometry. (manifold3d is imported here, so that shapes/ imports where it is not installed,
    as on the GPU machine, and only the wheeled car needs it.)"""
    import manifold3d

    def solid(mesh: TriangleMesh) -> manifold3d.Manifold:
        piece = manifold3d.Manifold(
            manifold3d.Mesh64(
                vert_properties=np.ascontiguousarray(mesh.vertices_m, np.float64),
                tri_verts=np.ascontiguousarray(mesh.faces, np.uint32),
            )
        )
        if piece.status() != manifold3d.Error.NoError:
            raise MeshError(f"a car part is not a closed manifold: {piece.status()}")
        return piece.as_original()

    body_solid = solid(body)
    joined = manifold3d.Manifold.batch_boolean(
        [body_solid] + [solid(w) for w in wheels], manifold3d.OpType.Add
    ).to_mesh64()
    faces = np.asarray(joined.tri_verts, np.int64)
    run_start = np.asarray(joined.run_index, np.int64) // 3
    run_id = np.asarray(joined.run_original_id, np.int64)
    from_body = np.repeat(run_id == body_solid.original_id(), np.diff(run_start))
    return (
        TriangleMesh(np.asarray(joined.vert_properties, np.float64)[:, :3].copy(), faces),
        ~from_body,
    )

"""Where the drag comes from: the body's pressure and friction drag by named part, and the
cumulative drag along the body from nose to tail, Cd(x).

Both are built from the per-slot forces averaged over the run's averaging window
(RunResult.slot_force_mean_lattice): each reporting cell's pressure force -p a_k and viscous
force (sigma a_k, or with the wall model the tangential exchange of its wall links) on the
surface it stands for (solver/surface_elements.py). Their sums are the run's cd_pressure and
cd_friction, so the parts and the end of Cd(x) add up to cd_pressure + cd_friction.

Splitting a slot's forces by where its surface lies: the slot's area vector a_k is the sum of
its entries a_e, one per named part of the mesh and grid column of the faces it stands for
(solver/surface_elements.py). The pressure force, parallel to a_k, splits exactly as -p a_e. The
viscous force is not parallel to a_k (sigma is a tensor, or the wall model's exchange), so it
splits by each entry's share of a_k, a_e . a_k / |a_k|^2 (the shares sum to 1). A part's
pressure drag is that of p - p_inf (the free stream's static pressure, solver/surface.py): on a
closed body a constant pressure exerts no force in all, but it does on each part (the forebody and
the base face opposite ways), so the parts and Cd(x) add p_inf a_e to each entry, which sums to
zero over the body (sum of a_e,x = 0 on a closed surface; a body cut by a symmetry plane is
closed by a plane parallel to x). A slot with no
area of its own (its links touch the body but no face's samples fall on it) reports no pressure
force; its viscous force goes with that of the nearest slot that has area. Cd(x) bins the
entries by the column of their faces' centres: x is the column's downstream face, measured from
the body's most upstream point.

Beside Cd(x), the same curve by momentum exchange: each slot's exchange (what its links hand the
body, the run's Cd summed over all slots; moved, where the slot has no area, to the nearest slot
that has), its part along a_k split over the entries as the pressure force is (with the same
p_inf a_e, which sums to zero) and the rest as the viscous force. It checks the split along the
body (where pressure + friction leave the exchange), never an input to either, and ends at the
run's Cd. It is not given by part: a cell by a sharp edge can take, through its links, the force
on one face while the area it stands for lies on the other, which moves drag between parts (the
base's to the sides, on the Ahmed body) but not along x.

With the volumetric wall (body.bounce_back: volumetric) the breakdown comes from its elements
instead (element_drag_breakdown): each element's mean exchange F_e splits into its part along
its area vector a_e, the pressure force of the gauge pressure -F_e . a_e / |a_e|^2 on it, and the
rest, the friction; each surfel s of the element (the mesh's pieces in its cell) takes that
pressure, less p_inf, on its own area vector a_s, and the friction by its share a_s . a_e /
|a_e|^2. Parts follow the mesh face each surfel is part of, and Cd(x) the grid column of its
centroid. Pressure and friction add up to the exchange, element by element, so the two curves
are one and end at the run's Cd.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Fields, Simulation
from solver.surface import free_stream_density


@dataclass(frozen=True)
class DragBreakdown:
    """Drag coefficients by part (pressure, friction) and the cumulative drag along the body."""

    parts: dict[str, tuple[float, float]]  # part -> (pressure Cd, friction Cd)
    x_m: np.ndarray  # column stations from the nose [m]
    cd_cumulative: np.ndarray  # pressure + friction Cd of the body ahead of x_m
    cd_exchange_cumulative: np.ndarray  # momentum-exchange Cd of the body ahead of x_m

    def as_dict(self) -> dict:
        """summary.json's cd_parts and cd_cumulative."""
        return {
            "cd_parts": {
                name: {"pressure": float(p), "friction": float(f)}
                for name, (p, f) in self.parts.items()
            },
            "cd_cumulative": {
                "x_m": [float(v) for v in self.x_m],
                "cd": [float(v) for v in self.cd_cumulative],
                "cd_exchange": [float(v) for v in self.cd_exchange_cumulative],
            },
        }


def slot_cells(sim: Simulation) -> np.ndarray:
    """Grid indices (x, y, z) of each slot [n_slots, 3], in slot order."""
    cells = np.argwhere(sim.slot_host >= 0)  # (z, y, x)
    order = np.argsort(sim.slot_host[cells[:, 0], cells[:, 1], cells[:, 2]])
    return cells[order][:, ::-1]


def _to_slots_with_area(sim: Simulation, force: np.ndarray, has_area: np.ndarray) -> np.ndarray:
    """force [n_slots, ...] with the force of each slot that has no area of its own added to the
    nearest slot that has."""
    moved = force.copy()
    carries = np.abs(moved).reshape(len(moved), -1).sum(axis=1) > 0.0
    orphans = np.flatnonzero(~has_area & carries)
    if orphans.size and has_area.any():
        cells = slot_cells(sim)
        donors = np.flatnonzero(has_area)
        _, nearest = cKDTree(cells[donors]).query(cells[orphans])
        np.add.at(moved, donors[nearest], moved[orphans])
        moved[orphans] = 0.0
    return moved


def drag_by_entry(
    sim: Simulation, slot_force_mean: np.ndarray, p_inf: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The x-force (lattice units) of each entry of sim.surface, pressure [e] (of p - p_inf,
    p_inf the free stream's lattice gauge pressure), friction [e] and momentum exchange [e], from
    the per-slot mean forces [n_slots, 3 kinds, 3 axes], as the module docstring says: the
    exchange's part along a_k splits as the pressure does, the rest as the friction."""
    surface = sim.surface
    assert surface is not None, "attach a surface first"
    area = surface.area.astype(np.float64)
    norm2 = np.einsum("sa,sa->s", area, area)
    has_area = norm2 > 0.0
    friction = _to_slots_with_area(sim, slot_force_mean[:, FORCE_FRICTION, 0], has_area)
    exchange = _to_slots_with_area(sim, slot_force_mean[:, FORCE_TOTAL], has_area)
    inv_norm2 = np.where(has_area, 1.0 / np.where(has_area, norm2, 1.0), 0.0)
    p_over_a = np.einsum("sa,sa->s", slot_force_mean[:, FORCE_PRESSURE], area) * inv_norm2  # -p
    exchange_along_a = np.einsum("sa,sa->s", exchange, area) * inv_norm2
    exchange_rest_x = exchange[:, 0] - exchange_along_a * area[:, 0]
    e = surface.entry_slot
    a_x = surface.entry_area[:, 0]
    share = np.einsum("ea,ea->e", surface.entry_area, area[e]) * inv_norm2[e]
    pressure_x = (p_over_a[e] + p_inf) * a_x
    exchange_x = (exchange_along_a[e] + p_inf) * a_x + share * exchange_rest_x[e]
    return pressure_x, share * friction[e], exchange_x


def drag_breakdown(sim: Simulation, slot_force_mean: np.ndarray, fields: Fields) -> DragBreakdown:
    """The breakdown of the attached surface's drag (sim.attach_surface) from the per-slot mean
    forces [n_slots, 3 kinds, 3 axes] in lattice units and the window's mean fields (for the free
    stream's pressure)."""
    surface = sim.surface
    assert surface is not None, "attach a surface first"
    p_inf = (free_stream_density(sim, fields) - 1.0) / 3.0
    pressure_x, friction_x, exchange_x = drag_by_entry(sim, slot_force_mean, p_inf)
    to_cd = sim.coefficients(np.array([1.0, 0.0, 0.0]))[0]
    n_parts = len(sim.surface_part_names)
    pressure_part = np.bincount(surface.entry_part, weights=pressure_x, minlength=n_parts) * to_cd
    friction_part = np.bincount(surface.entry_part, weights=friction_x, minlength=n_parts) * to_cd
    parts = {
        name: (float(pressure_part[j]), float(friction_part[j]))
        for j, name in enumerate(sim.surface_part_names)
    }
    column = surface.entry_column
    first, last = int(column.min()), int(column.max())

    def cumulative(force_x: np.ndarray) -> np.ndarray:
        per_column = np.bincount(column - first, weights=force_x, minlength=last - first + 1)
        return np.cumsum(per_column * to_cd)

    x_edge = sim.grid.centers(0)[first : last + 1] + 0.5 * sim.grid.dx_m
    return DragBreakdown(
        parts,
        x_edge - sim.surface_x_min_m,
        cumulative(pressure_x + friction_x),
        cumulative(exchange_x),
    )


@dataclass(frozen=True)
class SurfelDrag:
    """Each surfel's share of the volumetric wall's drag: its pressure and friction Cd (the
    run's reference area and dynamic pressure), its centroid [m], its area vector [m^2] (out of
    the body) and the index of its mesh part in names."""

    pressure_cd: np.ndarray  # [S]
    friction_cd: np.ndarray  # [S]
    centroid_m: np.ndarray  # [S, 3]
    area_m2: np.ndarray  # [S, 3]
    part: np.ndarray  # [S]
    names: tuple[str, ...]


def surfel_drag(sim: Simulation, element_force_mean: np.ndarray, fields: Fields) -> SurfelDrag:
    """Each surfel's pressure and friction drag from its element's mean exchange [E, 3]
    (lattice units) and the window's mean fields (for the free stream's pressure), as the module
    docstring says."""
    wall = sim.volumetric_wall
    assert wall is not None, "a volumetric wall's breakdown"
    p_inf = (free_stream_density(sim, fields) - 1.0) / 3.0
    area = wall.area_vector
    norm2 = np.einsum("ea,ea->e", area, area)
    inv_norm2 = np.where(norm2 > 0.0, 1.0 / np.where(norm2 > 0.0, norm2, 1.0), 0.0)
    along = np.einsum("ea,ea->e", element_force_mean, area) * inv_norm2  # -p (gauge)
    rest_x = element_force_mean[:, 0] - along * area[:, 0]
    e, a_s = wall.surfel_element, wall.surfel_area_vector
    share = np.einsum("sa,sa->s", a_s, area[e]) * inv_norm2[e]
    to_cd = sim.coefficients(np.array([1.0, 0.0, 0.0]))[0]
    face_part, names = sim.volumetric_parts
    cell0_m = sim.grid.origin_m - np.asarray(sim.grid.ghost_lo) * sim.grid.dx_m
    return SurfelDrag(
        pressure_cd=(along[e] + p_inf) * a_s[:, 0] * to_cd,
        friction_cd=share * rest_x[e] * to_cd,
        centroid_m=cell0_m + wall.surfel_centroid * sim.grid.dx_m,
        area_m2=a_s * sim.grid.dx_m**2,
        part=np.asarray(face_part)[wall.surfel_triangle],
        names=tuple(names),
    )


def element_drag_breakdown(
    sim: Simulation, element_force_mean: np.ndarray, fields: Fields
) -> DragBreakdown:
    """The breakdown of the volumetric wall's drag from its elements' mean exchange [E, 3]
    (lattice units) and the window's mean fields (for the free stream's pressure), as the module
    docstring says; parts those of the mesh the wall was cut from (sim.volumetric_parts)."""
    wall = sim.volumetric_wall
    drag = surfel_drag(sim, element_force_mean, fields)
    n_part = len(drag.names)
    pressure_part = np.bincount(drag.part, weights=drag.pressure_cd, minlength=n_part)
    friction_part = np.bincount(drag.part, weights=drag.friction_cd, minlength=n_part)
    parts = {
        name: (float(pressure_part[j]), float(friction_part[j]))
        for j, name in enumerate(drag.names)
    }
    column = np.floor(wall.surfel_centroid[:, 0]).astype(np.int64)
    first, last = int(column.min()), int(column.max())
    per_column = np.bincount(
        column - first, weights=drag.pressure_cd + drag.friction_cd, minlength=last - first + 1
    )
    cumulative = np.cumsum(per_column)
    x_edge = sim.grid.centers(0)[first : last + 1] + 0.5 * sim.grid.dx_m
    nose_m = sim.surface_x_min_m
    if not np.isfinite(nose_m):  # no surface attached: the most upstream surfel's centroid
        nose_m = drag.centroid_m[:, 0].min()
    return DragBreakdown(parts, x_edge - nose_m, cumulative, cumulative.copy())

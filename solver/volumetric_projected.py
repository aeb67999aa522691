"""The projected volumetric wall's tables for the kernels (docs/solver.md, "The projected
volumetric wall"; after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035).

The volumetric wall (`solver/volumetric_wall.py`) holds one value per cell and link, and what the
surface sends back lands spread over the cells of its prisms: that averaging is a numerical
viscosity of about theta (1 - theta) / 4 in a cell cut at offset theta, which moves the no-slip
wall half a cell into the fluid as nu -> 0 (docs/validation.md, "What the cut cells' shift
is"). Here each cell near the body (a slot) carries beside each population's mean m_q over its
fluid a slope s_q [1/cell]: f_q(r) = m_q + s_q . (r - r_x), r_x the fluid's centroid. A step
streams that linear field exactly and projects it back on each slot's mean and slope by its
first moments. Each is linear in the source's (m, s), so every contribution is a 4 x 4 map M
from the source's (m, s) of one link to the slot's (m, s):

    (m, s)_q(x) = K[x, q] (m, s)_q(x - c_q)                 the rest of x - c_q, translated
                + sum over its turned rows (y, R) R (m, s)_opp(q)(y)
                + sum over its scatter entries (e, w, d) (w, d) gamma[e, q],

K from the part of the source's fluid no surfel intercepts along c_q, R from the pieces of the
surfels' incoming prisms of link opp(q) in cell y turned over where an exact bounce-back puts
them (`solver/volumetric_turn.py`), and the scatter the elements' free-slip and law terms spread
evenly over their outgoing prisms (weight w, slope d), the free slip's with its profile
(`solver/volumetric_profile.py`). Row 0 of a map is the source's volume and
first moment over V(x); rows 1-3 are the inverse of x's fluid second moment times the first
moment about r_x. The kernels collide the slopes by the collision's derivative along them.

Slopes are carried in every slot: the cut cells, the cells the surface intercepts or sends into
and their neighbours (the two-dimensional model's band of one cell, which keeps the no-slip
shift under 0.05 cells). Whole cells outside stream plainly with no slope. Lengths in cells;
cells are flat indices n = x + nx (y + ny z).

Over 250 lines: the builder and the keep maps, which only it calls, share its lookups of the
slots, the cut cells' moments and the cut pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from solver.errors import ConfigError
from solver.grid import Grid
from solver.lattice import OPP, C, Q
from solver.surfel_merge import merge_coplanar
from solver.surfels import cut_into_cells
from solver.volumetric_geometry import CellBox, mesh_on_grid
from solver.volumetric_law import element_tangents
from solver.volumetric_moments import FluidMoments, fluid_moments
from solver.volumetric_profile import SlipProfile, piece_integrals, profile_gram
from solver.volumetric_turn import TurnedPieces, turned_pieces
from solver.volumetric_wall import (
    VolumetricWall,
    body_surfels,
    csr_start,
    volumetric_wall_of_surfels,
)

#: The largest change of a fluid at rest in one step that the wall's tables may make (a guard,
#: not a model constant): balanced, overlapping prisms change it by under BALANCE_TOLERANCE; what
#: no balance can fill (beside the Ahmed body's stilts, a slot receiving 3e-12 of its fluid)
#: changes it by orders of magnitude more (docs/solver.md).
REST_TOLERANCE = 0.02

#: Where the balance of the turned pieces (`_balance_turned`) stops: every (slot, link) receives
#: its fluid volume at rest to this fraction of it (a fluid at rest then changes by at most this
#: much in a step), within at most BALANCE_ITERATIONS sweeps (it converges linearly: the car with
#: wheels at 48 cells per length needs about 300).
BALANCE_TOLERANCE = 1e-5
BALANCE_ITERATIONS = 3000

#: A slot whose arrivals (or a source whose departures) are under this fraction of what it must
#: receive (or send) is not scaled: 10^12 times would pass float64's range in a few sweeps (the
#: Ahmed body's stilts). `_return_over_arrivals` and `_rest_error` take what is left.
HOPELESS = 1e-12


@dataclass(frozen=True)
class Overlap:
    """Where a concave surface's prisms overlap: how many (source cell, link) pairs had their
    turned pieces scaled to the source's fluid, the volume the scaling took off them [cells^3]
    (pieces whose source lies in the body go whole), the volume the balance of the landings
    moved (`_balance_turned`) [cells^3], and the largest change a step then makes to a fluid at
    rest (`_rest_error`)."""

    links: int
    dropped_volume: float
    balanced_volume: float
    rest_error: float


@dataclass(frozen=True)
class ProjectedWall:
    """The tables, numpy float64 (the backends cast), beside the volumetric wall's (whose
    elements, volumes and law they share). Per slot: slot_cell [S], keep_map [S, Q, 4, 4];
    turned rows by (slot, outgoing link), CSR turn_start [S Q + 1], turn_source [R] (the flat
    cell whose link opp(q) they carry), turn_map [R, 4, 4]; the elements' incoming parcels by
    (element, link), CSR gather_start [E + 1], gather_q, gather_cell, gather_volume, gather_first
    [P, 3] (about the source's fluid centroid); swept_out [E, Q]; the scatter by slot, CSR
    scatter_start [S + 1], scatter_element, scatter_q, scatter_weight, scatter_slope [., 3];
    stray_volume: turned pieces that would land in the body's cells (a concave surface), kept
    in their source instead [cells^3]; overlap: where the prisms of a concave surface overlap
    (`_share_overlaps`); profile: the free slip's profile's tables per parcel,
    scatter entry and element."""

    wall: VolumetricWall
    slot_cell: np.ndarray
    keep_map: np.ndarray
    turn_start: np.ndarray
    turn_source: np.ndarray
    turn_map: np.ndarray
    gather_start: np.ndarray
    gather_q: np.ndarray
    gather_cell: np.ndarray
    gather_volume: np.ndarray
    gather_first: np.ndarray
    swept_out: np.ndarray
    scatter_start: np.ndarray
    scatter_element: np.ndarray
    scatter_q: np.ndarray
    scatter_weight: np.ndarray
    scatter_slope: np.ndarray
    stray_volume: float
    overlap: Overlap
    profile: SlipProfile


def _group(keys: np.ndarray, *values: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Unique rows of keys [n, k] and each value [n, ...] summed over them."""
    unique, where = np.unique(keys, axis=0, return_inverse=True)
    where = where.ravel()
    sums = []
    for v in values:
        out = np.zeros((len(unique), *v.shape[1:]))
        np.add.at(out, where, v)
        sums.append(out)
    return unique, sums


def _projected_map(volume, first, p, q_map, volume_x, inverse_x) -> np.ndarray:
    """The 4 x 4 maps [n, 4, 4] of pieces of volume, first moment (about their source's centroid)
    and destination moment maps (P, Q) into cells of fluid volume_x and inverse second moment."""
    out = np.zeros((len(volume), 4, 4))
    out[:, 0, 0] = volume / volume_x
    out[:, 0, 1:] = first / volume_x[:, None]
    moment = np.concatenate([p[:, :, None], q_map], axis=2)  # [n, 3, 4]
    out[:, 1:, :] = np.einsum("nab,nbc->nac", inverse_x, moment)
    return out


def build_projected_wall(
    triangles_cells: np.ndarray,
    shape_zyx: tuple[int, int, int],
    periodic: np.ndarray,
    walls: np.ndarray | None = None,
    where: Callable[[int], str] | None = None,
) -> ProjectedWall:
    """The tables of a closed, outward-oriented mesh, as `build_volumetric_wall` takes it.
    where names a flat cell index for the refusal of an overlapping surface (default: its
    (x, y, z) cell)."""
    nz, ny, nx = shape_zyx
    if where is None:

        def where(cell: int) -> str:
            z, y, x = np.unravel_index(cell, shape_zyx)
            return f"cell ({x}, {y}, {z})"

    periodic = np.asarray(periodic, bool)
    walls = np.zeros(shape_zyx, bool) if walls is None else np.asarray(walls, bool)
    flat_walls = walls.ravel()
    box = CellBox(shape_zyx, periodic)
    all_surfels = cut_into_cells(triangles_cells, (nx, ny, nz))
    wall = volumetric_wall_of_surfels(all_surfels, shape_zyx, periodic, walls)
    flat_volume = wall.volume.ravel()
    moments = fluid_moments(all_surfels, shape_zyx, flat_volume)
    surfels = merge_coplanar(body_surfels(all_surfels, shape_zyx, periodic, walls))

    def offset_unwrapped(cells: np.ndarray) -> np.ndarray:
        return moments.offset_of(box.flat(cells))

    t, overlap = _share_overlaps(
        turned_pieces(surfels, offset_unwrapped), box, flat_volume, moments.second_of
    )
    src, dst = box.flat(t.source), box.flat(t.destination)
    if (src < 0).any() or (dst < 0).any():
        raise ConfigError(
            "key 'body.bounce_back' projected needs the body's surface at least two cells inside "
            "every face of the domain that is not periodic: move the body or take "
            "body.bounce_back=volumetric"
        )
    element = np.searchsorted(wall.element_cell, box.flat(surfels.cell[t.surfel]))
    # pieces turned into the body's cells (a concave surface) stay in their source, unmoved
    stray = flat_volume[dst] <= 0
    stray_volume = float(t.volume[stray].sum())
    p, q_map = t.p.copy(), t.q_map.copy()
    dst = np.where(stray, src, dst)
    p[stray], q_map[stray] = t.first[stray], t.second[stray]
    # the cut of each (source, link): what its keep map leaves out
    (cut_key, (cut_volume, cut_first, cut_second)) = _group(
        np.stack([src, t.q], 1), t.volume, t.first, t.second
    )
    # slots: the cut cells, the sources and destinations of turned pieces, their neighbours
    touched = np.union1d(np.flatnonzero((flat_volume > 0) & (flat_volume < 1)), src)
    near = np.concatenate([box.neighbour(touched, C[q]) for q in range(1, Q)])
    slot_cell = np.union1d(np.union1d(touched, near), dst)
    slot_cell = slot_cell[slot_cell >= 0]
    slot_cell = slot_cell[flat_volume[slot_cell] > 0]
    slot_of = np.full(flat_volume.size, -1, np.int64)
    slot_of[slot_cell] = np.arange(len(slot_cell))
    n_slot = len(slot_cell)
    keep_map = _keep_maps(
        box, slot_cell, flat_volume, flat_walls, moments, cut_key, cut_volume, cut_first, cut_second
    )
    # the kept part's first moment about each slot's centroid, per unit mean
    keep_first = np.einsum("sab,sqb->sqa", moments.second_of(slot_cell), keep_map[:, :, 1:, 0])
    t, p, q_map, balanced = _balance_turned(
        t, src, dst, p, q_map, keep_map[:, :, 0, 0], keep_first, slot_of, flat_volume
    )
    t, dst, p, q_map, element, returned = _return_over_arrivals(
        t, src, dst, p, q_map, element, keep_map[:, :, 0, 0], slot_of, flat_volume
    )
    src = box.flat(t.source)
    stray_volume += returned
    # turned rows by (destination slot, outgoing link, source)
    q_out = OPP[t.q]
    (row_key, (r_volume, r_first, r_p, r_q)) = _group(
        np.stack([slot_of[dst], q_out, src], 1), t.volume, t.first, p, q_map
    )
    at = row_key[:, 0]
    cell_at = slot_cell[at]
    turn_map = _projected_map(
        r_volume, r_first, r_p, r_q, flat_volume[cell_at], moments.inverse_of(cell_at)
    )
    rest_error, worst = _rest_error(keep_map, at, row_key[:, 1], turn_map)
    if rest_error > REST_TOLERANCE:
        raise ConfigError(
            "key 'body.bounce_back' projected: the surface turns concave or comes within a cell "
            f"of itself near {where(slot_cell[worst])} (its prisms overlap so a fluid at rest "
            f"would change by {rest_error:.0%} in a step, over the {REST_TOLERANCE:.0%} "
            "allowed); take body.bounce_back=volumetric or another resolution.cells_per_length"
        )
    n_el = len(wall.element_cell)
    # the elements' gather by (element, link, source), their send by (element, link, destination)
    area = np.maximum(np.linalg.norm(wall.area_vector, axis=1, keepdims=True), 1e-300)
    normal = wall.area_vector / area
    r_src = t.source + 0.5 + offset_unwrapped(t.source)
    integrals = piece_integrals(t, p, q_map, surfels, element, element_tangents(normal), r_src)
    (g_key, (g_volume, g_first, g_g, g_g_first)) = _group(
        np.stack([element, t.q, src], 1), t.volume, t.first, integrals.g, integrals.g_first
    )
    (o_key, (o_volume, o_p, o_g, o_g_turned)) = _group(
        np.stack([element, q_out, dst], 1), t.volume, p, integrals.g, integrals.turned_first
    )
    swept_out = np.zeros((n_el, Q))
    np.add.at(swept_out, (o_key[:, 0], o_key[:, 1]), o_volume)
    o_cell = o_key[:, 2]
    swept = swept_out[o_key[:, 0], o_key[:, 1]]
    per_volume = np.divide(1.0, swept, out=np.zeros_like(swept), where=swept > 0)  # 0: dropped
    weight = o_volume * per_volume / flat_volume[o_cell]
    inverse = moments.inverse_of(o_cell)
    slope = np.einsum("nab,nb->na", inverse, o_p) * per_volume[:, None]
    scatter = np.argsort(slot_of[o_cell], kind="stable")
    scatter_profile = np.concatenate(
        [
            o_g * (per_volume / flat_volume[o_cell])[:, None],
            np.einsum("nab,nbc->nac", inverse, o_g_turned).reshape(-1, 9) * per_volume[:, None],
        ],
        axis=1,
    )
    profile = SlipProfile(
        gather=np.concatenate([g_g, g_g_first.reshape(-1, 9)], axis=1),
        scatter=scatter_profile[scatter],
        gram=profile_gram(integrals, t.volume, element, n_el),
    )
    return ProjectedWall(
        wall=replace(wall, swept_out=swept_out),
        slot_cell=slot_cell,
        keep_map=keep_map,
        turn_start=csr_start(Q * at + row_key[:, 1], Q * n_slot),
        turn_source=row_key[:, 2],
        turn_map=turn_map,
        gather_start=csr_start(g_key[:, 0], n_el),
        gather_q=g_key[:, 1],
        gather_cell=g_key[:, 2],
        gather_volume=g_volume,
        gather_first=g_first,
        swept_out=swept_out,
        scatter_start=csr_start(slot_of[o_cell], n_slot),
        scatter_element=o_key[scatter, 0],
        scatter_q=o_key[scatter, 1],
        scatter_weight=weight[scatter],
        scatter_slope=slope[scatter],
        stray_volume=stray_volume,
        overlap=replace(overlap, balanced_volume=balanced, rest_error=rest_error),
        profile=profile,
    )


def _rest_error(
    keep_map: np.ndarray, at: np.ndarray, q_out: np.ndarray, turn_map: np.ndarray
) -> tuple[float, int]:
    """The largest change a step makes to a fluid at rest (every mean 1, no slope) in any slot
    and moving link: the volume that arrives, kept and turned, over the slot's own, and the slot
    where it is largest (-1 without slots). Exact streaming keeps it at 1; the overlaps' sharing
    and the stray pieces move it."""
    arriving = keep_map[:, :, 0, 0].copy()
    np.add.at(arriving, (at, q_out), turn_map[:, 0, 0])
    change = np.abs(arriving[:, 1:] - 1.0)
    if change.size == 0:
        return 0.0, -1
    worst = int(np.argmax(change.max(axis=1)))
    return float(change[worst].max()), worst


def _share_overlaps(
    t: TurnedPieces,
    box: CellBox,
    flat_volume: np.ndarray,
    second_of: Callable[[np.ndarray], np.ndarray],
) -> tuple[TurnedPieces, Overlap]:
    """Where a concave surface's prisms overlap, each (source, link)'s pieces scaled to share
    the source's fluid. A piece is a surfel's prism cut by a cell, and near a concave edge or a
    surface within a cell of itself the prism runs on past another part of the surface, into
    the body, where no particle is: the pieces of one (source, link) then claim more than the
    source holds. Scaling them by V / (their sum) turns each particle once and keeps the
    source's mass and first moment (the keep map takes the rest, now none); pieces whose
    source holds no fluid go, over-claimed or not (under the over-claim test's margin, 1e-9
    cells^3, a piece of a cell without fluid would otherwise stay, with no slot to land in).
    The share each surfel gets is its piece's, an approximation of the exact clip by the other
    surfaces. An over-claimed source's pieces then hold all its fluid, so they also take its
    whole first and second moments (about its centroid: 0 and second_of(cells)), the difference
    shared in proportion to their volumes: the keep map's part, with no volume left, then has no
    moments either (left, they made a slope of nothing in the slot it lands in, up to 5,000
    times a whole cell's at the car's tyres on the road). The volumetric wall's `clip_to_fluid`
    scales its parcels alike, but with their twins, which keeps rest exact there; a turned
    piece's landing is elsewhere, so `_balance_turned` puts the landings right and
    `_rest_error` measures what is left."""
    src = box.flat(t.source)
    key = np.where(src >= 0, src, 0) * Q + t.q
    unique, where = np.unique(key, return_inverse=True)
    where = where.ravel()
    claimed = np.zeros(len(unique))
    np.add.at(claimed, where, t.volume)
    held = flat_volume[unique // Q]
    over = claimed > held + 1e-9
    sourced = held[where] > 0
    if not over.any() and (sourced | (src < 0)).all():
        return t, Overlap(0, 0.0, 0.0, 0.0)
    scale = np.where(over, held / np.maximum(claimed, 1e-300), 1.0)[where]
    keep = (sourced & (scale > 0)) | (src < 0)  # a source past the domain's faces is refused later
    scale, group = scale[keep], where[keep]
    volume = t.volume[keep] * scale
    first = t.first[keep] * scale[:, None]
    second = t.second[keep] * scale[:, None, None]
    full = over[group]
    share = (volume / np.maximum(held[group], 1e-300))[full]
    first_sum = np.zeros((len(unique), 3))
    np.add.at(first_sum, group[full], first[full])
    second_sum = np.zeros((len(unique), 3, 3))
    np.add.at(second_sum, group[full], second[full])
    whole = second_of(unique // Q)
    first[full] -= share[:, None] * first_sum[group[full]]
    second[full] += share[:, None, None] * (whole - second_sum)[group[full]]
    scaled = TurnedPieces(
        surfel=t.surfel[keep],
        q=t.q[keep],
        source=t.source[keep],
        destination=t.destination[keep],
        volume=volume,
        first=first,
        second=second,
        p=t.p[keep] * scale[:, None],
        q_map=t.q_map[keep] * scale[:, None, None],
    )
    return scaled, Overlap(int(over.sum()), float((claimed - held)[over].sum()), 0.0, 0.0)


def _balance_turned(
    t: TurnedPieces,
    src: np.ndarray,
    dst: np.ndarray,
    p: np.ndarray,
    q_map: np.ndarray,
    keep_share: np.ndarray,
    keep_first: np.ndarray,
    slot_of: np.ndarray,
    flat_volume: np.ndarray,
) -> tuple[TurnedPieces, np.ndarray, np.ndarray, float]:
    """The turned pieces scaled, each by a(destination, outgoing link) b(source, incoming link),
    so that every (slot, link) receives its fluid volume, kept and turned (a fluid at rest stays
    at rest), and every (source, link) sends exactly what its pieces sent (mass is kept): of all
    such scalings the one closest to the geometry's volumes in relative entropy, found by
    iterative proportional fitting (Deming & Stephan 1940, Ann. Math. Stat. 11, 427; Sinkhorn
    1967). Where the pieces are exact it changes nothing. Near a concave crease, a surface
    within a cell of itself or an acute wedge with the domain's walls (a tyre on the road) the
    prisms run on past another surface: `_share_overlaps` keeps the sources, and this puts the
    landings right.

    A (slot, link) whose geometric arrivals missed its fluid has no trustworthy landing moments
    either (a piece cut for a volume 200 times what lands made slopes 10^4 times a whole
    cell's): its turned pieces fill what the keep map leaves of the slot's fluid, so their
    destination first moments add to minus the kept part's, keep_first [S, Q, 3], shared by
    volume, and each carries its slope's mass to where its volume lands (q_map = p first^T / V).
    Elsewhere a piece's moment maps scale with its volume. p, q_map: the pieces' destination
    moment maps (`TurnedPieces.p`, `.q_map`, stray pieces' about their source). Returns the
    pieces, their maps and the volume the scaling moved [cells^3]. Where no scaling can (a
    destination no piece reaches; sources whose pieces all land in a slot already full, as
    under the Ahmed body's stilts), `_return_over_arrivals` then takes what still over-fills
    back, and `_rest_error` shows what is left."""
    rows, row = np.unique(slot_of[dst] * Q + OPP[t.q], return_inverse=True)
    cols, col = np.unique(src * Q + t.q, return_inverse=True)
    row, col = row.ravel(), col.ravel()
    volume = t.volume
    row_volume = np.zeros(len(rows))
    row_volume[row] = flat_volume[dst]
    want_row = np.maximum(row_volume * (1.0 - keep_share[rows // Q, rows % Q]), 0.0)
    want_col = np.bincount(col, volume, len(cols))
    missed = np.abs(np.bincount(row, volume, len(rows)) - want_row) > (
        BALANCE_TOLERANCE * row_volume
    )
    if not missed.any():
        return t, p, q_map, 0.0
    a, b = np.ones(len(rows)), np.ones(len(cols))
    for _ in range(BALANCE_ITERATIONS):
        got = np.bincount(row, volume * b[col], len(rows))
        if np.all(np.abs(a * got - want_row) <= BALANCE_TOLERANCE * row_volume):
            break
        a = np.divide(want_row, got, out=np.ones_like(got), where=got > HOPELESS * want_row)
        sent = np.bincount(col, volume * a[row], len(cols))
        b = np.divide(want_col, sent, out=np.ones_like(sent), where=sent > HOPELESS * want_col)
    scale = a[row] * b[col]
    scaled = volume * scale
    vector, matrix = scale[:, None], scale[:, None, None]
    # each source's pieces keep their first moment's sum, so a slope's mass is kept too
    first = t.first * vector
    lost = t.first - first
    miss = np.stack([np.bincount(col, lost[:, axis], len(cols)) for axis in range(3)], 1)
    first += (scaled / np.maximum(want_col[col], 1e-300))[:, None] * miss[col]
    p, q_map = p * vector, q_map * matrix
    rebuilt = missed[row]
    arrived = np.bincount(row, scaled, len(rows))
    share = scaled / np.maximum(arrived[row], 1e-300)
    p[rebuilt] = -(share[:, None] * keep_first[rows[row] // Q, rows[row] % Q])[rebuilt]
    per_volume = 1.0 / np.maximum(scaled[rebuilt], 1e-300)
    q_map[rebuilt] = np.einsum("na,nb->nab", p[rebuilt], first[rebuilt] * per_volume[:, None])
    moved = float(0.5 * np.abs(scaled - volume).sum())
    scaled_t = replace(t, volume=scaled, first=first, second=t.second * matrix, p=t.p * vector)
    return replace(scaled_t, q_map=t.q_map * matrix), p, q_map, moved


def _return_over_arrivals(
    t: TurnedPieces,
    src: np.ndarray,
    dst: np.ndarray,
    p: np.ndarray,
    q_map: np.ndarray,
    element: np.ndarray,
    keep_share: np.ndarray,
    slot_of: np.ndarray,
    flat_volume: np.ndarray,
) -> tuple[TurnedPieces, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Where a (destination, link) would still receive more than REST_TOLERANCE over its fluid
    after `_balance_turned`, kept and turned, its turned pieces scaled to fill it, the rest of
    each back in its source as the stray pieces are (turned in place). A sliver of fluid (the
    car at 128 cells: 1e-6 cells^3 where its backlight meets its tail deck) can receive 95
    times its fluid from a neighbour's prisms that run on into the body beside it; the balance
    shares that out where other slots can take it, and this is what is left where none can.
    Mass is kept; the destination keeps rest to the tolerance and the source changes by what
    comes back over its fluid. Below the tolerance nothing changes."""
    q_out = OPP[t.q]
    at = slot_of[dst]
    turned = np.zeros_like(keep_share)
    np.add.at(turned, (at, q_out), t.volume / flat_volume[dst])
    room = np.maximum(1.0 - keep_share, 0.0)
    over = keep_share + turned > 1.0 + REST_TOLERANCE
    if not over.any():
        return t, dst, p, q_map, element, 0.0
    factor = np.where(over, room / np.maximum(turned, 1e-300), 1.0)[at, q_out]
    back = np.flatnonzero(factor < 1.0)
    rest = 1.0 - factor[back]

    def split(values: np.ndarray, returned: np.ndarray) -> np.ndarray:
        shape = (-1,) + (1,) * (values.ndim - 1)
        return np.concatenate(
            [values * factor.reshape(shape), returned * rest.reshape(shape)], axis=0
        )

    def twice(values: np.ndarray) -> np.ndarray:
        return np.concatenate([values, values[back]], axis=0)

    split_t = TurnedPieces(
        surfel=twice(t.surfel),
        q=twice(t.q),
        source=twice(t.source),
        destination=np.concatenate([t.destination, t.source[back]], axis=0),
        volume=split(t.volume, t.volume[back]),
        first=split(t.first, t.first[back]),
        second=split(t.second, t.second[back]),
        p=split(t.p, t.first[back]),
        q_map=split(t.q_map, t.second[back]),
    )
    return (
        split_t,
        np.concatenate([dst, src[back]]),
        split(p, t.first[back]),
        split(q_map, t.second[back]),
        twice(element),
        float((t.volume[back] * rest).sum()),
    )


def _keep_maps(
    box: CellBox,
    slot_cell: np.ndarray,
    flat_volume: np.ndarray,
    flat_walls: np.ndarray,
    moments: FluidMoments,
    cut_key: np.ndarray,
    cut_volume: np.ndarray,
    cut_first: np.ndarray,
    cut_second: np.ndarray,
) -> np.ndarray:
    """K [S, Q, 4, 4]: the part of each link's source x - c_q that no surfel intercepts along
    c_q, translated into slot x. From the domain's walls the rule's value times (V(x) - I(x,
    opp(q))) / V(x) with no slope; past a face that does not wrap, its rule's value."""
    n_slot = len(slot_cell)
    n_cells = flat_volume.size
    lookup = cut_key[:, 1] * n_cells + cut_key[:, 0]
    order = np.argsort(lookup)
    lookup = lookup[order]

    def cut_of(q: int, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        key = q * n_cells + cells
        at = np.minimum(np.searchsorted(lookup, key), max(len(lookup) - 1, 0))
        found = lookup[at] == key if len(lookup) else np.zeros(len(cells), bool)
        row = order[at]
        return (
            np.where(found, cut_volume[row], 0.0),
            np.where(found[:, None], cut_first[row], 0.0),
            np.where(found[:, None, None], cut_second[row], 0.0),
        )

    volume_x = flat_volume[slot_cell]
    inverse_x = moments.inverse_of(slot_cell)
    offset_x = moments.offset_of(slot_cell)
    keep = np.zeros((n_slot, Q, 4, 4))
    keep[:, 0, 0, 0] = 1.0
    keep[:, 0, 1:, 1:] = np.where(
        (np.abs(inverse_x).sum(axis=(1, 2)) > 0)[:, None, None], np.eye(3), 0.0
    )
    for q in range(1, Q):
        y = box.neighbour(slot_cell, -C[q])
        past = y < 0
        keep[past, q, 0, 0] = 1.0
        wall = ~past & flat_walls[np.maximum(y, 0)]
        opp_cut, _, _ = cut_of(int(OPP[q]), slot_cell[wall])
        keep[wall, q, 0, 0] = (volume_x[wall] - opp_cut) / volume_x[wall]
        fluid = np.flatnonzero(~past & ~wall & (flat_volume[np.maximum(y, 0)] > 0))
        ys = y[fluid]
        a, first, second = cut_of(q, ys)
        area = flat_volume[ys] - a
        k1 = -first
        k2 = moments.second_of(ys) - second
        shift = moments.offset_of(ys) - offset_x[fluid]
        p = k1 + area[:, None] * shift
        q_map = k2 + shift[:, :, None] * k1[:, None, :]
        keep[fluid, q] = _projected_map(area, k1, p, q_map, volume_x[fluid], inverse_x[fluid])
    return keep


def projected_wall_on_grid(
    vertices_m: np.ndarray, faces: np.ndarray, grid: Grid, periodic: np.ndarray
) -> ProjectedWall:
    """The tables of a mesh (vertices [m], faces) on a grid, its periodic axes (x, y, z)."""
    triangles, walls = mesh_on_grid(vertices_m, faces, grid)

    def where(cell: int) -> str:
        zyx = np.unravel_index(cell, grid.shape_zyx)
        x, y, z = (float(grid.centers(axis)[zyx[2 - axis]]) for axis in range(3))
        return f"(x, y, z) = ({x:.3f}, {y:.3f}, {z:.3f}) m"

    return build_projected_wall(triangles, grid.shape_zyx, periodic, walls, where)

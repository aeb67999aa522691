"""The projected volumetric wall's moments and turned pieces (solver/volumetric_moments.py,
solver/volumetric_turn.py), and the coplanar surfels merged (solver/surfel_merge.py)."""

from __future__ import annotations

import numpy as np

from shapes.solids import box, icosphere
from solver.lattice import OPP, C
from solver.surfel_merge import merge_coplanar
from solver.surfels import MAX_VERTICES, Polygons, Surfels, cut_into_cells
from solver.volumetric_geometry import solid_volume, swept_parcels
from solver.volumetric_moments import polygon_quadrature, solid_moments
from solver.volumetric_turn import turned_pieces


def _triangles(poly: np.ndarray) -> Polygons:
    vertices = np.zeros((len(poly), MAX_VERTICES, 3))
    vertices[:, :3] = poly
    return Polygons(vertices, np.full(len(poly), 3))


def _refined(tri: np.ndarray, levels: int) -> np.ndarray:
    """The triangle cut into 4^levels by its edges' midpoints."""
    out = tri[None]
    for _ in range(levels):
        a, b, c = out[:, 0], out[:, 1], out[:, 2]
        ab, bc, ca = (a + b) / 2, (b + c) / 2, (c + a) / 2
        out = np.concatenate(
            [np.stack(t, axis=1) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))]
        )
    return out


def _integrate(poly: Polygons, f) -> float:
    points, weights = polygon_quadrature(poly)
    return float((weights * f(points)).sum())


def test_the_rule_is_exact_for_cubics_and_not_for_quartics():
    """Integrals over a triangle equal those over its 256 pieces for cubics (an inexact rule's
    error would shrink with the pieces) to 1e-13; a quartic's differ by over 1e-6."""
    rng = np.random.default_rng(3)
    tri = rng.random((3, 3)) * 2
    whole, pieces = _triangles(tri[None]), _triangles(_refined(tri, 4))
    cubic = lambda p: p[..., 0] ** 3 - 2 * p[..., 0] * p[..., 1] * p[..., 2] + p[..., 2] ** 2  # noqa: E731
    quartic = lambda p: p[..., 0] ** 4  # noqa: E731
    np.testing.assert_allclose(
        _integrate(whole, cubic), _integrate(pieces, cubic), rtol=0, atol=1e-13
    )
    assert abs(_integrate(whole, quartic) - _integrate(pieces, quartic)) > 1e-6


def _polyhedron_moments(tris: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume, first and second moment about the origin of a closed outward mesh: tetrahedra
    from the origin."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    six_v = np.einsum("ij,ij->i", a, np.cross(b, c))
    total = a + b + c
    vol = six_v.sum() / 6
    first = (six_v[:, None] * total).sum(axis=0) / 24
    outer = lambda u, w: u[:, :, None] * w[:, None, :]  # noqa: E731
    second = (
        six_v[:, None, None] * (outer(a, a) + outer(b, b) + outer(c, c) + outer(total, total))
    ).sum(axis=0) / 120
    return vol, first, second


def test_a_spheres_cut_cells_and_whole_cells_add_up_to_its_moments():
    """An icosphere of radius 5.3 cells off the cells' centres: its cut cells' solid moments
    (from the surfels) and its whole cells' add up to the mesh's own volume, first and second
    moments to 1e-9 of them, and the cut cells' volumes equal solid_volume's."""
    centre = np.array([8.3, 8.1, 7.8])
    mesh = icosphere(5.3, tuple(centre), subdivisions=3)
    tris = mesh.vertices_m[mesh.faces]
    shape = (16, 16, 16)
    surfels = cut_into_cells(tris, shape)
    got = solid_moments(surfels, shape)
    volume = solid_volume(surfels, shape)  # (z, y, x)
    ci, cj, ck = got.cell.T
    np.testing.assert_allclose(got.volume, volume[ck, cj, ci], atol=1e-11)
    whole = np.ones(shape, bool)
    whole[ck, cj, ci] = False
    whole &= volume > 1 - 1e-9
    kz, jy, ix = np.nonzero(whole)
    centres = np.concatenate([got.cell, np.stack([ix, jy, kz], axis=1)]) + 0.5
    vol = np.concatenate([got.volume, np.ones(len(ix))])
    first_c = np.concatenate([got.first, np.zeros((len(ix), 3))])
    second_c = np.concatenate([got.second, np.broadcast_to(np.eye(3) / 12, (len(ix), 3, 3))])
    total_first = (first_c + vol[:, None] * centres).sum(axis=0)
    outer = centres[:, :, None] * first_c[:, None, :]
    total_second = (
        second_c
        + outer
        + np.swapaxes(outer, 1, 2)
        + vol[:, None, None] * centres[:, :, None] * centres[:, None, :]
    ).sum(axis=0)
    want_v, want_first, want_second = _polyhedron_moments(tris)
    assert abs(vol.sum() / want_v - 1) < 1e-9
    np.testing.assert_allclose(total_first, want_first, rtol=1e-9)
    np.testing.assert_allclose(total_second, want_second, rtol=1e-9, atol=1e-9 * want_second.max())


def test_a_plane_surfels_prism_turns_over_as_an_exact_bounce_back_puts_it():
    """A square surfel at z = 0.3 in cell (0, 0, 0), the body below: along -z its prism holds
    0.7 of cell 0 and 0.3 of cell 1; turned over, 0.4 stays in cell 0 and 0.3 goes each way
    between the cells, each with the mean height it had (first moments about the centres)."""
    poly = np.zeros((1, MAX_VERTICES, 3))
    poly[0, :4] = [[0, 0, 0.3], [1, 0, 0.3], [1, 1, 0.3], [0, 1, 0.3]]
    surfel = Surfels(
        cell=np.array([[0, 0, 0]]),
        triangle=np.array([0]),
        polygon=Polygons(poly, np.array([4])),
        area_vector=np.array([[0, 0, 1.0]]),
        centroid=np.array([[0.5, 0.5, 0.3]]),
    )
    pieces = turned_pieces(surfel, lambda cells: np.zeros((len(cells), 3)))
    down = int(np.flatnonzero((C == [0, 0, -1]).all(axis=1))[0])
    rows = {
        (int(a[2]), int(b[2])): (v, f[2])
        for a, b, v, f, q in zip(
            pieces.source, pieces.destination, pieces.volume, pieces.first, pieces.q, strict=True
        )
        if q == down
    }
    assert rows.keys() == {(0, 0), (0, 1), (1, 0)}
    np.testing.assert_allclose(rows[0, 0], (0.4, 0.4 * (0.8 - 0.5)), atol=1e-14)
    np.testing.assert_allclose(rows[0, 1], (0.3, 0.3 * (0.45 - 0.5)), atol=1e-14)
    np.testing.assert_allclose(rows[1, 0], (0.3, 0.3 * (1.15 - 1.5)), atol=1e-14)
    # the piece that stays, z 0.6-1.0 about the centre 0.5: its second moment, and the turned
    # field's first moment, m P + Q s with the source's f = m + s (z - 0.5) read back at
    # 1.6 - z' for z' in 0.6-1.0: P = int (z' - 0.5), Q = int (1.1 - z') (z' - 0.5)
    stay = np.flatnonzero(
        (pieces.q == down) & (pieces.source[:, 2] == 0) & (pieces.destination[:, 2] == 0)
    )[0]
    np.testing.assert_allclose(pieces.second[stay][2, 2], (0.5**3 - 0.1**3) / 3, atol=1e-14)
    np.testing.assert_allclose(pieces.p[stay][2], 0.12, atol=1e-14)
    q_zz = 0.6 * (0.5**2 - 0.1**2) / 2 - (0.5**3 - 0.1**3) / 3
    np.testing.assert_allclose(pieces.q_map[stay][2, 2], q_zz, atol=1e-14)


def test_a_spheres_turned_pieces_fill_its_prisms_both_ways():
    """On an icosphere, per surfel and link: the pieces from each source cell add up to the
    volume swept_parcels gives its incoming prism there, those into each destination to its
    opposite link's outgoing prism there (1e-12), and all pieces' first moments to the prisms'
    (1e-11)."""
    mesh = icosphere(3.3, (5.3, 5.1, 4.8), subdivisions=2)
    surfels = cut_into_cells(mesh.vertices_m[mesh.faces], (11, 11, 11))
    pieces = turned_pieces(surfels, lambda cells: 0.1 * np.sin(cells))
    parcels = swept_parcels(surfels)

    def totals(element, q, cell, volume):
        key = np.stack([element, q, *cell.T], axis=1)
        keys, where = np.unique(key, axis=0, return_inverse=True)
        return {
            tuple(k): v
            for k, v in zip(keys, np.bincount(where.ravel(), weights=volume), strict=True)
        }

    inc = ~parcels.outgoing
    want_in = totals(parcels.element[inc], parcels.q[inc], parcels.cell[inc], parcels.volume[inc])
    got_in = totals(pieces.surfel, pieces.q, pieces.source, pieces.volume)
    assert want_in.keys() == got_in.keys()
    assert max(abs(got_in[k] - want_in[k]) for k in want_in) < 1e-12
    out = parcels.outgoing
    want_out = totals(
        parcels.element[out], OPP[parcels.q[out]], parcels.cell[out], parcels.volume[out]
    )
    got_out = totals(pieces.surfel, pieces.q, pieces.destination, pieces.volume)
    assert want_out.keys() == got_out.keys()
    assert max(abs(got_out[k] - want_out[k]) for k in want_out) < 1e-12
    # first moments about the origin: each prism's is |c.a| (centroid - c / 2) per surfel
    r_src = pieces.source + 0.5 + 0.1 * np.sin(pieces.source)
    got = np.zeros((len(surfels.cell), len(C), 3))
    np.add.at(got, (pieces.surfel, pieces.q), pieces.first + pieces.volume[:, None] * r_src)
    c_dot_a = surfels.area_vector @ C.T.astype(float)  # [m, Q]
    want = -c_dot_a[..., None] * (surfels.centroid[:, None, :] - C[None] / 2)
    want *= (c_dot_a < -1e-15)[..., None]
    np.testing.assert_allclose(got, want, atol=1e-11)


def _summed_pieces(t) -> dict:
    key = np.concatenate([t.q[:, None], t.source, t.destination], axis=1)
    keys, where = np.unique(key, axis=0, return_inverse=True)
    values = np.concatenate([t.volume[:, None], t.first, t.p, t.q_map.reshape(-1, 9)], axis=1)
    out = np.zeros((len(keys), values.shape[1]))
    np.add.at(out, where.ravel(), values)
    return {tuple(k): v for k, v in zip(keys, out, strict=True) if abs(v[0]) > 1e-14}


def test_merged_coplanar_surfels_turn_as_their_pieces():
    """A box turned off the axes, its faces split into many pieces per cell: merge_coplanar
    leaves a third or fewer of the surfels, the same area vector, and the same turned pieces
    per (link, source, destination) to 1e-13 (a nonzero centroid offset in every cell)."""
    mesh = box((6.3, 4.1, 3.7), (0.0, 0.0, 0.0), divisions=4)
    a, b = np.radians(27.0), np.radians(11.0)
    turn_z = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    turn_x = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    triangles = (mesh.vertices_m @ (turn_x @ turn_z).T + 8.13)[mesh.faces]
    surfels = cut_into_cells(triangles, (16, 16, 16)).within((16, 16, 16))
    merged = merge_coplanar(surfels)
    assert len(merged.cell) * 3 <= len(surfels.cell)
    np.testing.assert_allclose(
        merged.area_vector.sum(axis=0), surfels.area_vector.sum(axis=0), atol=1e-12
    )

    def offset(cells: np.ndarray) -> np.ndarray:
        return 0.1 * np.sin(cells.astype(float))

    want = _summed_pieces(turned_pieces(surfels, offset))
    got = _summed_pieces(turned_pieces(merged, offset))
    assert set(want) == set(got)
    assert max(np.abs(want[k] - got[k]).max() for k in want) < 1e-13

"""A plain NumPy D3Q19 BGK step (incompressible equilibrium) for fully periodic boxes: the tests'
independent reference for
what the kernels compute (unshifted populations, double precision, textbook formulas)."""

from __future__ import annotations

import numpy as np

from solver.lattice import OPP, C, W


def equilibrium(rho: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Incompressible f_eq[q, ...] (He & Luo 1997) for density rho[...] and velocity u[3, ...]:
    w (rho + 3 c.u + 9/2 (c.u)^2 - 3/2 u.u), reference density 1."""
    cu = np.einsum("qa,a...->q...", C.astype(float), u)
    usq = np.einsum("a...,a...->...", u, u)
    return W.reshape(-1, *[1] * rho.ndim) * (rho + 3 * cu + 4.5 * cu**2 - 1.5 * usq)


def moments(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rho = f.sum(axis=0)
    u = np.einsum("qa,q...->a...", C.astype(float), f)
    return rho, u


def step_periodic(f: np.ndarray, tau: float, cs_smag: float = 0.0) -> np.ndarray:
    """Pull-stream then BGK(-Smagorinsky)-collide; f[q, z, y, x] holds post-collision values."""
    pulled = np.stack(
        [np.roll(f[q], shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2)) for q in range(19)]
    )
    rho, u = moments(pulled)
    feq = equilibrium(rho, u)
    neq = pulled - feq
    pi = np.einsum("qa,qb,q...->ab...", C.astype(float), C.astype(float), neq)
    pi_norm = np.sqrt(np.einsum("ab...,ab...->...", pi, pi))
    tau_eff = 0.5 * (tau + np.sqrt(tau**2 + 18 * np.sqrt(2) * cs_smag**2 * pi_norm))
    return pulled - (pulled - feq) / tau_eff


# ---- the entropic regularized collision, in textbook form
# -----------------------------------------

#: Polynomials of the regularized projection: 1, c_x, c_y, c_z, c_x c_x, ..., c_y c_z, per link.
_CF = C.astype(float)
_BASIS = np.vstack(
    [
        np.ones(19),
        _CF.T,
        _CF[:, 0] ** 2,
        _CF[:, 1] ** 2,
        _CF[:, 2] ** 2,
        _CF[:, 0] * _CF[:, 1],
        _CF[:, 0] * _CF[:, 2],
        _CF[:, 1] * _CF[:, 2],
    ]
)


def entropic_equilibrium(rho: float, u: np.ndarray) -> np.ndarray:
    """f_eq[q] = rho w exp(b.c) / Z(b) with b solved by Newton's method (exp from numpy, float64)
    so that sum c f_eq = rho u: the minimiser of sum f ln(f / w) at given rho and rho u."""
    b = 3.0 * np.asarray(u, float)
    for _ in range(30):
        e = W * np.exp(_CF @ b)
        z = e.sum()
        mean = _CF.T @ e / z
        cov = (_CF.T * e) @ _CF / z - np.outer(mean, mean)
        step = np.linalg.solve(cov, u - mean)
        b += step
        if np.abs(step).max() < 1e-15:
            break
    e = W * np.exp(_CF @ b)
    return rho * e / e.sum()


def series_equilibrium(rho: float, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's entropic equilibrium without a Newton solve (cuda/lbm_collision.cuh,
    lbm_entropic_fit), returned with the E(b) it is built on: b from the inverse series of u(b)
    to fifth order, b_x = 3 u_x + 27/20 u_x^5 + 27/4 u_x u_y^2 u_z^2 (likewise y, z), and the
    linear momentum fix E' = E(b) (1 + (c - m).delta), delta = Cov(c, c)^-1 (u - m), m the mean
    of E(b): mass rho and momentum rho u exactly, E' - E_exact of O(delta^2)."""
    u = np.asarray(u, float)
    u2 = u * u
    b = u * (3 + 27 / 20 * u2**2 + 27 / 4 * np.roll(u2, 1) * np.roll(u2, 2))
    e = W * np.exp(_CF @ b)
    e /= e.sum()
    mean = _CF.T @ e
    cov = (_CF.T * e) @ _CF - np.outer(mean, mean)
    delta = np.linalg.solve(cov, u - mean)
    return rho * e * (1 + (_CF - mean) @ delta), rho * e


def guo_force(rho: float, u: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Guo et al. (2002) forcing populations for the force rho g at velocity u."""
    cu, cg = _CF @ u, _CF @ g
    return rho * W * (3 * (cg - u @ g) + 9 * cu * cg)


def _projection(vectors: np.ndarray, eq: np.ndarray) -> np.ndarray:
    """Orthogonal projector (scalar product sum a b / E) onto the span of the rows of vectors."""
    gram = (vectors / eq) @ vectors.T
    return vectors.T @ np.linalg.solve(gram, vectors / eq)


def stress_basis(eq: np.ndarray) -> np.ndarray:
    """zeta[6, 19]: the quadratic monomials (xx, yy, zz, xy, xz, yz) less their mean and their
    least-squares regression on c under the equilibrium eq (weights eq / rho)."""
    p = eq / eq.sum()
    phi, lin = _BASIS[4:], _BASIS[1:4]
    mean_phi, mean_c = phi @ p, lin @ p
    cov_cc = (lin * p) @ lin.T - np.outer(mean_c, mean_c)
    cov_cphi = (lin * p) @ phi.T - np.outer(mean_c, mean_phi)
    reg = np.linalg.solve(cov_cc, cov_cphi)
    return phi - mean_phi[:, None] - reg.T @ (lin - mean_c[:, None])


def stress_covariance(u: np.ndarray) -> np.ndarray:
    """K(u) = Cov(phi, phi) - Cov(phi, c) Cov(c, c)^-1 Cov(c, phi) under E(u) / rho: the Gram
    matrix of the stress basis, sum zeta_s zeta_t E / rho."""
    eq = entropic_equilibrium(1.0, u)
    zeta = stress_basis(eq)
    return (zeta * eq) @ zeta.T


def stress_covariance_second_order(u: np.ndarray, s: float = 1e-2) -> np.ndarray:
    """Q(u), the term of K(u) = K(0) + Q(u) + O(u^4) quadratic in u (K is even in u), from the
    exact K by Richardson extrapolation of D(s) = (K(s u) - K(0)) / s^2 = Q + s^2 R + O(s^4)."""
    k0 = stress_covariance(np.zeros(3))
    d = [(stress_covariance(h * u) - k0) / h**2 for h in (s, s / 2)]
    return (4 * d[1] - d[0]) / 3


_TRACE = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
#: K at rest, diag(2/9, 2/9, 2/9, 1/9, 1/9, 1/9) to round-off.
_K0 = stress_covariance(np.zeros(3))
_PROJECTIONS = ("expanded", "exact")


def collide_entropic(
    f: np.ndarray,
    omega: float,
    g: np.ndarray | None = None,
    omega_bulk: float = 1.0,
    projection: str = "expanded",
) -> np.ndarray:
    """One cell (f[19], unshifted): f* = E + (1 - omega) P_dev v + (1 - omega_bulk) P_tr v + F/2
    with v = f - E + F/2, u = j / rho + g / 2. P_S projects onto E * {polynomials of degree <= 2
    in c} less the span of E {1, c}; P_tr onto E times the trace polynomial's part in it;
    P_dev = P_S - P_tr; all orthogonal in sum a b / E.

    projection="exact": E the exact entropic equilibrium (Newton), the projections by generic
    weighted least squares. "expanded" (the kernel's operator): E the series equilibrium E' on
    E(b) (series_equilibrium), P_S v = E(b) zeta.lambda with zeta the stress basis of E(b),
    lambda = M pi, pi = sum phi v / rho, M = K0^-1 - K0^-1 Q(u) K0^-1 the first two terms of
    K(u)^-1's expansion about u = 0, and the trace direction's norm t.K.t likewise to first
    order in Q."""
    if projection not in _PROJECTIONS:
        raise ValueError(f"projection must be one of {_PROJECTIONS}, not {projection!r}")
    g = np.zeros(3) if g is None else np.asarray(g, float)
    rho = f.sum()
    u = _CF.T @ f / rho + 0.5 * g
    if projection == "exact":
        eq = eq_basis = entropic_equilibrium(rho, u)
    else:
        eq, eq_basis = series_equilibrium(rho, u)
    force = guo_force(rho, u, g)
    v = f - eq + 0.5 * force
    if projection == "exact":
        conserved = _projection(_BASIS[:4] * eq, eq)
        p_s = _projection(_BASIS * eq, eq) - conserved
        trace = p_s @ ((_CF**2).sum(axis=1) * eq)
        p_tr = np.outer(trace, trace / eq) / (trace @ (trace / eq))
        return eq + (1 - omega) * (p_s - p_tr) @ v + (1 - omega_bulk) * p_tr @ v + 0.5 * force
    k0_inv = np.linalg.inv(_K0)
    q = stress_covariance_second_order(u)
    fit = k0_inv - k0_inv @ q @ k0_inv
    k0_trace = _TRACE @ _K0 @ _TRACE
    inv_trace_norm = (1 - (_TRACE @ q @ _TRACE) / k0_trace) / k0_trace
    pi = _BASIS[4:] @ v / rho
    lam = (1 - omega) * fit @ pi + (omega - omega_bulk) * (_TRACE @ pi) * inv_trace_norm * _TRACE
    return eq + eq_basis * (lam @ stress_basis(eq_basis)) + 0.5 * force


def entropic_omega(
    f: np.ndarray, tau0: float, cs_smag: float, g: np.ndarray | None = None
) -> float:
    """The Smagorinsky relaxation rate of the entropic operator: |Pi_neq| / rho from f - E + F/2."""
    g = np.zeros(3) if g is None else np.asarray(g, float)
    rho = f.sum()
    u = _CF.T @ f / rho + 0.5 * g
    neq = f - entropic_equilibrium(rho, u) + 0.5 * guo_force(rho, u, g)
    pi = np.einsum("qa,qb,q->ab", _CF, _CF, neq) / rho
    return 2.0 / (tau0 + np.sqrt(tau0**2 + 18 * np.sqrt(2) * cs_smag**2 * np.sqrt(np.sum(pi * pi))))


def step_periodic_entropic(
    f: np.ndarray,
    tau0: float,
    cs_smag: float = 0.0,
    g: np.ndarray | None = None,
    projection: str = "expanded",
) -> np.ndarray:
    """Pull-stream then collide with the entropic regularized operator (its projection expanded,
    as the kernel's, or exact: collide_entropic); f[q, z, y, x] unshifted."""
    pulled = np.stack(
        [np.roll(f[q], shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2)) for q in range(19)]
    )
    out = np.empty_like(pulled)
    for idx in np.ndindex(pulled.shape[1:]):
        cell = pulled[(slice(None), *idx)]
        omega = entropic_omega(cell, tau0, cs_smag, g)
        out[(slice(None), *idx)] = collide_entropic(cell, omega, g, projection=projection)
    return out


# ---- the volumetric wall's streaming (solver/volumetric_wall.py), the kernels' reference


def volumetric_stream(
    f_post: np.ndarray, wall, walls: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One streaming step of post-collision densities f_post[q, z, y, x] past a no-slip
    volumetric wall (each element bounces back what it gathers: gamma_out[e, q] =
    gamma_in[e, opp(q)]), the domain's walls (bool [z, y, x], or None) bouncing back halfway;
    returns the new populations (zero in solid cells) and the momentum the body took, sum over
    elements and q of c_q (gamma_in - gamma_out), at gauge pressure (of f - w_q, as the kernels
    report it: the rest state pushes no body, even one whose foot stands in the wall)."""
    opp = np.array([int(np.flatnonzero((C == -c).all(axis=1))[0]) for c in C])
    flat = f_post.reshape(len(C), -1)
    n_el = len(wall.element_cell)
    owner = np.repeat(np.arange(n_el), np.diff(wall.gather_start))
    gamma_in = np.zeros((n_el, len(C)))
    np.add.at(
        gamma_in,
        (owner, wall.gather_q),
        wall.gather_volume * flat[wall.gather_q, wall.gather_cell],
    )
    gamma_out = gamma_in[:, opp]
    at_rest = np.zeros_like(gamma_in)
    np.add.at(at_rest, (owner, wall.gather_q), wall.gather_volume * W[wall.gather_q])
    gauge = gamma_in - at_rest
    pulled = np.stack(
        [np.roll(f_post[q], shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2)) for q in range(19)]
    )
    if walls is not None:
        for q in range(1, len(C)):
            from_wall = np.roll(walls, shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2))
            pulled[q][from_wall] = f_post[opp[q]][from_wall]
    pulled = pulled.reshape(len(C), -1)
    pulled[:, wall.slot_cell] *= wall.keep.T
    slot = np.repeat(wall.slot_cell, np.diff(wall.scatter_start))
    np.add.at(
        pulled,
        (wall.scatter_q, slot),
        wall.scatter_weight * gamma_out[wall.scatter_element, wall.scatter_q],
    )
    pulled[:, wall.volume.ravel() == 0] = 0.0
    force = C.T.astype(float) @ (gauge - gauge[:, opp]).sum(axis=0)
    return pulled.reshape(f_post.shape), force


def projected_stream(
    f_post: np.ndarray, slope: np.ndarray, wall, slip=None, walls: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One streaming step of the projected volumetric wall (solver/volumetric_projected.py) in a
    periodic box, with the domain's walls (bool [z, y, x], or None) bouncing back halfway: post-
    collision means f_post[q, z, y, x] and the slots' slopes slope[S, q, 3]; each slot's (mean,
    slope) of link q from its source's through the keep map (from a wall, its own of link
    opp(q), the map bringing no slope), plus the turned rows' of link opp(q) (no slip); with
    slip (a VolumetricLaw, solver/volumetric_law.py), each element's free-slip term, sum_k
    slip[k, q] P_k, P_k the tangential momentum it gathers, spread by the scatter's weights and
    slopes, with its profile (solver/volumetric_profile.py: b_k = gram Q_k, Q_k = sum_q (c_q .
    t_k) int f_q g, sent as sum_k slip[k, q] b_k . g). Returns the new means (zero in solid
    cells), the slots' new slopes and the momentum the body took, sum over the elements' parcels
    and q of c_q (gathered - sent) at gauge pressure."""
    shape = f_post.shape[1:]
    flat = f_post.reshape(len(C), -1)
    n_slot = len(wall.slot_cell)
    slot_of = np.full(flat.shape[1], -1)
    slot_of[wall.slot_cell] = np.arange(n_slot)

    def mean_slope(q: np.ndarray, cells: np.ndarray) -> np.ndarray:
        at = slot_of[cells]
        s = np.where((at >= 0)[:, None], slope[np.maximum(at, 0), q], 0.0)
        return np.concatenate([flat[q, cells][:, None], s], axis=1)

    z, y, x = np.unravel_index(wall.slot_cell, shape)
    out = np.zeros((n_slot, len(C), 4))
    for q in range(len(C)):
        source = np.ravel_multi_index(
            ((z - C[q, 2]) % shape[0], (y - C[q, 1]) % shape[1], (x - C[q, 0]) % shape[2]), shape
        )
        link = np.full(n_slot, q)
        if walls is not None:
            bounced = walls.ravel()[source]
            source = np.where(bounced, wall.slot_cell, source)
            link[bounced] = OPP[q]
        out[:, q] = np.einsum("nab,nb->na", wall.keep_map[:, q], mean_slope(link, source))
    owner = np.repeat(np.arange(n_slot * len(C)), np.diff(wall.turn_start))
    q_in = OPP[owner % len(C)]
    turned = np.einsum("nab,nb->na", wall.turn_map, mean_slope(q_in, wall.turn_source))
    np.add.at(out.reshape(-1, 4), owner, turned)
    pulled = np.stack(
        [np.roll(f_post[q], shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2)) for q in range(19)]
    )
    if walls is not None:
        for q in range(1, len(C)):
            from_wall = np.roll(walls, shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2))
            pulled[q][from_wall] = f_post[OPP[q]][from_wall]
    pulled = pulled.reshape(len(C), -1)
    pulled[:, wall.slot_cell] = out[:, :, 0].T
    pulled[:, wall.wall.volume.ravel() == 0] = 0.0
    element = np.repeat(np.arange(len(wall.gather_start) - 1), np.diff(wall.gather_start))
    n_el = len(wall.gather_start) - 1
    gathered = np.zeros((n_el, len(C)))
    taken = mean_slope(wall.gather_q, wall.gather_cell)
    np.add.at(
        gathered,
        (element, wall.gather_q),
        wall.gather_volume * (taken[:, 0] - W[wall.gather_q])
        + (wall.gather_first * taken[:, 1:]).sum(axis=1),
    )
    sent = gathered[:, OPP]
    rest_force = np.zeros(3)
    if slip is not None:
        pulled[:, wall.slot_cell], extra, rest_force = _projected_slip(
            out, taken, wall, slip, gathered
        )
        sent = sent + extra
    force = C.T.astype(float) @ (gathered - sent).sum(axis=0) - rest_force
    return pulled.reshape(f_post.shape), out[:, :, 1:], force


def _projected_slip(out, taken, wall, slip, gathered) -> tuple[np.ndarray, np.ndarray]:
    """The free slip's terms added into out [S, q, 4] (projected_stream); returns the slots'
    means [q, S], what each element sends beside the bounce-back [E, q] and what a fluid at rest
    at the elements' gathered densities pushes along their surfaces beyond the gauge's [3] (left
    out of the reported force, as lbm_volumetric_gather does)."""
    n_el = len(wall.gather_start) - 1
    element = np.repeat(np.arange(n_el), np.diff(wall.gather_start))
    ct = np.einsum("qd,ekd->ekq", C.astype(float), slip.tangent)  # [E, 2, q]
    # the tangential momentum less a fluid at rest's at the gathered density (gathered is shifted
    # by w_q: the rest's at density 1 is w_q A_in[q], A_in[q] = A_out[opp(q)])
    at_rest = W[None, 1:] * wall.wall.swept_out[:, OPP[1:]]
    excess_density = gathered[:, 1:].sum(axis=1) / at_rest.sum(axis=1)
    momentum = np.einsum("ekq,eq->ek", ct, gathered) - excess_density[:, None] * np.einsum(
        "ekq,eq->ek", ct[:, :, 1:], at_rest
    )
    extra = np.einsum("ekq,ek->eq", slip.slip, momentum)
    # what a fluid at rest at the gathered density exchanges along the surface beyond the gauge's
    rest_t = np.einsum("ekq,eq->ek", ct[:, :, 1:], at_rest)
    rest_force = 2.0 * np.einsum("e,ek,ekd->d", excess_density, rest_t, slip.tangent)
    table = wall.profile.gather
    in_g = table[:, :3] * taken[:, :1] + np.einsum(
        "pja,pa->pj", table[:, 3:].reshape(-1, 3, 3), taken[:, 1:]
    )
    moment_g = np.zeros((n_el, len(C), 3))
    np.add.at(moment_g, (element, wall.gather_q), in_g)
    b = np.einsum("eij,ekj->eki", wall.profile.gram, np.einsum("ekq,eqj->ekj", ct, moment_g))
    beta = np.einsum("ekq,ekj->eqj", slip.slip, b)  # [E, q, 3]
    slot = np.repeat(np.arange(len(wall.slot_cell)), np.diff(wall.scatter_start))
    e, q = wall.scatter_element, wall.scatter_q
    scatter = wall.profile.scatter
    add = np.zeros((len(slot), 4))
    add[:, 0] = wall.scatter_weight * extra[e, q] + (scatter[:, :3] * beta[e, q]).sum(axis=1)
    add[:, 1:] = wall.scatter_slope * extra[e, q][:, None] + np.einsum(
        "paj,pj->pa", scatter[:, 3:].reshape(-1, 3, 3), beta[e, q]
    )
    np.add.at(out, (slot, q), add)
    return out[:, :, 0].T, extra, rest_force


def projected_collide_slopes(
    pulled: np.ndarray, slope: np.ndarray, slot_cell: np.ndarray, tau: float
) -> np.ndarray:
    """The slots' slopes [S, q, 3] after BGK at tau (the incompressible equilibrium of
    `equilibrium`, as the kernel's) collides the populations across each slot, pulled[q, z, y, x]
    + s (r - r_x): the collision's derivative along each axis's slopes, analytic."""
    c = C.astype(float)
    flat = pulled.reshape(len(C), -1)[:, slot_cell]  # [q, S]
    u = c.T @ flat  # [3, S]: the incompressible equilibrium's velocity is its momentum
    cu = c @ u  # [q, S]
    ds_u = np.einsum("qb,sqa->sba", c, slope)  # [S, velocity axis, slope axis]
    ds_rho = slope.sum(axis=1)  # [S, slope axis]
    # d feq = w (d rho + 3 c.du + 9 (c.u)(c.du) - 3 u.du)
    c_du = np.einsum("qb,sba->sqa", c, ds_u)
    u_du = np.einsum("bs,sba->sa", u, ds_u)
    d_feq = W[None, :, None] * (
        ds_rho[:, None] + 3 * c_du + 9 * cu.T[:, :, None] * c_du - 3 * u_du[:, None]
    )
    return slope - (slope - d_feq) / tau

// One cell of one time step, and the per-cell initialisation and moments, written once for the
// GPU (cuda/lbm.cu) and the CPU (cuda/host/lbm_host_shell.h). The lattice and the calling interface
// are in lbm_lattice.cuh, the collision in lbm_collision.cuh, the boundary rules in
// lbm_boundaries.cuh.
//
// Scheme: fused pull stream-and-collide. The buffers hold post-collision populations; a step
// pulls f_q(x) from f_src at x - c_q (or from a boundary rule), collides and writes f_dst at x.
#pragma once

#include "lbm_subgrid.cuh"
#include "lbm_volumetric.cuh"
#include "lbm_wall_model.cuh"

// Index of the cell a bulk cell pulls link (cx, cy, cz) from, from the names xm, x, xp, ym, y, yp,
// zm, z, zp (source coordinates x-1, x, x+1, ... with periodic wrap applied), nx and nxy in scope;
// LBM_BULK_ROW is the start of its row.
#define LBM_BULK_ROW(cy, cz) \
    (nx * ((cy) > 0 ? ym : ((cy) < 0 ? yp : y)) + nxy * ((cz) > 0 ? zm : ((cz) < 0 ? zp : z)))
#define LBM_BULK_SOURCE(cx, cy, cz) (((cx) > 0 ? xm : ((cx) < 0 ? xp : x)) + LBM_BULK_ROW(cy, cz))

// The pull and collision of a fluid cell whose neighbours all stream plainly, into f. (xm, x, xp)
// etc. are the source coordinates x-1, x, x+1 with periodic wrap already applied.
template <int kCollision>
__device__ __forceinline__ void lbm_pull_collide_bulk_cell(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                           const int xm, const int x, const int xp,
                                                           const int ym, const int y, const int yp,
                                                           const int zm, const int z, const int zp,
                                                           const bool has_force, const float tau, float* f) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
#define LBM_PULL_BULK(q, cx, cy, cz, w) f[q] = lbm_pop_load(f_src[q * S + LBM_BULK_SOURCE(cx, cy, cz)]);
    D3Q19_LINKS(LBM_PULL_BULK)
#undef LBM_PULL_BULK
    lbm_collide<kCollision>(f, p, tau, has_force, nullptr);
}

// A fluid cell whose neighbours all stream plainly, pulled, collided with relaxation time tau
// (lbm_cell_tau; the CPU shell's vector loops take it from a chunk's array) and stored at n.
template <int kCollision>
__device__ __forceinline__ void lbm_update_bulk_cell(const lbm_pop* __restrict__ f_src,
                                                     lbm_pop* __restrict__ f_dst, const LbmParams& p,
                                                     const long long n,
                                                     const int xm, const int x, const int xp,
                                                     const int ym, const int y, const int yp,
                                                     const int zm, const int z, const int zp,
                                                     const bool has_force, const float tau) {
    const long long S = p.plane_stride;
    float f[19];
    lbm_pull_collide_bulk_cell<kCollision>(f_src, p, xm, x, xp, ym, y, yp, zm, z, zp, has_force, tau, f);
#define LBM_STORE(q, cx, cy, cz, w) f_dst[q * S + n] = lbm_pop_store(f[q]);
    D3Q19_LINKS(LBM_STORE)
#undef LBM_STORE
}

// ---- In-place streaming (resolution.streaming: aa) ---------------------------------------------
// One population buffer instead of two, after the AA pattern of Bailey, Myre, Walsh, Lilja & Kolb
// (2009, Proc. ICPP 2009, 550). The steps alternate between two layouts of the post-collision
// populations post(q, y) of the cells y:
//   parity 0, swapped: post(q, y) at [opp(q)][y];
//   parity 1, pushed:  post(q, y) at [q][y + c_q] (the index wrapped periodically).
// A step reads the layout it finds and leaves the other:
//   parity 0, the pushing step: cell x takes link q, post(q, x - c_q), from [opp(q)][x - c_q],
//     collides, and writes post(q, x) to [q][x + c_q];
//   parity 1, the local step: it takes post(q, x - c_q) from [q][x] and writes post(q, x) to
//     [opp(q)][x].
// Every slot a cell writes is one that only it reads in that step (pushing: [q][x + c_q] is where
// it took its link opp(q) from; local: its own slots), so the cells run in any order, in place,
// with the two-buffer pull's arithmetic on the same values: the populations are the pull's bit for
// bit. The shells run it for bulk cells only (solver/streaming.py refuses grids with other
// updated cells). LBM_BULK_DEST names the cell x + c_q, as LBM_BULK_SOURCE names x - c_q.
#define LBM_BULK_DEST(cx, cy, cz) LBM_BULK_SOURCE(-(cx), -(cy), -(cz))

template <int kCollision, int kParity>
__device__ __forceinline__ void lbm_update_bulk_cell_in_place(lbm_pop* f, const LbmParams& p, const long long n,
                                                              const int xm, const int x,
                                                              const int xp, const int ym, const int y,
                                                              const int yp, const int zm, const int z,
                                                              const int zp, const bool has_force, const float tau) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    float fl[19];
    if (kParity == 0) {
#define LBM_PULL_SWAPPED(q, cx, cy, cz, w) fl[q] = lbm_pop_load(f[LBM_OPP(q) * S + LBM_BULK_SOURCE(cx, cy, cz)]);
        D3Q19_LINKS(LBM_PULL_SWAPPED)
#undef LBM_PULL_SWAPPED
        lbm_collide<kCollision>(fl, p, tau, has_force, nullptr);
#define LBM_PUSH(q, cx, cy, cz, w) f[q * S + LBM_BULK_DEST(cx, cy, cz)] = lbm_pop_store(fl[q]);
        D3Q19_LINKS(LBM_PUSH)
#undef LBM_PUSH
    } else {
#define LBM_PULL_OWN(q, cx, cy, cz, w) fl[q] = lbm_pop_load(f[q * S + n]);
        D3Q19_LINKS(LBM_PULL_OWN)
#undef LBM_PULL_OWN
        lbm_collide<kCollision>(fl, p, tau, has_force, nullptr);
#define LBM_STORE_SWAPPED(q, cx, cy, cz, w) f[LBM_OPP(q) * S + n] = lbm_pop_store(fl[q]);
        D3Q19_LINKS(LBM_STORE_SWAPPED)
#undef LBM_STORE_SWAPPED
    }
}

// The flags of a cell's link sources, nb[q] that of x - c_q, from its neighbours' coordinates with
// periodic wrap applied (xm = x - 1 wrapped, ...).
__device__ __forceinline__ void lbm_source_flags(const LbmParams& p, const int xm, const int x, const int xp,
                                                 const int ym, const int y, const int yp, const int zm,
                                                 const int z, const int zp, unsigned char* nb) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
#define LBM_SOURCE_FLAG(q, cx, cy, cz, w) nb[q] = p.flags[LBM_BULK_SOURCE(cx, cy, cz)];
    D3Q19_LINKS(LBM_SOURCE_FLAG)
#undef LBM_SOURCE_FLAG
}

// The pull of a fluid cell next to a wall or with special neighbours: every link checks its
// source cell, and the links from a wall take its rule, adding the momentum they hand to the body
// to force. With the wall model on, the wall links then take the model's blend
// (lbm_wall_model.cuh); returns whether the law's stress acted on the body through them, with
// the tangential force on the body in friction. f receives the populations the collision takes.
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ bool lbm_pull_boundary_cell(const lbm_pop* __restrict__ f_src,
                                                       const float* __restrict__ q_links,
                                                       const float* __restrict__ area,
                                                       const float* __restrict__ wall,
                                                       const LbmParams& p, const long long n,
                                                       const long long slot, const int x, const int y,
                                                       const int z, float* f, float* force,
                                                       float* friction) {
    if (p.n_vol_elements && p.vol_index[n] >= 0) {  // the volumetric wall (lbm_volumetric.cuh)
        lbm_volumetric_pull<kCollision, kLayout>(f_src, p, n, p.vol_index[n], x, y, z, f);
        return false;
    }
    // Interpolated bounce-back does not return to the cell the mass its body links send to the
    // wall (the sum of f_out - f_in over them). Under the wall model's surface rule, whose slip is solved from
    // the links' exchange, the defect goes back to those links in proportion to their weights, so
    // the body neither gains nor loses mass: on the pipe at 10 cells of radius the mean density
    // fell by 0.3% per 1000 steps without this, and put in the rest population instead (mass
    // without momentum) the near-wall flow ran away. Elsewhere the validated cases keep plain
    // interpolated bounce-back (docs/solver.md, "Wall model on bodies").
    float defect = 0.0f, w_body = 0.0f;
    unsigned int body_links = 0u;
    // The sources x - c of the 19 links from the wrapped neighbour coordinates (LBM_BULK_SOURCE),
    // and their flags, read once for the rules and the wall model: nb[q] is that of link q's source.
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
    const int xm = lbm_wrap(x - 1, p.nx), xp = lbm_wrap(x + 1, p.nx), ym = lbm_wrap(y - 1, p.ny),
              yp = lbm_wrap(y + 1, p.ny), zm = lbm_wrap(z - 1, p.nz), zp = lbm_wrap(z + 1, p.nz);
    unsigned char nb[19];
    lbm_source_flags(p, xm, x, xp, ym, y, yp, zm, z, zp, nb);
    // Every link's source is loaded first and a wall's rule replaces it: the plain links' loads
    // then do not wait on the branch (a demo sample 1.02-1.05 times faster, docs/performance.md).
#define LBM_PULL_GENERAL(q, cx, cy, cz, w)                                                   \
    {                                                                                        \
        f[q] = lbm_pop_load(f_src[lbm_incoming_index<kLayout>(p, q, n, LBM_BULK_SOURCE(cx, cy, cz))]); \
        if (!lbm_pulls_plainly(nb[q])) {                                                     \
            f[q] = lbm_pull_from_wall<kCollision, kLayout>(f_src, q_links, p, n, q, cx, cy, cz, w, x, y, z, nb, \
                                                           force);                           \
            if ((nb[q] & FLAG_BODY) && q_links) {                                            \
                defect += lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, \
                                                                     z)]) - f[q];            \
                w_body += (w);                                                               \
                body_links |= 1u << q;                                                       \
            }                                                                                \
        }                                                                                    \
    }
    D3Q19_LINKS(LBM_PULL_GENERAL)
#undef LBM_PULL_GENERAL
    // With the pooling (lbm_wall_pool.cuh) the pool hands each cell's mass gain back over its patch.
    // The slip rule returns none (docs/validation.md, "The links' exchange pinned to the law").
    if (body_links && p.wall_model == LBM_WALL_LOGLAW && p.wall_body_rule == LBM_WALL_BODY_SURFACE &&
        p.n_pool_slots == 0) {
        const float per_weight = defect / w_body;
#define LBM_RETURN_MASS(q, cx, cy, cz, w)         \
    if (body_links & (1u << q)) {                 \
        const float df = (w) * per_weight;        \
        f[q] += df;                               \
        force[0] -= LBM_CV(cx, df);               \
        force[1] -= LBM_CV(cy, df);               \
        force[2] -= LBM_CV(cz, df);               \
    }
        D3Q19_LINKS(LBM_RETURN_MASS)
#undef LBM_RETURN_MASS
    }
    // the cell's mass were its body links to return what it sent them
    const bool pooled = p.n_pool_slots && slot >= 0;
    float sent_back = 0.0f;
    if (pooled) {
#define LBM_SENT_BACK(q, cx, cy, cz, w)                                                                     \
    sent_back += (body_links & (1u << q))                                                                   \
                     ? lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]) \
                     : f[q];
        D3Q19_LINKS(LBM_SENT_BACK)
#undef LBM_SENT_BACK
    }
    const bool modelled = p.wall_model == LBM_WALL_LOGLAW &&
                          lbm_wall_function<kCollision, kLayout>(f_src, q_links, area, wall, p, n, x, y, z, nb,
                                                                 f, force, friction);
    if (pooled) {  // the mass the cell gained through its body links
        float mass = 0.0f;
#define LBM_CELL_MASS(q, cx, cy, cz, w) mass += f[q];
        D3Q19_LINKS(LBM_CELL_MASS)
#undef LBM_CELL_MASS
        p.pool_residual[4 * slot + 3] = mass - sent_back;
    }
    return modelled;
}

// The tunnel's no-slip walls and the rolling road are filled before each step, as the free-slip
// walls are (lbm_fill_freeslip): a fluid cell n next to them that is next to nothing else but cells
// it pulls plainly (an entry of p.wall_fill_cells: solver/wall_fill.py, wall_fill_cells) takes its
// links from those walls by the wall rules (lbm_pull_from_wall) and, with the wall model on, its
// blend (lbm_wall_function), the very values the general pull would give it, and they are written
// where its pull reads them: link q's into the wall cell n - c_q, a population no other cell reads.
// The cell then streams as a bulk cell. The rules read f at fluid cells only (the cell's outgoing
// populations, the wall model's sample), never at a wall, so the entries may be filled in any order
// and beside the free-slip walls. On the channel 6% of the cells are next to a wall, and their
// general pull and batched collision took 20-33% of the step (docs/performance.md).
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_fill_wall_links(lbm_pop* f, const LbmParams& p, const long long n,
                                                    const int xm, const int x, const int xp, const int ym,
                                                    const int y, const int yp, const int zm, const int z,
                                                    const int zp) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
    unsigned char nb[19];
    lbm_source_flags(p, xm, x, xp, ym, y, yp, zm, z, zp, nb);
    float f_in[19], force[3] = {0.0f, 0.0f, 0.0f}, friction[3];
#define LBM_WALL_RULE(q, cx, cy, cz, w) \
    f_in[q] = lbm_pulls_plainly(nb[q]) ? 0.0f                                                                 \
                                       : lbm_pull_from_wall<kCollision, kLayout>(f, nullptr, p, n, q, cx, cy, cz, w, x, \
                                                                                 y, z, nb, force);
    D3Q19_LINKS(LBM_WALL_RULE)
#undef LBM_WALL_RULE
    if (p.wall_model == LBM_WALL_LOGLAW)
        lbm_wall_function<kCollision, kLayout>(f, nullptr, nullptr, nullptr, p, n, x, y, z, nb, f_in, force, friction);
#define LBM_FILL_WALL(q, cx, cy, cz, w) \
    if (!lbm_pulls_plainly(nb[q])) f[lbm_incoming_index<kLayout>(p, q, n, LBM_BULK_SOURCE(cx, cy, cz))] = lbm_pop_store(f_in[q]);
    D3Q19_LINKS(LBM_FILL_WALL)
#undef LBM_FILL_WALL
}

// A filled cell whose only wall is the plane across its face kFace (the link whose source is the
// wall straight across, numbered as lbm_axis_link does: 1 .. 6 for +x, -x, +y, -y, +z, -z): the
// five links with that component come from walls of one kind, resting or (kMoving, across a y or
// z face) the rolling road, and the other fourteen from cells it pulls plainly
// (solver/wall_fill.py, wall_fill_faces). For it lbm_fill_wall_links reduces to this, with the
// same arithmetic in the same order: no flags read but the sample's, one group whose links and
// mirrors are fixed at compile time, the wall's distance 1/2 and its cut the whole face. On the
// channel it filled its walls' cells fast enough to run the whole step 1.16-1.18 times faster
// than lbm_fill_wall_links did (one thread; docs/performance.md). (xm, x, xp) etc. are the
// coordinates with periodic wrap applied, as lbm_pull_collide_bulk_cell takes them. kLayout is
// the buffer's (lbm_post_index): in place, the wall's links go where the next step reads them
// (lbm_incoming_index), slots that hold no population of the last step (the wall's own, or the
// cell's link from the wall, which no fluid cell pushed), so the fill reads and writes one buffer.
template <int kCollision, int kFace, bool kMoving, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_fill_plane_wall(lbm_pop* f, const LbmParams& p, const long long n,
                                                    const int xm, const int x, const int xp,
                                                    const int ym, const int y, const int yp,
                                                    const int zm, const int z, const int zp) {
    constexpr int k = (kFace - 1) / 2;
    constexpr int side = (kFace & 1) ? 1 : -1;  // the wall lies on the -side side of axis k
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
    // Per wall link: the no-slip value, the specular one (c's k component reversed) and the
    // population leaving the cell towards the wall.
    float f_ns[19], f_sp[19], f_out[19];
#define LBM_PLANE_MEMBER(cx, cy, cz) ((k == 0 ? (cx) : (k == 1 ? (cy) : (cz))) == side)
#define LBM_PLANE_RULE(q, cx, cy, cz, w)                                                               \
    if (LBM_PLANE_MEMBER(cx, cy, cz)) {                                                                \
        const int mir = LBM_LINK_OF[((k == 0 ? -(cx) : (cx)) + 1) + 3 * ((k == 1 ? -(cy) : (cy)) + 1) + \
                                    9 * ((k == 2 ? -(cz) : (cz)) + 1)];                                \
        f_out[q] = lbm_pop_load(f[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]); \
        f_sp[q] = lbm_pop_load(f[lbm_post_index<kLayout>(p, mir, k == 0 ? -(cx) : (cx), k == 1 ? -(cy) : (cy), \
                                                         k == 2 ? -(cz) : (cz), n, x, y, z)]);               \
        if (kMoving) {                                                                                 \
            const float e_opp = p.wall_feq[LBM_OPP(q)] + (w), e_mir = p.wall_feq[mir] + (w);           \
            const float s = (e_opp - e_mir) / (e_opp + e_mir);                                         \
            f_ns[q] = (1.0f - s) * f_out[q] - s * f_sp[q] - 2.0f * s * (w);                            \
        } else {                                                                                       \
            f_ns[q] = f_out[q];                                                                        \
        }                                                                                              \
    }
    D3Q19_LINKS(LBM_PLANE_RULE)
#undef LBM_PLANE_RULE
    float r = 1.0f;  // the no-slip rule's share
    if (p.wall_model == LBM_WALL_LOGLAW) {
        float rho, u_own[3];
        lbm_sample_velocity<kCollision, kLayout>(f, p, n, x, y, z, &rho, u_own);
        // The input: the cell wall_sample - 1 out along the normal where it is fluid, else the
        // cell's own (lbm_wall_sample), read from whichever it is.
        const int off = side * (p.wall_sample - 1);
        const int sx = x + (k == 0 ? off : 0), sy = y + (k == 1 ? off : 0), sz = z + (k == 2 ? off : 0);
        const long long s_cell = lbm_index(p, sx, sy, sz);
        const bool sampled = off != 0 && (p.flags[s_cell] & FLAG_TYPE_MASK) == FLAG_FLUID;
        float rho_s, u[3];
        if (sampled)
            lbm_sample_velocity<kCollision, kLayout>(f, p, s_cell, sx, sy, sz, &rho_s, u);
        else
            lbm_sample_velocity<kCollision, kLayout>(f, p, n, x, y, z, &rho_s, u);
        const float y_offset = sampled ? (float)off * (float)side : 0.0f;
        if (kMoving) {
            u[0] -= p.wall_ux;
            u[1] -= p.wall_uy;
            u[2] -= p.wall_uz;
        }
        float t[3] = {u[0], u[1], u[2]};
        t[k] = 0.0f;  // the tangential part: u less its part along the normal
        const float u_t = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        LBM_UNROLL
        for (int j = 0; j < 3; ++j) t[j] /= u_t;
        float d_bb = 0.0f, d_sp = 0.0f, y_sum = 0.0f, w_sum = 0.0f, cut = 0.0f;
#define LBM_PLANE_EXCHANGE(q, cx, cy, cz, w)                              \
    if (LBM_PLANE_MEMBER(cx, cy, cz)) {                                   \
        const float ct = LBM_CV(cx, t[0]) + LBM_CV(cy, t[1]) + LBM_CV(cz, t[2]); \
        d_bb += ct * (f_ns[q] + f_out[q]);                                \
        d_sp += ct * (f_sp[q] + f_out[q]);                                \
        y_sum += (w) * 0.5f;                                              \
        w_sum += (w);                                                     \
        cut += (w);                                                       \
    }
        D3Q19_LINKS(LBM_PLANE_EXCHANGE)
#undef LBM_PLANE_EXCHANGE
        const float y_wall = fmaxf(y_sum / w_sum, 0.05f) + y_offset;
        const float u_tau = u_t / lbm_spalding_u_plus(p, u_t * y_wall / p.nu_lattice);
        const float target = -rho * u_tau * u_tau * 1.0f * (cut / cut);
        const float span = d_bb - d_sp;
        if (u_t > 1e-12f && span < -1e-20f) r = fminf(fmaxf((target - d_sp) / span, 0.0f), 1.0f);
    }
#define LBM_PLANE_FILL(q, cx, cy, cz, w)                                                          \
    if (LBM_PLANE_MEMBER(cx, cy, cz))                                                             \
        f[lbm_incoming_index<kLayout>(p, q, n, LBM_BULK_SOURCE(cx, cy, cz))] =                   \
            lbm_pop_store(r * f_ns[q] + (1.0f - r) * f_sp[q]);
    D3Q19_LINKS(LBM_PLANE_FILL)
#undef LBM_PLANE_FILL
#undef LBM_PLANE_MEMBER
}

// Entry i of the cells whose wall links are filled before the step (p.wall_fill_cells): by
// lbm_fill_plane_wall where its only wall is a plane (p.wall_fill_face[i]: the face's link, plus 6
// for the road), else by lbm_fill_wall_links; kLayout the buffer's (lbm_post_index).
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_fill_wall_cell(lbm_pop* f, const LbmParams& p, const long long i) {
    const long long n = p.wall_fill_cells[i];
    const long long nxy = (long long)p.nx * p.ny;
    const int x = (int)(n % p.nx), y = (int)((n / p.nx) % p.ny), z = (int)(n / nxy);
    const int xm = lbm_wrap(x - 1, p.nx), xp = lbm_wrap(x + 1, p.nx), ym = lbm_wrap(y - 1, p.ny),
              yp = lbm_wrap(y + 1, p.ny), zm = lbm_wrap(z - 1, p.nz), zp = lbm_wrap(z + 1, p.nz);
    switch (p.wall_fill_face[i]) {
#define LBM_PLANE_CASE(code, face, moving)                                                              \
    case code:                                                                                          \
        lbm_fill_plane_wall<kCollision, face, moving, kLayout>(f, p, n, xm, x, xp, ym, y, yp, zm, z, zp); \
        return;
        LBM_PLANE_CASE(1, 1, false)
        LBM_PLANE_CASE(2, 2, false)
        LBM_PLANE_CASE(3, 3, false)
        LBM_PLANE_CASE(4, 4, false)
        LBM_PLANE_CASE(5, 5, false)
        LBM_PLANE_CASE(6, 6, false)
        LBM_PLANE_CASE(9, 3, true)
        LBM_PLANE_CASE(10, 4, true)
        LBM_PLANE_CASE(11, 5, true)
        LBM_PLANE_CASE(12, 6, true)
#undef LBM_PLANE_CASE
        default:
            lbm_fill_wall_links<kCollision, kLayout>(f, p, n, xm, x, xp, ym, y, yp, zm, z, zp);
    }
}

// What a fluid cell next to the body (slot k) writes to cell_force[9k .. 9k+8] after its
// collision: the force its links hand to the body in this step (momentum exchange), then its
// pressure force -p a_k and its viscous force sigma a_k (with the wall model: the tangential
// force of its wall links, the modelled wall shear) on the surface it stands for
// (slot_area[3k .. 3k+2], the area vector of the body's surface around it; zero without a
// surface). The shells reduce these in a fixed order.
__device__ __forceinline__ void lbm_report_slot(const LbmParams& p, const long long k,
                                                const float* force, const LbmWallState& wall,
                                                const bool modelled, const float* friction) {
    const float* a = p.slot_area + 3 * k;
    const float* s = wall.sigma;
    float* out = p.cell_force + 9 * k;
    out[0] = force[0];
    out[1] = force[1];
    out[2] = force[2];
    out[3] = -wall.pressure * a[0];
    out[4] = -wall.pressure * a[1];
    out[5] = -wall.pressure * a[2];
    if (modelled) {  // the wall model's shear: the tangential exchange of the links
        out[6] = friction[0];
        out[7] = friction[1];
        out[8] = friction[2];
    } else {
        out[6] = s[0] * a[0] + s[3] * a[1] + s[4] * a[2];
        out[7] = s[3] * a[0] + s[1] * a[1] + s[5] * a[2];
        out[8] = s[4] * a[0] + s[5] * a[1] + s[2] * a[2];
    }
}

// A fluid cell that takes the general pull (next to the body or a wall the step does not fill),
// pulled from f_src in the layout kLayout (lbm_post_index), collided into f; a cell next to the
// body (boundary_index[n] = k >= 0) reports its forces (lbm_report_slot). With interpolated != 0
// it reads its wall fractions from link_q[18k .. 18k+17].
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_general_fluid_cell(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                       const long long n, const int x, const int y, const int z,
                                                       float* f) {
    const long long k = p.boundary_index[n];
    const float* q_links = (p.interpolated && k >= 0) ? p.link_q + 18 * k : nullptr;
    const float* a = k >= 0 ? p.slot_area + 3 * k : nullptr;
    const float* wall_geo = k >= 0 ? p.slot_wall + LBM_WALL_FIELDS * k : nullptr;
    float force[3] = {0.0f, 0.0f, 0.0f}, friction[3];
    const bool modelled = lbm_pull_boundary_cell<kCollision, kLayout>(f_src, q_links, a, wall_geo, p, n, k, x, y,
                                                                      z, f, force, friction);
    LbmWallState wall;
    lbm_collide<kCollision>(f, p, lbm_cell_tau(p, x, n), p.has_force, k >= 0 ? &wall : nullptr);
    if (k >= 0) lbm_report_slot(p, k, force, wall, modelled, friction);
}

// One cell of one time step, any type, as the GPU runs it (the CPU shell composes the same
// pieces, batching the collisions of boundary cells). (x, y, z) are the cell's coordinates, n its
// index.
template <int kCollision>
__device__ __forceinline__ void lbm_update_cell(const lbm_pop* __restrict__ f_src,
                                                lbm_pop* __restrict__ f_dst, const LbmParams& p,
                                                const long long n, const int x, const int y,
                                                const int z) {
    const unsigned char flag = p.flags[n];
    const int type = flag & FLAG_TYPE_MASK;
    if (type == FLAG_FLUID) {
        if (flag & FLAG_BULK) {
            lbm_update_bulk_cell<kCollision>(f_src, f_dst, p, n, lbm_wrap(x - 1, p.nx), x,
                                             lbm_wrap(x + 1, p.nx), lbm_wrap(y - 1, p.ny), y,
                                             lbm_wrap(y + 1, p.ny), lbm_wrap(z - 1, p.nz), z,
                                             lbm_wrap(z + 1, p.nz), p.has_force, lbm_cell_tau(p, x, n));
        } else {
            const long long S = p.plane_stride;
            float f[19];
            lbm_general_fluid_cell<kCollision>(f_src, p, n, x, y, z, f);
#define LBM_STORE(q, cx, cy, cz, w) f_dst[q * S + n] = lbm_pop_store(f[q]);
            D3Q19_LINKS(LBM_STORE)
#undef LBM_STORE
        }
    } else if (type == FLAG_INLET) {
        lbm_update_open_cell<kCollision>(f_src, f_dst, p, n, x, y, z, y + (long long)p.ny * z);
    } else if (type == FLAG_OUTFLOW) {
        lbm_update_open_cell<kCollision>(f_src, f_dst, p, n, x, y, z, -1);
    }
}

// In-place streaming's cells that take the general pull (p.general_cells: fluid cells next to the
// body or to a wall the step does not fill, inlets, outflows). Their rules read populations the
// plain pull does not, and some of those another cell writes in the same step (interpolated
// bounce-back with q_w >= 1/2 reads the cell's own post(q, x), which at parity 0 lies in plane
// opp(q) at x, where the cell x + c_q pushes its link opp(q); the wall model's sample and an
// outflow's neighbour). So they run first, while nothing of the step is written: entry i is
// pulled from f in the layout kLayout and collided into p.general_out[q m + i] (m = n_general);
// after the bulk, lbm_general_cell_back puts it where the next layout keeps the cell's
// populations, slots only the cell itself reads.
template <int kCollision, int kLayout>
__device__ __forceinline__ void lbm_general_cell_aside(const lbm_pop* f, const LbmParams& p, const long long i) {
    const long long n = p.general_cells[i], nxy = (long long)p.nx * p.ny;
    const int x = (int)(n % p.nx), y = (int)((n / p.nx) % p.ny), z = (int)(n / nxy);
    const int type = p.flags[n] & FLAG_TYPE_MASK;
    float fl[19];
    if (type == FLAG_FLUID)
        lbm_general_fluid_cell<kCollision, kLayout>(f, p, n, x, y, z, fl);
    else
        lbm_open_cell<kCollision, kLayout>(f, p, n, x, y, z, type == FLAG_INLET ? y + (long long)p.ny * z : -1, fl);
#define LBM_ASIDE(q, cx, cy, cz, w) p.general_out[q * p.n_general + i] = fl[q];
    D3Q19_LINKS(LBM_ASIDE)
#undef LBM_ASIDE
}

// Entry i's collided populations from p.general_out into f, in the layout kLayoutAfter the step
// leaves (lbm_post_index).
template <int kLayoutAfter>
__device__ __forceinline__ void lbm_general_cell_back(lbm_pop* f, const LbmParams& p, const long long i) {
    const long long n = p.general_cells[i], nxy = (long long)p.nx * p.ny;
    const int x = (int)(n % p.nx), y = (int)((n / p.nx) % p.ny), z = (int)(n / nxy);
#define LBM_BACK(q, cx, cy, cz, w) \
    f[lbm_post_index<kLayoutAfter>(p, q, cx, cy, cz, n, x, y, z)] = lbm_pop_store(p.general_out[q * p.n_general + i]);
    D3Q19_LINKS(LBM_BACK)
#undef LBM_BACK
}

// Equilibrium initialisation of one cell from moments: 4 planes of n_cells (rho, ux, uy, uz).
template <int kCollision>
__device__ __forceinline__ void lbm_init_cell(lbm_pop* __restrict__ f, const float* __restrict__ moments,
                                              const long long n_cells, const long long plane_stride,
                                              const long long n) {
    float feq[19];
    lbm_equilibrium<kCollision>(feq, moments[n], moments[n_cells + n], moments[2 * n_cells + n],
                    moments[3 * n_cells + n]);
#define LBM_STORE_INIT(q, cx, cy, cz, w) f[q * plane_stride + n] = lbm_pop_store(feq[q]);
    D3Q19_LINKS(LBM_STORE_INIT)
#undef LBM_STORE_INIT
}

// Density and velocity of the stored (post-collision) populations of one cell (j / rho_0 or
// j / rho, as the operator's equilibrium defines it), into moments: 4 planes of n_cells (rho, ux,
// uy, uz). With a body force the post-collision momentum is j + F, so the physical (Guo)
// velocity is this velocity minus g / 2.
template <int kCollision>
__device__ __forceinline__ void lbm_moments_cell(const lbm_pop* __restrict__ f, float* __restrict__ moments,
                                                 const long long n_cells,
                                                 const long long plane_stride, const long long n) {
    float fl[19];
#define LBM_LOAD(q, cx, cy, cz, w) fl[q] = lbm_pop_load(f[q * plane_stride + n]);
    D3Q19_LINKS(LBM_LOAD)
#undef LBM_LOAD
    float rho, ux, uy, uz;
    lbm_moments<kCollision>(fl, &rho, &ux, &uy, &uz);
    moments[n] = rho;
    moments[n_cells + n] = ux;
    moments[2 * n_cells + n] = uy;
    moments[3 * n_cells + n] = uz;
}

// The compiler's layout of LbmParams, for the test that compares it with solver/kernel_params.py:
// out[0] = sizeof(LbmParams), then the offset of each field in the order of LBM_PARAMS.
__device__ __forceinline__ void lbm_params_layout_into(long long* out) {
    LbmParams s;
    int i = 0;
    out[i++] = (long long)sizeof(LbmParams);
#define LBM_PARAM_OFFSET(type, name) out[i++] = (long long)((const char*)&s.name - (const char*)&s);
    LBM_PARAMS(LBM_PARAM_OFFSET)
#undef LBM_PARAM_OFFSET
}

// Voxelization of a closed triangle mesh on the lattice, written once for the GPU
// (cuda/voxelize.cu) and the CPU (cuda/host/voxelize_host.cpp).
//
// Inside/outside by ray parity: a ray along +x through every row of cell centres (y_j, z_k);
// a cell centre is inside when an odd number of surface crossings lie before it on its row.
// Each triangle finds the rows its y-z shadow covers (one thread per triangle), so the work is
// O(triangles x rows per triangle), not O(cells x triangles).
//
// Robustness: a ray through an edge or a vertex must cross each sheet of the surface exactly
// once. The point-in-triangle test uses edge functions in double precision with a top-left tie
// rule (as watertight rasterizers do). Each edge function is evaluated from the edge's lesser
// endpoint, so the neighbouring triangle gets its exact negation, and the shells compile this
// file without fused multiply-adds (which would break x*y - y*x == 0 at vertices): a point on a
// shared edge belongs to exactly one of the two triangles. Triangles that face -x in the shadow are tested with their edges reversed, so
// at a silhouette, where a front and a back triangle share an edge, both or neither count and
// the parity is unchanged. Degenerate shadows (triangles edge-on to the ray) never count.
//
// Wall fractions: for each fluid cell next to the body and each link into the body, the
// fraction q in (0, 1] of the link to the nearest triangle it crosses (Moller & Trumbore 1997,
// ray-triangle intersection), reduced with an integer atomic minimum on the float's bits
// (positive floats order like their bit patterns).
#pragma once

#include "lbm_lattice.cuh"

struct VoxelGrid {
    int nx, ny, nz;
    double x0, y0, z0;  // centre of cell (0, 0, 0) [m]
    double dx;          // cell size [m]
};

// Edge function of edge a->b at point p in the y-z plane (twice the signed area of a, b, p).
// Always evaluated from the edge's lesser endpoint (in (y, z) order) and negated for the other
// direction, so the two triangles sharing an edge get exact negations of one value.
__device__ __forceinline__ double vox_edge(const double ay, const double az, const double by,
                                           const double bz, const double py, const double pz) {
    if (by < ay || (by == ay && bz < az)) return -((ay - by) * (pz - bz) - (az - bz) * (py - by));
    return (by - ay) * (pz - az) - (bz - az) * (py - ay);
}

// Top-left rule for a counter-clockwise edge a->b: a point exactly on it counts as inside when
// the edge runs downwards in z, or horizontally towards -y.
__device__ __forceinline__ bool vox_owns_edge(const double ay, const double az, const double by,
                                              const double bz) {
    return (bz < az) || (bz == az && by < ay);
}

__device__ __forceinline__ bool vox_inside_edge(const double e, const double ay, const double az,
                                                const double by, const double bz) {
    return e > 0.0 || (e == 0.0 && vox_owns_edge(ay, az, by, bz));
}

// Does the +x ray through (py, pz) cross triangle (a, b, c)? If so, *x_hit is where.
__device__ __forceinline__ bool vox_ray_hits(const double* a, const double* b, const double* c,
                                             const double py, const double pz, double* x_hit) {
    const double area = vox_edge(a[1], a[2], b[1], b[2], c[1], c[2]);
    if (area == 0.0) return false;
    // Work with a counter-clockwise shadow: swap b and c for triangles facing the other way.
    const double* B = area > 0.0 ? b : c;
    const double* C = area > 0.0 ? c : b;
    const double e_ab = vox_edge(a[1], a[2], B[1], B[2], py, pz);
    const double e_bc = vox_edge(B[1], B[2], C[1], C[2], py, pz);
    const double e_ca = vox_edge(C[1], C[2], a[1], a[2], py, pz);
    if (!vox_inside_edge(e_ab, a[1], a[2], B[1], B[2])) return false;
    if (!vox_inside_edge(e_bc, B[1], B[2], C[1], C[2])) return false;
    if (!vox_inside_edge(e_ca, C[1], C[2], a[1], a[2])) return false;
    const double sum = e_ab + e_bc + e_ca;
    *x_hit = (e_bc * a[0] + e_ca * B[0] + e_ab * C[0]) / sum;
    return true;
}

__device__ __forceinline__ void vox_load_triangle(const double* __restrict__ vertices,
                                                  const int* __restrict__ faces, const long long t,
                                                  double* a, double* b, double* c) {
    for (int i = 0; i < 3; ++i) {
        a[i] = vertices[3 * (long long)faces[3 * t] + i];
        b[i] = vertices[3 * (long long)faces[3 * t + 1] + i];
        c[i] = vertices[3 * (long long)faces[3 * t + 2] + i];
    }
}

// Index range [lo, hi] of rows whose centres origin + i dx may lie in [vmin, vmax], widened by
// one row each way (the division may round past a row that the exact edge test would take) and
// clamped to [0, n - 1] in floating point before the cast.
__device__ __forceinline__ void vox_index_range(const double vmin, const double vmax,
                                                const double origin, const double dx, const int n,
                                                int* lo, int* hi) {
    const double l = ceil((vmin - origin) / dx) - 1.0, h = floor((vmax - origin) / dx) + 1.0;
    *lo = (int)fmin(fmax(l, 0.0), (double)n);
    *hi = (int)fmax(fmin(h, (double)(n - 1)), -1.0);
}

// Rows [j0, j1] x [k0, k1] whose centres can lie in the triangle's y-z shadow (empty if j0 > j1).
__device__ __forceinline__ void vox_row_range(const double* a, const double* b, const double* c,
                                              const VoxelGrid& g, int* j0, int* j1, int* k0,
                                              int* k1) {
    vox_index_range(fmin(a[1], fmin(b[1], c[1])), fmax(a[1], fmax(b[1], c[1])), g.y0, g.dx, g.ny, j0, j1);
    vox_index_range(fmin(a[2], fmin(b[2], c[2])), fmax(a[2], fmax(b[2], c[2])), g.z0, g.dx, g.nz, k0, k1);
}

// Pass 1 (count) and pass 2 (record) for triangle t: with hits == null, count the crossings of
// each row into row_count; else write each crossing's x into hits[row_start[row] + slot], the
// slot taken from row_fill by an atomic increment.
__device__ __forceinline__ void vox_triangle_rows(const double* __restrict__ vertices,
                                                  const int* __restrict__ faces, const long long t,
                                                  const VoxelGrid& g, int* row_count,
                                                  const long long* __restrict__ row_start,
                                                  int* row_fill, double* hits) {
    double a[3], b[3], c[3];
    vox_load_triangle(vertices, faces, t, a, b, c);
    int j0, j1, k0, k1;
    vox_row_range(a, b, c, g, &j0, &j1, &k0, &k1);
    for (int k = k0; k <= k1; ++k) {
        for (int j = j0; j <= j1; ++j) {
            double x_hit;
            if (!vox_ray_hits(a, b, c, g.y0 + j * g.dx, g.z0 + k * g.dx, &x_hit)) continue;
            const long long row = j + (long long)g.ny * k;
            if (hits) {
                const int slot = atomicAdd(&row_fill[row], 1);
                hits[row_start[row] + slot] = x_hit;
            } else {
                atomicAdd(&row_count[row], 1);
            }
        }
    }
}

// Pass 3 for one row: sort its crossings and mark the cells whose centres lie inside (odd number
// of crossings before them) with 1 in inside[row * nx + i].
__device__ __forceinline__ void vox_fill_row(const long long row, const VoxelGrid& g,
                                             const long long* __restrict__ row_start,
                                             double* hits, unsigned char* __restrict__ inside) {
    const long long begin = row_start[row], end = row_start[row + 1];
    for (long long i = begin + 1; i < end; ++i) {  // insertion sort: rows hold a few crossings
        const double v = hits[i];
        long long k = i - 1;
        while (k >= begin && hits[k] > v) {
            hits[k + 1] = hits[k];
            --k;
        }
        hits[k + 1] = v;
    }
    long long next = begin;
    bool in = false;
    for (int i = 0; i < g.nx; ++i) {
        const double x = g.x0 + i * g.dx;
        while (next < end && hits[next] < x) {
            in = !in;
            ++next;
        }
        inside[row * g.nx + i] = in ? 1 : 0;
    }
}

__device__ __forceinline__ int vox_wrap(const int i, const int n) { return i < 0 ? i + n : (i >= n ? i - n : i); }

// Pass 4 for triangle t: for every fluid cell near the triangle that borders the body
// (slot[n] >= 0) and every link q whose source cell n - c_q (wrapped) is in the body (body != 0),
// lower link_q_bits[18 slot + q - 1] to the bits of the fraction where the link from the cell
// centre towards the source cell crosses the triangle.
__device__ __forceinline__ void vox_triangle_links(const double* __restrict__ vertices,
                                                   const int* __restrict__ faces,
                                                   const long long t, const VoxelGrid& g,
                                                   const int* __restrict__ slot,
                                                   const unsigned char* __restrict__ body,
                                                   int* link_q_bits) {
#define VOX_LINK(q, cx, cy, cz, w) {cx, cy, cz},
    const int LINKS[19][3] = {D3Q19_LINKS(VOX_LINK)};  // LINKS[q]: link q; 0 is the rest link
#undef VOX_LINK
    double a[3], b[3], c[3];
    vox_load_triangle(vertices, faces, t, a, b, c);
    const double o[3] = {g.x0, g.y0, g.z0};
    const int n_axis[3] = {g.nx, g.ny, g.nz};
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
        vox_index_range(fmin(a[d], fmin(b[d], c[d])), fmax(a[d], fmax(b[d], c[d])), o[d], g.dx,
                        n_axis[d], &lo[d], &hi[d]);
    }
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    for (int k = lo[2]; k <= hi[2]; ++k) {
        for (int j = lo[1]; j <= hi[1]; ++j) {
            for (int i = lo[0]; i <= hi[0]; ++i) {
                const long long n = i + (long long)g.nx * (j + (long long)g.ny * k);
                const int s = slot[n];
                if (s < 0) continue;
                const double p[3] = {o[0] + i * g.dx, o[1] + j * g.dx, o[2] + k * g.dx};
                for (int q = 1; q < 19; ++q) {
                    // A source past the grid's edge lies across a periodic face (the other faces
                    // have boundary layers): wrap it, as the stream does. The segment stays
                    // geometric, so it finds the surface where the mesh runs on past the face.
                    const int si = vox_wrap(i - LINKS[q][0], g.nx), sj = vox_wrap(j - LINKS[q][1], g.ny),
                              sk = vox_wrap(k - LINKS[q][2], g.nz);
                    if (!body[si + (long long)g.nx * (sj + (long long)g.ny * sk)]) continue;
                    // Segment p + t d, d = -c_q dx, against the triangle (Moller-Trumbore).
                    const double d[3] = {-LINKS[q][0] * g.dx, -LINKS[q][1] * g.dx, -LINKS[q][2] * g.dx};
                    const double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                                         d[0] * e2[1] - d[1] * e2[0]};
                    const double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
                    if (det == 0.0) continue;
                    const double inv = 1.0 / det;
                    const double sv[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
                    const double u = inv * (sv[0] * h[0] + sv[1] * h[1] + sv[2] * h[2]);
                    if (u < 0.0 || u > 1.0) continue;
                    const double qv[3] = {sv[1] * e1[2] - sv[2] * e1[1], sv[2] * e1[0] - sv[0] * e1[2],
                                          sv[0] * e1[1] - sv[1] * e1[0]};
                    const double v = inv * (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]);
                    if (v < 0.0 || u + v > 1.0) continue;
                    const double tt = inv * (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]);
                    if (tt < 0.0 || tt > 1.0) continue;
                    const float frac = tt < 1e-6 ? 1e-6f : (float)tt;
                    atomicMin(&link_q_bits[18 * (long long)s + q - 1], __float_as_int(frac));
                }
            }
        }
    }
}

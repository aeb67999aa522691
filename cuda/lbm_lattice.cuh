// The D3Q19 lattice as every kernel sees it: cell flags, the link table, and the kernels'
// calling interface (LbmParams). Lattice units throughout: dx = dt = 1, rho_0 = 1.
//
// Storage: structure of arrays, f[q * plane_stride + n] with n = x + nx * (y + ny * z) and
// plane_stride >= nx * ny * nz (padding keeps the 19 planes out of each other's cache sets).
// Populations are stored shifted by their rest weight, f_stored = f - w_q ("DDF shifting",
// Lehmann et al. 2022, Phys. Rev. E 106, 015308): float32 then resolves density deviations of
// order 1e-7 instead of losing them against the constant w_q.
#pragma once

// ---- cell flags (one byte per cell; the low nibble is the type) ------------------------------
#define FLAG_FLUID 0     // ordinary fluid cell
#define FLAG_SOLID 1     // no-slip wall, halfway bounce-back
#define FLAG_INLET 2     // velocity inlet on the x-min face
#define FLAG_OUTFLOW 3   // outflow on the x-max face
#define FLAG_FREESLIP 4  // free-slip wall, specular reflection
#define FLAG_MOVING 5    // no-slip wall moving with the wall velocity (the rolling road)
#define FLAG_GHOST 6     // filled by the coupling of refinement levels (lbm_refinement.cuh): streams
                         // plainly into its neighbours, is not updated by the step
#define FLAG_TYPE_MASK 0x0F
#define FLAG_BODY 0x10   // on a SOLID cell: links into it count in the body force
#define FLAG_BULK 0x20   // on a FLUID cell: it pulls all 18 links plainly (its neighbours stream
                         // plainly or are walls filled before the step; solver/wall_fill.py mark_bulk)

// ---- population storage (resolution.storage) --------------------------------------------------
// The kernels compute in float32 whatever the storage; the population planes hold lbm_pop and are
// read and written only through lbm_pop_load / lbm_pop_store. The storage is fixed when a shell is
// compiled (-DLBM_STORAGE=...; solver/backends build one library or module per storage):
// - LBM_STORAGE_FP32: float32, 4 B per population;
// - LBM_STORAGE_FP16S: IEEE binary16 of the shifted population times 2^15, 2 B ("FP16S" of
//   Lehmann et al. 2022, Phys. Rev. E 106, 015308): shifted populations lie well inside (-2, 2),
//   so the scaled values stay under binary16's largest, 65504, and populations down to 2^-29
//   (binary16's smallest normal, 2^-14, over the scale) keep the full 11-bit significand.
//   Rounding to nearest even on both shells (F16C's vcvtps2ph, PTX cvt.rn.f16.f32), so the CPU and
//   the GPU store the same bits for the same float.
// - LBM_STORAGE_FP16C: a 16-bit format of this project's own with one bit more of significand
//   (after the "FP16C" of Lehmann et al. 2022): sign, 4 exponent bits, 11 significand bits, the
//   shifted population itself (no scale). Exponent codes 1..15 hold the binades [2^-14, 2^1)
//   with 12 bits of precision, code 0 the values below 2^-14 in steps of 2^-25; the all-ones
//   pattern 0xFFFF is NaN, which every population that would take code 0x7FFF or more
//   (magnitudes from 1.9995 up, inf, NaN) is stored as, so a blow-up stays visible. Written with
//   integer and float operations alone (lbm_fp16c_encode / lbm_fp16c_decode), identical on both
//   shells and vectorizable on the CPU.
#define LBM_STORAGE_FP32 0
#define LBM_STORAGE_FP16S 1
#define LBM_STORAGE_FP16C 2
#ifndef LBM_STORAGE
#define LBM_STORAGE LBM_STORAGE_FP32
#endif

#if defined(__CUDACC__)
__device__ __forceinline__ float lbm_half_bits_to_float(const unsigned short h) {
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(h));
    return v;
}
__device__ __forceinline__ unsigned short lbm_float_to_half_bits(const float v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}
#endif

// FP16C: |v| >= 2^-14 keeps its float32 exponent less 112 (codes 1..15) and its significand's 11
// leading bits, rounded to nearest even on the 12 dropped ones (the carry may raise the exponent);
// |v| < 2^-14 becomes the integer nearest |v| 2^25 (the float addition of 2^23 rounds it to
// nearest even); a code of 0x7FFF or more (|v| from 1.9995 up, inf, NaN) becomes 0xFFFF.
// (Selections as integer masks: g++ 12 vectorizes a loop of these, not one with the ternaries.)
__device__ __forceinline__ unsigned short lbm_fp16c_encode(const float v) {
    const unsigned int bits = __float_as_uint(v);
    const unsigned int a = bits & 0x7FFFFFFFu;
    const unsigned int normal = (a - (112u << 23) + 0x7FFu + ((a >> 12) & 1u)) >> 12;
    const unsigned int tiny = __float_as_uint(__uint_as_float(a) * 33554432.0f + 8388608.0f) - 0x4B000000u;
    const unsigned int is_normal = 0u - (unsigned int)(a >= (113u << 23));
    const unsigned int code = (normal & is_normal) | (tiny & ~is_normal);
    const unsigned int overflow = 0u - (unsigned int)(code >= 0x7FFFu);
    return (unsigned short)((0xFFFFu & overflow) | ((((bits >> 16) & 0x8000u) | code) & ~overflow));
}

__device__ __forceinline__ float lbm_fp16c_decode(const unsigned short h) {
    const unsigned int code = h & 0x7FFFu, sign = ((unsigned int)h & 0x8000u) << 16;
    const unsigned int normal = (code << 12) + (112u << 23);
    const unsigned int tiny = __float_as_uint((float)code * 2.98023223876953125e-8f);  // 2^-25
    const unsigned int is_normal = 0u - (unsigned int)(code >= 0x0800u);
    const unsigned int is_nan = 0u - (unsigned int)(h == 0xFFFFu);
    const unsigned int value = sign | (normal & is_normal) | (tiny & ~is_normal);
    return __uint_as_float((0x7FC00000u & is_nan) | (value & ~is_nan));
}

#if LBM_STORAGE == LBM_STORAGE_FP16S
typedef unsigned short lbm_pop;
#define LBM_FP16S_SCALE 32768.0f
__device__ __forceinline__ float lbm_pop_load(const lbm_pop v) {
    return lbm_half_bits_to_float(v) * (1.0f / LBM_FP16S_SCALE);
}
__device__ __forceinline__ lbm_pop lbm_pop_store(const float v) {
    return lbm_float_to_half_bits(v * LBM_FP16S_SCALE);
}
#elif LBM_STORAGE == LBM_STORAGE_FP16C
typedef unsigned short lbm_pop;
__device__ __forceinline__ float lbm_pop_load(const lbm_pop v) { return lbm_fp16c_decode(v); }
__device__ __forceinline__ lbm_pop lbm_pop_store(const float v) { return lbm_fp16c_encode(v); }
#elif LBM_STORAGE == LBM_STORAGE_FP32
typedef float lbm_pop;
__device__ __forceinline__ float lbm_pop_load(const lbm_pop v) { return v; }
__device__ __forceinline__ lbm_pop lbm_pop_store(const float v) { return v; }
#else
#error "LBM_STORAGE must be LBM_STORAGE_FP32, LBM_STORAGE_FP16S or LBM_STORAGE_FP16C"
#endif

// Full unrolling of the small fixed-count loops of the collision (registers on the GPU, one
// vector lane per cell on the CPU); the host shell's cuda_compat.h gives the host compiler's
// spelling.
#ifndef LBM_UNROLL
#define LBM_UNROLL _Pragma("unroll")
#endif
// A loop kept rolled: its body (a whole collision) compiled once, not once per iteration.
#ifndef LBM_NO_UNROLL
#define LBM_NO_UNROLL _Pragma("unroll 1")
#endif

#define LBM_W0 (1.0f / 3.0f)
#define LBM_W1 (1.0f / 18.0f)
#define LBM_W2 (1.0f / 36.0f)

// X(q, cx, cy, cz, w): the 19 links. Opposite links are neighbours: (1,2), (3,4), ..., (17,18).
#define D3Q19_LINKS(X)                                                                       \
    X(0, 0, 0, 0, LBM_W0)                                                                    \
    X(1, 1, 0, 0, LBM_W1) X(2, -1, 0, 0, LBM_W1) X(3, 0, 1, 0, LBM_W1) X(4, 0, -1, 0, LBM_W1) \
    X(5, 0, 0, 1, LBM_W1) X(6, 0, 0, -1, LBM_W1)                                            \
    X(7, 1, 1, 0, LBM_W2) X(8, -1, -1, 0, LBM_W2) X(9, 1, -1, 0, LBM_W2)                     \
    X(10, -1, 1, 0, LBM_W2) X(11, 1, 0, 1, LBM_W2) X(12, -1, 0, -1, LBM_W2)                  \
    X(13, 1, 0, -1, LBM_W2) X(14, -1, 0, 1, LBM_W2) X(15, 0, 1, 1, LBM_W2)                   \
    X(16, 0, -1, -1, LBM_W2) X(17, 0, 1, -1, LBM_W2) X(18, 0, -1, 1, LBM_W2)

#define LBM_OPP(q) ((q) == 0 ? 0 : (((q) & 1) ? (q) + 1 : (q) - 1))

// Link index of the lattice vector (cx, cy, cz), at [(cx+1) + 3 (cy+1) + 9 (cz+1)]; -1 if none.
__constant__ int LBM_LINK_OF[27] = {
    -1, 16, -1, 12, 6, 13, -1, 17, -1,
    8, 4, 9, 2, 0, 1, 10, 3, 7,
    -1, 18, -1, 14, 5, 11, -1, 15, -1};

// Scaled term c*v with a compile-time lattice component c in {-1, 0, 1}: no multiply. The zero
// case is -0.0f because x + (-0.0f) == x exactly, so compilers drop it from sums.
#define LBM_CV(c, v) ((c) > 0 ? (v) : ((c) < 0 ? -(v) : -0.0f))

// Floats per element in vol_law (solver/volumetric_law.py, LAW_FIELDS): normal 3, tangents 6,
// area 1, slip 2 x 19, stress 2 x 19, the input's weights 8, the wall's own velocity 3 (a rolling
// wheel's; 0 at rest).
#define LBM_VOL_LAW_FIELDS 97

// Floats per slot in slot_wall (solver/wall_geometry.py, WALL_FIELDS).
#define LBM_WALL_FIELDS 6

// ---- the kernels' calling interface ------------------------------------------------------------
// Everything one step reads besides the two population buffers, in one struct that both shells
// pass whole: by value to the GPU kernel, by pointer to the CPU library. This X-list is its only
// description: solver/kernel_params.py reads it to build the matching numpy record, and the
// shells' lbm_params_layout reports the compiler's offsets so a test can compare the two.
// X(type, name): pointers are device addresses of the arrays named in the comment.
#define LBM_PARAMS(X)                                                                        \
    X(long long, plane_stride)      /* distance between the planes of two links, >= cells */ \
    X(const unsigned char*, flags)  /* [n] cell flags */                                     \
    X(const float*, tau_x)          /* [nx] molecular relaxation time per x column (the     \
                                       outflow sponge raises it towards the outlet) */      \
    X(const float*, u_inlet)        /* [ny nz] inlet x-velocity per inlet cell */            \
    X(float*, inlet_drho)           /* [ny nz] each inlet cell's density - 1, its state     \
                                       (float32 whatever the storage; read and written by   \
                                       the cell each step: lbm_open_cell) */                \
    X(const int*, boundary_index)   /* [n] slot k of a fluid cell next to the body, or -1 */ \
    X(float*, cell_force)           /* [9 k] each slot's forces on the body: momentum        \
                                       exchange, pressure, viscous (lbm_cell.cuh) */        \
    X(const float*, link_q)         /* [18 k] wall fraction of each slot's links */          \
    X(const float*, slot_area)      /* [3 k] area vector of the body surface at each slot */ \
    X(const float*, slot_wall)      /* [6 k] the body's wall at each slot for the wall      \
                                       model: unit normal into the fluid, distance from the \
                                       cell centre, area, sharp edge (1) or not (0) (cells; \
                                       solver/wall_geometry.py) */                          \
    X(const float*, spalding)       /* [4 segments] Spalding's law, u+ by Re_y: the wall    \
                                       model's table (lbm_wall_model.cuh) */                \
    X(const float*, wall_feq)       /* [19] the operator's equilibrium at density 1 and the \
                                       moving walls' velocity, shifted (lbm_moving_wall) */ \
    X(const long long*, slot_cell)  /* [k] the cell of each slot (lbm_wall_pool.cuh) */      \
    X(const int*, pool_start)       /* [k + 1] where each slot's patch starts in pool_slot */ \
    X(const int*, pool_slot)        /* the slots of each slot's patch */                     \
    X(const float*, pool_weight)    /* their weights */                                      \
    X(float*, pool_residual)        /* [4 k] each slot's residuals (lbm_wall_pool.cuh) */   \
    X(int, n_pool_slots)            /* slots the pooling visits; 0: no pooling */            \
    X(const int*, vol_index)        /* [n] the volumetric wall's slot s of each cell, or -1  \
                                       (lbm_volumetric.cuh; solver/volumetric_wall.py) */   \
    X(const float*, vol_keep)       /* [19 s] each slot's share of its links' sources */    \
    X(const int*, vol_scatter_start) /* [s + 1] where each slot's entries start */          \
    X(const int*, vol_scatter)      /* the entries, 19 e + q: element e's outgoing link q */ \
    X(const float*, vol_scatter_weight) /* their weights v / (V A_out) */                    \
    X(const int*, vol_gather_start) /* [19 E + 1] where element e's parcels of link q start \
                                       (at 19 e + q) */                                     \
    X(const long long*, vol_gather_at) /* the parcels' populations, q S + cell */           \
    X(const float*, vol_gather_volume) /* their volumes (cells^3) */                        \
    X(const float*, vol_swept)      /* [19 E] each element's outgoing prisms' volume by link \
                                       (A |c . n| for a plane element) */                   \
    X(float*, vol_gamma)            /* [19 E] what each element sends along each link, shifted \
                                       by w_q times that volume (lbm_volumetric_gather) */   \
    X(float*, vol_force)            /* [3 E] each element's momentum exchange in the step */ \
    X(int, n_vol_elements)          /* the volumetric wall's elements; 0: none */            \
    X(const float*, vol_law)        /* [LBM_VOL_LAW_FIELDS E] each element's law of the wall: \
                                       normal, tangents, area, slip and stress shapes, the  \
                                       input's weights (solver/volumetric_law.py) */        \
    X(const long long*, vol_probe)  /* [8 E] the cells its input is read from */            \
    X(float, vol_sample)            /* the input's distance from the surface (cells) */     \
    X(int, vol_law_on)              /* 1: the elements take the law (walls.model loglaw) */ \
    X(int, vol_projected)           /* 1: the projected wall, its slots carrying slopes      \
                                       (solver/volumetric_projected.py); then vol_keep and  \
                                       gamma's no-slip part give way to the maps below */   \
    X(const float*, vol_keep_map)   /* [16 (19 s + q)] each slot's 4 x 4 map of its link q's \
                                       source (mean, slope) */                              \
    X(const int*, vol_turn_start)   /* [19 s + 1] where each slot's turned rows of link q   \
                                       start (at 19 s + q) */                               \
    X(const long long*, vol_turn_at) /* their sources' populations, opp(q) S + cell */       \
    X(const float*, vol_turn_map)   /* [16 r] their 4 x 4 maps */                           \
    X(const float*, vol_gather_first) /* [3 parcels] the parcels' first moments about their \
                                       source's fluid centroid (cells^4) */                 \
    X(const float*, vol_scatter_slope) /* [3 entries] the scatter entries' slopes */         \
    X(const float*, vol_gather_profile) /* [12 parcels] the integrals of g and g (r - r_src)^T \
                                       over each parcel (solver/volumetric_profile.py) */    \
    X(const float*, vol_scatter_profile) /* [12 entries] the scatter entries' terms of g */ \
    X(const float*, vol_profile_gram) /* [9 E] each element's inverse Gram matrix of g */   \
    X(float*, vol_profile)          /* [6 E] each element's profile b_k of the free slip,   \
                                       written by its gather (lbm_volumetric_gather) */     \
    X(float*, vol_slope_in)         /* [57 s] each slot's slopes (19 links x 3 axes, 1/cell) \
                                       after the last collision */                          \
    X(float*, vol_slope_out)        /* [57 s] the slopes the step pulls, before the collision */ \
    X(float*, vol_slot_mean)        /* [19 s] the means the step pulls, before the collision \
                                       (lbm_projected_commit collides the slopes at them) */ \
    X(const long long*, vol_slot_cell) /* [s] each slot's cell */                           \
    X(int, n_vol_slots)             /* the projected wall's slots (0 without it) */          \
    X(float*, sgs_moments)          /* [4 n] whether each cell flows (1 or 0), and its       \
                                       velocity at its last collision, for the gradient's   \
                                       subgrid models (lbm_subgrid.cuh) */                  \
    X(float*, tau_eddy)             /* [n] each cell's eddy relaxation time 3 nu_t (ditto) */ \
    X(const long long*, freeslip_dst) /* [m] populations (q S + cell) of the free-slip walls \
                                       filled before each step from freeslip_src            \
                                       (lbm_fill_freeslip) */                               \
    X(const long long*, freeslip_src)                                                        \
    X(long long, n_freeslip)                                                                 \
    X(const long long*, wall_fill_cells) /* [m] fluid cells whose links from the tunnel's    \
                                       no-slip walls and the road are filled before each    \
                                       step (lbm_fill_wall_links) */                        \
    X(const int*, wall_fill_face)   /* [m] each such cell's plane wall (lbm_fill_plane_wall: \
                                       its face link, plus 6 for the road), or 0 */         \
    X(long long, n_wall_fill)                                                                \
    X(const long long*, general_cells) /* [m] in-place streaming: the cells the general pull \
                                       takes (fluid next to the body, inlets, outflows), run \
                                       before the bulk (lbm_general_cell_aside) */          \
    X(float*, general_out)          /* [19 m] their collided populations, link by link */   \
    X(long long, n_general)                                                                  \
    X(int, stream_stores)           /* 1: the CPU shell's bulk chunks store non-temporally   \
                                       (populations of over 8 last-level caches); the       \
                                       GPU ignores it */                                    \
    X(int, nx)                                                                               \
    X(int, ny)                                                                               \
    X(int, nz)                                                                               \
    X(int, interpolated)            /* 1: Bouzidi bounce-back on the body; 0: halfway */     \
    X(int, has_force)               /* 1 when the body acceleration is non-zero */           \
    X(int, collision)               /* LBM_COLLISION_BGK or LBM_COLLISION_ENTROPIC */        \
    X(int, wall_model)              /* LBM_WALL_NONE or LBM_WALL_LOGLAW (lbm_wall_model.cuh) */ \
    X(int, wall_sample)             /* the wall model reads the velocity this many cells out */ \
    X(int, wall_body_rule)          /* LBM_WALL_BODY_FACES, _SURFACE or _SLIP */             \
    X(float, nu_lattice)            /* molecular kinematic viscosity, for the wall model */  \
    X(int, subgrid)                 /* LBM_SUBGRID_SMAGORINSKY, _WALE or _VREMAN */          \
    X(float, subgrid_c)             /* WALE's C_w^2 or Vreman's c (lbm_subgrid.cuh) */       \
    X(float, cs2_smag)              /* Smagorinsky constant squared; 0: no subgrid model */  \
    X(float, inlet_relax)           /* rate the inlet density follows its neighbour's */     \
    X(float, gx)                    /* body acceleration */                                  \
    X(float, gy)                                                                             \
    X(float, gz)                                                                             \
    X(float, wall_ux)               /* velocity of FLAG_MOVING walls */                      \
    X(float, wall_uy)                                                                        \
    X(float, wall_uz)

struct LbmParams {
#define LBM_PARAM_FIELD(type, name) type name;
    LBM_PARAMS(LBM_PARAM_FIELD)
#undef LBM_PARAM_FIELD
};

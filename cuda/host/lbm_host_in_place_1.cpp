// The CPU's in-place step at parity 1 (lbm_host_in_place.h), a translation unit of its own.
#include "lbm_host_in_place.h"

void lbm_step_in_place_1(lbm_pop* f, const LbmParams* params) {
    if (params->collision == LBM_COLLISION_ENTROPIC)
        step_in_place<LBM_COLLISION_ENTROPIC, 1>(f, *params);
    else
        step_in_place<LBM_COLLISION_BGK, 1>(f, *params);
}

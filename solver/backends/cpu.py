"""CPU backend: the kernels' host shell, compiled with the system C++ compiler, through ctypes."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

import numpy as np

from solver.backends.base import Backend, storage_code
from solver.backends.host_build import build_host_library
from solver.kernel_params import FIELDS, KernelParams

_P = ctypes.c_void_p
_I = ctypes.c_int
_LL = ctypes.c_longlong
_D = ctypes.c_double
_F = ctypes.c_float
_GRID = [_I, _I, _I, _D, _D, _D, _D]  # nx, ny, nz, x0, y0, z0, dx
_VOXELIZE_ARGS = {
    "vox_count": [_P, _P, _LL, *_GRID, _P],
    "vox_record": [_P, _P, _LL, *_GRID, _P, _P, _P],
    "vox_fill": [*_GRID, _P, _P, _P],
    "vox_links": [_P, _P, _LL, *_GRID, _P, _P, _P],
}


_CACHE_LINE = 64  # bytes
#: The last-level cache assumed where the system does not say: 32 MiB, the L3 of the 2-vCPU AMD
#: EPYC the project develops on.
_DEFAULT_LLC_BYTES = 32 << 20
#: The step streams its stores where both population buffers exceed this many last-level caches
#: (CpuBackend.streams_stores).
_STREAM_BEYOND_LLC = 8


def last_level_cache_bytes(cpu_dir: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int:
    """Size of cpu0's highest cache level [bytes] from sysfs (index*/level and size, e.g.
    "32768K"), or _DEFAULT_LLC_BYTES where sysfs lacks it."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    best = (0, _DEFAULT_LLC_BYTES)
    for index in cpu_dir.glob("index*"):
        try:
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if size and size[-1] in units and size[:-1].isdigit() and level > best[0]:
            best = (level, int(size[:-1]) * units[size[-1]])
    return best[1]


def _ptr(a: np.ndarray) -> int:
    return a.ctypes.data


class CpuBackend(Backend):
    name = "cpu"
    force_dtype = np.dtype(np.float64)

    def __init__(self) -> None:
        self._libs: dict[int, ctypes.CDLL] = {}
        self._lib = self._kernels(0)  # float32 storage; also the voxelizer and the layout
        self._llc_bytes = last_level_cache_bytes()

    def _kernels(self, storage_code: int) -> ctypes.CDLL:
        """The host library compiled for a population storage (LBM_STORAGE), built on first use."""
        if storage_code in self._libs:
            return self._libs[storage_code]
        lib = ctypes.CDLL(str(build_host_library(storage_code)))
        lib.lbm_step.argtypes = [_P, _P, _P]
        lib.lbm_step_in_place.argtypes = [_P, _P, _I]
        for name in ("lbm_wall_pool", "lbm_volumetric_gather_elements", "lbm_subgrid"):
            getattr(lib, name).argtypes = [_P, _P]  # (populations, params)
        lib.lbm_projected_commit_slots.argtypes = [_P]
        lib.lbm_params_layout.argtypes = [_P]
        lib.lbm_stream_copy.argtypes = [_P, _P, _LL]
        lib.lbm_init.argtypes = [_P, _P, _LL, _LL, _I]
        lib.lbm_fields.argtypes = [_P, _P, _LL, _LL, _I]
        lib.lbm_explode.argtypes = [_P, _P, _F, _LL, _P, _LL, _P, _P, _LL, _F, _F, _F, _I]
        lib.lbm_coalesce.argtypes = [_P, _LL, _P, _LL, _P, _LL, _F, _F, _F, _I]
        for name, argtypes in _VOXELIZE_ARGS.items():
            getattr(lib, name).argtypes = argtypes
        for fn in (
            lib.lbm_step,
            lib.lbm_step_in_place,
            lib.lbm_wall_pool,
            lib.lbm_volumetric_gather_elements,
            lib.lbm_projected_commit_slots,
            lib.lbm_subgrid,
            lib.lbm_init,
            lib.lbm_fields,
            lib.lbm_params_layout,
            lib.lbm_stream_copy,
            lib.lbm_explode,
            lib.lbm_coalesce,
            *(getattr(lib, n) for n in _VOXELIZE_ARGS),
        ):
            fn.restype = None
        self._libs[storage_code] = lib
        return lib

    def _for(self, populations: np.ndarray) -> ctypes.CDLL:
        """The library for the storage of these population planes (their dtype)."""
        return self._kernels(storage_code(populations))

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """Zeros starting on a cache line (64 B): the bulk loop's vector loads and stores of
        16 floats then each touch one line where the kernel aligns them
        (cuda/host/lbm_host_shell.h)."""
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        raw = np.zeros(count * dtype.itemsize + _CACHE_LINE, dtype=np.uint8)
        start = -raw.ctypes.data % _CACHE_LINE
        return raw[start : start + count * dtype.itemsize].view(dtype).reshape(shape)

    def asarray(self, host: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(host).copy()

    def to_host(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def address(self, array: np.ndarray) -> int:
        return _ptr(array)

    def init_equilibrium(
        self, f: np.ndarray, moments: np.ndarray, n_cells: int, plane_stride: int, collision: int
    ) -> None:
        self._for(f).lbm_init(_ptr(f), _ptr(moments), n_cells, plane_stride, collision)

    def step(
        self, f_src: np.ndarray, f_dst: np.ndarray, params: KernelParams, force: np.ndarray
    ) -> None:
        lib = self._for(f_src)
        if params["subgrid"]:  # WALE's or Vreman's eddy viscosity (cuda/lbm_subgrid.cuh)
            lib.lbm_subgrid(_ptr(f_src), _ptr(params.record))
        if params["n_vol_elements"]:  # the volumetric wall's gather (cuda/lbm_volumetric.cuh)
            lib.lbm_volumetric_gather_elements(_ptr(f_src), _ptr(params.record))
        lib.lbm_step(_ptr(f_src), _ptr(f_dst), _ptr(params.record))
        if params["n_vol_slots"]:  # the projected wall's slopes (cuda/lbm_projected.cuh)
            lib.lbm_projected_commit_slots(_ptr(params.record))
        if params["n_pool_slots"]:  # the surface rule's pooling (cuda/lbm_wall_pool.cuh)
            lib.lbm_wall_pool(_ptr(f_dst), _ptr(params.record))
        # The slots' forces summed in float64 along contiguous rows (numpy's pairwise sum): summed
        # over the first axis of the [n, 3, 3] array it took 18 us a step for the 1,340 slots of a
        # sweep_demo sample and 266 us for 20,000, three times as long (docs/performance.md).
        per_slot = params["cell_force"].reshape(-1, 9)
        force[:] = np.ascontiguousarray(per_slot.T).sum(axis=1, dtype=np.float64).reshape(3, 3)
        if params["n_vol_elements"]:  # the elements' exchange is the total
            per_element = params["vol_force"].reshape(-1, 3)
            force[0] += np.ascontiguousarray(per_element.T).sum(axis=1, dtype=np.float64)

    def explode(
        self,
        c_now,
        c_next,
        a,
        c_stride,
        fine,
        f_stride,
        cells,
        weights,
        tau0_coarse,
        tau0_fine,
        cs2_smag,
        collision,
    ) -> None:
        n = len(cells)
        cells = np.ascontiguousarray(cells, np.int64)
        weights = np.ascontiguousarray(weights, np.float32)
        self._for(fine).lbm_explode(
            _ptr(c_now),
            _ptr(c_next),
            a,
            c_stride,
            _ptr(fine),
            f_stride,
            _ptr(cells),
            _ptr(weights),
            n,
            tau0_coarse,
            tau0_fine,
            cs2_smag,
            collision,
        )

    def coalesce(
        self, fine, f_stride, coarse, c_stride, cells, tau0_fine, tau0_coarse, cs2_smag, collision
    ) -> None:
        n = len(cells)
        cells = np.ascontiguousarray(cells, np.int64)
        self._for(fine).lbm_coalesce(
            _ptr(fine),
            f_stride,
            _ptr(coarse),
            c_stride,
            _ptr(cells),
            n,
            tau0_fine,
            tau0_coarse,
            cs2_smag,
            collision,
        )

    def params_layout(self) -> np.ndarray:
        out = np.zeros(len(FIELDS) + 1, np.int64)
        self._lib.lbm_params_layout(_ptr(out))
        return out

    @property
    def xp(self):
        return np

    def voxelize(self, kernel: str, n_items: int, *args) -> None:
        getattr(self._lib, kernel)(*(_ptr(a) if isinstance(a, np.ndarray) else a for a in args))

    def step_in_place(
        self, f: np.ndarray, params: KernelParams, parity: int, force: np.ndarray
    ) -> None:
        self._for(f).lbm_step_in_place(_ptr(f), _ptr(params.record), parity)
        per_slot = params["cell_force"].reshape(-1, 9)
        force[:] = np.ascontiguousarray(per_slot.T).sum(axis=1, dtype=np.float64).reshape(3, 3)

    def fields(
        self, f: np.ndarray, moments: np.ndarray, n_cells: int, plane_stride: int, collision: int
    ) -> None:
        self._for(f).lbm_fields(_ptr(f), _ptr(moments), n_cells, plane_stride, collision)

    def stream_copy(self, dst: np.ndarray, src: np.ndarray) -> None:
        """Copy src into dst (float32 arrays from zeros(), a length that is a multiple of 16) by the
        step's non-temporal stores: the bandwidth probe of benchmarks/lbm_mlups.py."""
        if src.dtype != np.float32 or dst.shape != src.shape or src.size % 16:
            raise ValueError("stream_copy: float32 arrays of one length, a multiple of 16")
        self._lib.lbm_stream_copy(_ptr(dst), _ptr(src), src.size)

    def streams_stores(self, population_bytes: int) -> bool:
        """Non-temporal stores where the populations exceed 8 times the last-level cache. They skip
        the write-allocate read of each line, a third of a bulk cell's traffic (the BGK box at
        128^3, 320 MB, 1.3-1.7 times faster), but send every line to memory, so the lines the
        cache would still hold at the next step are lost; that costs grids with boundary cells up
        to several times the cache (measured, docs/performance.md: the sphere channel
        128 x 64 x 64, 86 MB, 0.85-0.93 times; 192 x 96 x 96, 270 MB, 1.00-1.02; 256 x 128 x 128,
        640 MB, 1.06-1.08)."""
        return population_bytes > _STREAM_BEYOND_LLC * self._llc_bytes

    def describe(self) -> str:
        threads = os.environ.get("OMP_NUM_THREADS") or str(len(os.sched_getaffinity(0)))
        return f"cpu ({threads} OpenMP threads)"

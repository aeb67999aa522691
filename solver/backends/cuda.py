"""CUDA backend: the kernels' GPU shell (cuda/lbm.cu), compiled by CuPy through NVRTC.

CuPy caches the compiled module under a hash of the source text and options only, not of the
files an #include pulls in, so the headers are pasted into the source here: any change to the
physics changes the text and recompiles. Works with cupy-cuda12x and cupy-cuda13x.

Over 250 lines: one method per kernel of cuda/lbm.cu and cuda/voxelize.cu (the step of each
streaming mode with its fills and passes, the refinement coupling, the fields, the voxelizer),
each a launch and its argument tuple; split, the launches would sit apart from the modules that
compile them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from solver.backends.base import Backend, storage_code
from solver.errors import BackendUnavailableError
from solver.kernel_params import FIELDS, KernelParams
from solver.lattice import CUDA_DIR, LAYOUTS


def inline_includes(path: Path) -> str:
    """The source of path with each local #include "x" replaced by x's text, recursively and
    once per file, so CuPy's cache key (the source text) covers every header."""
    seen: set[Path] = set()

    def expand(p: Path) -> str:
        out = []
        for line in p.read_text().splitlines():
            m = re.match(r'\s*#include\s+"([^"]+)"', line)
            if m:
                included = (p.parent / m[1]).resolve()
                if included not in seen:
                    seen.add(included)
                    out.append(expand(included))
            elif line.strip() != "#pragma once":
                out.append(line)
        return "\n".join(out)

    return expand(path)


THREADS_PER_BLOCK = 256  # 1D kernels (init, fields)
LAYOUT_PULL, LAYOUT_SWAPPED, LAYOUT_PUSHED = (LAYOUTS[k] for k in ("pull", "swapped", "pushed"))
STEP_THREADS_X = 128  # lbm_step: threads along x per block; y and z come from the grid


def cuda_device_count() -> int:
    """The GPUs CuPy can use here; 0 without CuPy, a driver or a device."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no cupy, no driver, no device: all mean "none usable"
        return 0


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one usable GPU."""
    return cuda_device_count() > 0


class CudaBackend(Backend):
    name = "cuda"
    force_dtype = np.dtype(np.float32)

    def __init__(self) -> None:
        if not cuda_available():
            raise BackendUnavailableError(
                "backend 'cuda' needs CuPy and a CUDA GPU: install the 'gpu' extra "
                "(pip install -e '.[gpu]') on a machine with an NVIDIA GPU, or use --backend cpu"
            )
        import cupy

        self._cp = cupy
        self._modules: dict[int, Any] = {}
        self._functions: dict[tuple[str, int], Any] = {}
        self._module = self._kernels(0)  # float32 storage; also the layout
        # No fused multiply-adds in the voxelizer: its edge functions must negate exactly.
        self._voxelizer = cupy.RawModule(
            code=inline_includes(CUDA_DIR / "voxelize.cu"), options=("--std=c++14", "--fmad=false")
        )

    def _kernels(self, storage_code: int) -> Any:
        """The module compiled for a population storage (LBM_STORAGE), built on first use."""
        if storage_code not in self._modules:
            self._modules[storage_code] = self._cp.RawModule(
                code=inline_includes(CUDA_DIR / "lbm.cu"),
                options=("--std=c++14", f"-DLBM_STORAGE={storage_code}"),
            )
        return self._modules[storage_code]

    def _function(self, name: str, populations: Any) -> Any:
        """Kernel `name` of the module for the storage of these population planes (looked up once
        per storage: the step calls it every step)."""
        key = (name, storage_code(populations))
        if key not in self._functions:
            self._functions[key] = self._kernels(key[1]).get_function(name)
        return self._functions[key]

    @staticmethod
    def _blocks(n: int) -> tuple[int]:
        return ((n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK,)

    def zeros(self, shape: tuple[int, ...], dtype: Any) -> Any:
        return self._cp.zeros(shape, dtype=dtype)

    def asarray(self, host: np.ndarray) -> Any:
        return self._cp.asarray(np.ascontiguousarray(host))

    def to_host(self, array: Any) -> np.ndarray:
        return self._cp.asnumpy(array)

    def address(self, array: Any) -> int:
        return int(array.data.ptr)

    def init_equilibrium(
        self, f: Any, moments: Any, n_cells: int, plane_stride: int, collision: int
    ) -> None:
        self._function("lbm_init", f)(
            self._blocks(n_cells),
            (THREADS_PER_BLOCK,),
            (f, moments, np.int64(n_cells), np.int64(plane_stride), np.int32(collision)),
        )

    def step(self, f_src: Any, f_dst: Any, params: KernelParams, force: Any) -> None:
        n_freeslip = int(params["n_freeslip"])
        if n_freeslip:  # the free-slip walls' populations, which the step then pulls plainly
            fill = self._function("lbm_fill_freeslip_cells", f_src)
            fill(self._blocks(n_freeslip), (THREADS_PER_BLOCK,), (f_src, params.record))
        n_wall_fill = int(params["n_wall_fill"])
        if n_wall_fill:  # the links the cells next to the other walls take from them
            fill = self._function("lbm_fill_wall_cells", f_src)
            fill(
                self._blocks(n_wall_fill),
                (THREADS_PER_BLOCK,),
                (f_src, params.record, np.int32(LAYOUT_PULL)),
            )
        grid = ((params["nx"] + STEP_THREADS_X - 1) // STEP_THREADS_X, params["ny"], params["nz"])
        if params["subgrid"]:  # WALE's or Vreman's eddy viscosity (cuda/lbm_subgrid.cuh)
            n_cells = params["nx"] * params["ny"] * params["nz"]
            moments = self._function("lbm_subgrid_moments", f_src)
            moments(self._blocks(n_cells), (THREADS_PER_BLOCK,), (f_src, params.record))
            self._function("lbm_subgrid_taus", f_src)(grid, (STEP_THREADS_X,), (params.record,))
        n_vol = int(params["n_vol_elements"])
        if n_vol:  # the volumetric wall's gather (cuda/lbm_volumetric.cuh)
            gather = self._function("lbm_volumetric_gather_elements", f_src)
            gather(self._blocks(n_vol), (THREADS_PER_BLOCK,), (f_src, params.record))
        # The record (a numpy array of one struct) is passed by value: CuPy copies its bytes.
        self._function("lbm_step", f_src)(grid, (STEP_THREADS_X,), (f_src, f_dst, params.record))
        n_slots = int(params["n_vol_slots"])
        if n_slots:  # the projected wall's slopes (cuda/lbm_projected.cuh)
            commit = self._function("lbm_projected_commit_slots", f_dst)
            commit(self._blocks(n_slots), (THREADS_PER_BLOCK,), (params.record,))
        n_pool = int(params["n_pool_slots"])
        if n_pool:  # the surface rule's pooling: every residual before any exchange changes
            residual = self._function("lbm_pool_residual_slots", f_dst)
            residual(self._blocks(n_pool), (THREADS_PER_BLOCK,), (params.record,))
            apply = self._function("lbm_pool_apply_slots", f_dst)
            apply(self._blocks(n_pool), (THREADS_PER_BLOCK,), (f_dst, params.record))
        self._cp.sum(params["cell_force"], axis=0, out=force)  # a tree reduction without atomics
        if n_vol:  # the elements' exchange is the total
            force[0] += self._cp.sum(params["vol_force"].reshape(-1, 3), axis=0)

    def step_in_place(self, f: Any, params: KernelParams, parity: int, force: Any) -> None:
        par = np.int32(parity)
        n_freeslip = int(params["n_freeslip"])
        if n_freeslip:  # this parity's copies (params holds them: Simulation._params_by_parity)
            fill = self._function("lbm_fill_freeslip_cells", f)
            fill(self._blocks(n_freeslip), (THREADS_PER_BLOCK,), (f, params.record))
        n_wall_fill = int(params["n_wall_fill"])
        if n_wall_fill:  # the other walls' links, where the in-place step reads them
            layout = np.int32(LAYOUT_SWAPPED if parity == 0 else LAYOUT_PUSHED)
            fill = self._function("lbm_fill_wall_cells", f)
            fill(self._blocks(n_wall_fill), (THREADS_PER_BLOCK,), (f, params.record, layout))
        n_general = int(params["n_general"])
        if n_general:  # the general pull's cells, before anything of the step is written
            aside = self._function("lbm_general_cells_aside", f)
            aside(self._blocks(n_general), (THREADS_PER_BLOCK,), (f, params.record, par))
        grid = ((params["nx"] + STEP_THREADS_X - 1) // STEP_THREADS_X, params["ny"], params["nz"])
        self._function("lbm_step_in_place", f)(grid, (STEP_THREADS_X,), (f, params.record, par))
        if n_general:
            back = self._function("lbm_general_cells_back", f)
            back(self._blocks(n_general), (THREADS_PER_BLOCK,), (f, params.record, par))
        self._cp.sum(params["cell_force"], axis=0, out=force)

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
        if n:
            self._function("lbm_explode", fine)(
                self._blocks(n),
                (THREADS_PER_BLOCK,),
                (
                    c_now,
                    c_next,
                    np.float32(a),
                    np.int64(c_stride),
                    fine,
                    np.int64(f_stride),
                    cells,
                    weights,
                    np.int64(n),
                    np.float32(tau0_coarse),
                    np.float32(tau0_fine),
                    np.float32(cs2_smag),
                    np.int32(collision),
                ),
            )

    def coalesce(
        self, fine, f_stride, coarse, c_stride, cells, tau0_fine, tau0_coarse, cs2_smag, collision
    ) -> None:
        n = len(cells)
        if n:
            self._function("lbm_coalesce", fine)(
                self._blocks(n),
                (THREADS_PER_BLOCK,),
                (
                    fine,
                    np.int64(f_stride),
                    coarse,
                    np.int64(c_stride),
                    cells,
                    np.int64(n),
                    np.float32(tau0_fine),
                    np.float32(tau0_coarse),
                    np.float32(cs2_smag),
                    np.int32(collision),
                ),
            )

    def params_layout(self) -> np.ndarray:
        out = self._cp.zeros(len(FIELDS) + 1, np.int64)
        self._module.get_function("lbm_params_layout")((1,), (1,), (out,))
        return self._cp.asnumpy(out)

    @property
    def xp(self) -> Any:
        return self._cp

    def voxelize(self, kernel: str, n_items: int, *args: Any) -> None:
        if n_items > 0:
            self._voxelizer.get_function(kernel)(self._blocks(n_items), (THREADS_PER_BLOCK,), args)

    def fields(self, f: Any, moments: Any, n_cells: int, plane_stride: int, collision: int) -> None:
        self._function("lbm_fields", f)(
            self._blocks(n_cells),
            (THREADS_PER_BLOCK,),
            (f, moments, np.int64(n_cells), np.int64(plane_stride), np.int32(collision)),
        )

    def synchronize(self) -> None:
        self._cp.cuda.Device().synchronize()

    def free_device_bytes(self) -> float | None:
        free, _total = self._cp.cuda.runtime.memGetInfo()
        return float(free)

    def describe(self) -> str:
        props = self._cp.cuda.runtime.getDeviceProperties(self._cp.cuda.Device().id)
        return f"cuda ({props['name'].decode()})"

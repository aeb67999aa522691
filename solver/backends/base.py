"""What a backend does: hold arrays on its device and run the three kernels of cuda/."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from solver.kernel_params import KernelParams

#: resolution.storage -> (dtype of the population planes, LBM_STORAGE the kernels are compiled
#: with; cuda/lbm_lattice.cuh). fp16s planes hold binary16 bits, which numpy's float16 reads as
#: the population times 2^15; fp16c planes the bits of the project's own 16-bit format, as uint16.
POPULATION_STORAGES: dict[str, tuple[np.dtype, int]] = {
    "fp32": (np.dtype(np.float32), 0),
    "fp16s": (np.dtype(np.float16), 1),
    "fp16c": (np.dtype(np.uint16), 2),
}


def population_dtype(storage: str) -> np.dtype:
    """The dtype of the population planes of a storage (resolution.storage)."""
    return POPULATION_STORAGES[storage][0]


def storage_code(populations: Any) -> int:
    """The LBM_STORAGE of a population array, from its dtype (float32, float16 or uint16)."""
    for dtype, code in POPULATION_STORAGES.values():
        if populations.dtype == dtype:
            return code
    raise TypeError(f"population arrays are float32, float16 or uint16, not {populations.dtype}")


class Backend(ABC):
    """A device and the kernels compiled for it."""

    name: str
    #: dtype the device accumulates the body force in (float64 on CPU, float32 atomics on GPU)
    force_dtype: np.dtype

    @abstractmethod
    def zeros(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """A zeroed array on the device."""

    @abstractmethod
    def asarray(self, host: np.ndarray) -> Any:
        """Copy a host array to the device."""

    @abstractmethod
    def to_host(self, array: Any) -> np.ndarray:
        """Copy a device array to the host."""

    @abstractmethod
    def address(self, array: Any) -> int:
        """The device address of an array this backend made, for the kernels' LbmParams."""

    @abstractmethod
    def init_equilibrium(
        self, f: Any, moments: Any, n_cells: int, plane_stride: int, collision: int
    ) -> None:
        """Set f to the equilibrium of the moments (4 planes: rho, ux, uy, uz) of the collision
        operator (LBM_COLLISION_* of the header)."""

    @abstractmethod
    def step(self, f_src: Any, f_dst: Any, params: KernelParams, force: Any) -> None:
        """One stream-and-collide step from f_src into f_dst; writes the step's body force
        (lattice units, the sum of params["cell_force"] over the slots in a fixed order) to
        force, 3 values of force_dtype on the device."""

    @abstractmethod
    def step_in_place(self, f: Any, params: KernelParams, parity: int, force: Any) -> None:
        """One step of in-place streaming on the single buffer f, whose layout parity gives
        (solver/streaming.py); writes the step's body force to force, as step does."""

    @abstractmethod
    def explode(
        self,
        c_now: Any,
        c_next: Any,
        a: float,
        c_stride: int,
        fine: Any,
        f_stride: int,
        cells: Any,
        weights: Any,
        tau0_coarse: float,
        tau0_fine: float,
        cs2_smag: float,
        collision: int,
    ) -> None:
        """Refinement: each fine ghost cell of cells (int64 [n, 8], lbm_explode_entry; weights
        float32 [n, 3]) takes the coarse state at its centre, c_now + a (c_next - c_now) plus
        c_now's weighted differences, its
        non-equilibrium part rescaled for the fine level (the levels' molecular relaxation times
        and the Smagorinsky constant squared; cuda/lbm_refinement.cuh)."""

    @abstractmethod
    def coalesce(
        self,
        fine: Any,
        f_stride: int,
        coarse: Any,
        c_stride: int,
        cells: Any,
        tau0_fine: float,
        tau0_coarse: float,
        cs2_smag: float,
        collision: int,
    ) -> None:
        """Refinement: each coarse ghost cell of cells (int64 [n, 9]: the coarse cell, its eight
        fine cells) takes the mean fine state, its non-equilibrium part rescaled for the coarse
        level."""

    @abstractmethod
    def params_layout(self) -> np.ndarray:
        """The compiler's layout of LbmParams: its size, then each field's offset (bytes)."""

    @property
    @abstractmethod
    def xp(self) -> Any:
        """The array module of the device: numpy or cupy."""

    @abstractmethod
    def voxelize(self, kernel: str, n_items: int, *args: Any) -> None:
        """Run one pass of the voxelizer (cuda/voxelize.cu) over n_items triangles or rows:
        kernel is vox_count, vox_record, vox_fill or vox_links; args exactly as in its
        signature, scalars as numpy scalars of the kernel's types (int32, int64, float64)."""

    @abstractmethod
    def fields(self, f: Any, moments: Any, n_cells: int, plane_stride: int, collision: int) -> None:
        """Density and velocity of the stored populations into moments (4 planes), the velocity
        as the collision operator's equilibrium defines it (j / rho_0 or j / rho)."""

    def synchronize(self) -> None:  # noqa: B027 - a no-op by default: the CPU backend is synchronous
        """Wait until queued work has finished (for timing)."""

    def streams_stores(self, population_bytes: int) -> bool:
        """Whether a step over population buffers of this many bytes (both) writes them with
        non-temporal stores (LbmParams.stream_stores). Only the CPU shell has them."""
        return False

    def free_device_bytes(self) -> float | None:
        """Free memory of a device apart from the host's [bytes]; None where the backend runs in
        the host's memory."""
        return None

    def describe(self) -> str:
        """The backend and its device, for logs and summary.json."""
        return self.name

"""What a backend does: hold arrays on its device and run the three kernels of cuda/."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class StepArgs:
    """Everything one LBM step needs besides the two population buffers (lattice units).

    The arrays live on the backend's device. boundary_index gives each fluid cell next to the
    body its slot k (else -1); the step writes that cell's share of the body force to
    cell_force[k], and the backend sums the slots in a fixed order.
    """

    nx: int
    ny: int
    nz: int
    plane_stride: int
    flags: Any           # uint8[nz, ny, nx]
    tau_x: Any           # float32[nx]: molecular relaxation time per x column
    u_inlet: Any         # float32[nz, ny]: inlet x-velocity
    boundary_index: Any  # int32[nz, ny, nx]: slot among the body's neighbour cells, or -1
    cell_force: Any      # float32[n_slots, 3]: each slot's force of the last step
    link_q: Any          # float32[n_slots, 18]: wall fraction of each link into the body
    interpolated: bool   # Bouzidi interpolated bounce-back on the body (else halfway)
    cs2_smag: float      # Smagorinsky constant squared
    body_accel: tuple[float, float, float]
    wall_velocity: tuple[float, float, float]

    @property
    def n_cells(self) -> int:
        return self.nx * self.ny * self.nz


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
    def init_equilibrium(self, f: Any, moments: Any, n_cells: int, plane_stride: int) -> None:
        """Set f to the equilibrium of the moments (4 planes: rho, ux, uy, uz)."""

    @abstractmethod
    def step(self, f_src: Any, f_dst: Any, args: StepArgs, force: Any) -> None:
        """One stream-and-collide step from f_src into f_dst; writes the step's body force
        (lattice units, the sum of args.cell_force in a fixed order) to force, 3 values of
        force_dtype on the device."""

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
    def fields(self, f: Any, moments: Any, n_cells: int, plane_stride: int) -> None:
        """Density and velocity j / rho of the stored populations into moments (4 planes)."""

    def synchronize(self) -> None:
        """Wait until queued work has finished (for timing)."""

    def describe(self) -> str:
        """The backend and its device, for logs and summary.json."""
        return self.name

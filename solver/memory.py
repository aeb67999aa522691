"""How much memory a case needs, checked before anything grid-sized is allocated.

Per cell the device holds the two population buffers (2 x 19 float32 = 152 B; 76 B with
`resolution.storage: fp16s` or `fp16c`; half of either with `resolution.streaming: aa`, one
buffer streamed in place), the moments (16 B),
the boundary index (4 B) and the flags (1 B): DEVICE_BYTES_PER_CELL. The host adds the set-up's
masks and the outputs (fields in physical units, their time average, vorticity, the checkpoint's
copy of the populations). On the CPU backend both live in one memory; its figure is measured:
the peak resident memory (ru_maxrss) of `run_case.py` (20 steps, fields, surface and checkpoint
written) rose by 304 B per cell between 0.71 and 3.18 M cells of windtunnel_box.yaml and by 261 B
per cell between 1.91 and 5.15 M cells of mesh.yaml (2-vCPU AMD EPYC, 2026-12-01), on top of
about 0.7 GB for Python, VTK and the kernels. On a GPU the host keeps that figure less the
populations. The GPU figures are not measured yet. With 16-bit storage or in-place streaming each
figure is less by what they save of the populations (the fp32 measurement above, less that).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from solver import lattice
from solver.backends.base import POPULATION_STORAGES
from solver.errors import ConfigError
from solver.subgrid import GRADIENT_MODEL_BYTES_PER_CELL

#: Bytes per cell of the two population buffers, by resolution.storage.
POPULATION_BYTES_PER_CELL = {
    storage: 2 * lattice.Q * dtype.itemsize for storage, (dtype, _) in POPULATION_STORAGES.items()
}
#: Population buffers a run holds, by resolution.streaming.
BUFFERS = {"ab": 2, "aa": 1}


def population_bytes_per_cell(storage: str, streaming: str = "ab") -> int:
    """Bytes per cell of the populations for resolution.storage and resolution.streaming."""
    return POPULATION_BYTES_PER_CELL[storage] * BUFFERS[streaming] // 2


#: Device-resident bytes per cell besides the populations: moments 16, boundary index 4, flags 1.
DEVICE_OTHER_BYTES_PER_CELL = 21
#: Peak host bytes per cell of a whole run on the CPU backend with float32 populations (measured
#: 261-304, rounded up).
CPU_BYTES_PER_CELL = 320
#: Host bytes per cell when the populations live on a GPU.
HOST_BYTES_PER_CELL_WITH_GPU = CPU_BYTES_PER_CELL - POPULATION_BYTES_PER_CELL["fp32"]
#: What a run holds before its grid: the interpreter, VTK, the kernels.
FIXED_HOST_BYTES = 0.8e9


def available_host_bytes() -> float:
    """Memory this process can still take [bytes]: the kernel's MemAvailable, capped by the
    container's cgroup limit less its usage where one is set."""
    available = float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = float(line.split()[1]) * 1024
    limit, usage = Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")
    if limit.is_file() and usage.is_file():
        text = limit.read_text().strip()
        if text.isdigit():
            available = min(available, float(text) - float(usage.read_text().strip()))
    return available


def check_memory(
    n_cells: int,
    cells_per_length: float,
    device_free_bytes: float | None,
    storage: str = "fp32",
    streaming: str = "ab",
    subgrid: str = "smagorinsky",
) -> None:
    """Refuse, with one line naming resolution.cells_per_length, a grid of n_cells that would not
    fit: device_free_bytes is the GPU's free memory, or None on the CPU backend (one memory);
    storage, streaming and subgrid are resolution.storage, .streaming and .subgrid."""
    populations = population_bytes_per_cell(storage, streaming)
    gradient = 0 if subgrid == "smagorinsky" else GRADIENT_MODEL_BYTES_PER_CELL
    host_per_cell = (
        CPU_BYTES_PER_CELL - POPULATION_BYTES_PER_CELL["fp32"] + populations
        if device_free_bytes is None
        else HOST_BYTES_PER_CELL_WITH_GPU
    )
    host_per_cell += gradient if device_free_bytes is None else 0
    device_per_cell = DEVICE_OTHER_BYTES_PER_CELL + populations + gradient
    needs = [
        (
            "memory",
            FIXED_HOST_BYTES + n_cells * host_per_cell,
            available_host_bytes(),
            host_per_cell,
        )
    ]
    if device_free_bytes is not None:
        needs.append(
            (
                "GPU memory",
                n_cells * device_per_cell,
                device_free_bytes,
                device_per_cell,
            )
        )
    for what, need, available, per_cell in needs:
        if need > available:
            # cells grow as the cube of the resolution
            fits = cells_per_length * (
                max(available - (need - n_cells * per_cell), 0.0) / (n_cells * per_cell)
            ) ** (1 / 3)
            raise ConfigError(
                f"resolution.cells_per_length = {cells_per_length:g} gives {n_cells / 1e6:.1f} M "
                "cells, which "
                f"need about {need / 1e9:.1f} GB of {what} ({per_cell} B per cell) where "
                f"{available / 1e9:.1f} GB are free: lower resolution.cells_per_length to at most "
                f"{math.floor(fits)} or shrink domain.size_m"
            )

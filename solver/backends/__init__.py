"""Backends that run the kernels of cuda/: CUDA through CuPy, or the CPU through a host shell."""

from __future__ import annotations

import logging

from solver.backends.base import Backend
from solver.errors import ConfigError

log = logging.getLogger(__name__)

BACKENDS = ("auto", "cpu", "cuda")


def select_backend(name: str = "auto") -> Backend:
    """'cuda' or 'cpu' as asked; 'auto' takes CUDA when CuPy sees a usable GPU, else the CPU."""
    from solver.backends.cuda import CudaBackend, cuda_available

    if name not in BACKENDS:
        raise ConfigError(f"backend '{name}' is unknown: use one of {', '.join(BACKENDS)}")
    if name == "cuda" or (name == "auto" and cuda_available()):
        return CudaBackend()
    from solver.backends.cpu import CpuBackend

    return CpuBackend()


__all__ = ["Backend", "select_backend", "BACKENDS"]

"""Build the CPU shell of the kernels (cuda/host/*.cpp) into a shared library, once per source.

The library is compiled with the system C++ compiler and cached in the user's cache folder under
a hash of the sources, the flags, the compiler's version and the CPU model (``-march=native``
makes a library that only runs on CPUs like the one that built it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

from solver.errors import CompileError
from solver.lattice import CUDA_DIR

log = logging.getLogger(__name__)

HOST_SOURCES = sorted((CUDA_DIR / "host").glob("*.cpp"))
#: -fno-math-errno lets sqrtf vectorize; it changes no result. No -ffast-math: the arithmetic
#: stays IEEE. g++ and NVRTC both contract a*b+c into FMAs, not always the same ones, so CPU and
#: GPU agree to float32 round-off, not bit for bit (the agreement test allows 1e-5).
CXX_FLAGS = ("-O3", "-march=native", "-fno-math-errno", "-fopenmp", "-shared", "-fPIC", "-std=c++17")


def cache_dir() -> Path:
    """Where built libraries live: $SLIPSTREAM_CACHE, else $XDG_CACHE_HOME/slipstream, else
    ~/.cache/slipstream."""
    if "SLIPSTREAM_CACHE" in os.environ:
        return Path(os.environ["SLIPSTREAM_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "slipstream"


def _compiler() -> str:
    cxx = os.environ.get("CXX", "c++")
    if shutil.which(cxx) is None:
        raise CompileError(
            f"no C++ compiler: '{cxx}' is not on the PATH; install g++ (e.g. apt-get install g++) "
            "or set CXX to a compiler"
        )
    return cxx


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "flags")):
                return line
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _sources() -> list[Path]:
    """Every file the library depends on: the device headers and the host shells."""
    return sorted(CUDA_DIR.glob("*.cuh")) + sorted((CUDA_DIR / "host").glob("*.h")) + HOST_SOURCES


def build_host_library() -> Path:
    """Return the path of the compiled host library, compiling it if the cache lacks it."""
    cxx = _compiler()
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256()
    for part in [*(p.read_bytes() for p in _sources()), " ".join(CXX_FLAGS).encode(),
                 version.encode(), _cpu_model().encode()]:
        digest.update(part)
    target = cache_dir() / f"lbm_host_{digest.hexdigest()[:16]}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".so.tmp", delete=False) as tmp:
        tmp_path = Path(tmp.name)
    cmd = [cxx, *CXX_FLAGS, "-o", str(tmp_path), *map(str, HOST_SOURCES)]
    log.info("compiling the CPU kernels: %s", " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tmp_path.unlink(missing_ok=True)
        output = (proc.stdout + proc.stderr).strip()
        raise CompileError(f"compiling the CPU kernels failed: {' '.join(cmd)}\n{output}")
    os.replace(tmp_path, target)
    return target

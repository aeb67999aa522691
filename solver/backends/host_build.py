"""Build the CPU shell of the kernels (cuda/host/*.cpp) into a shared library, once per source.

The library is compiled with the system C++ compiler and cached in the user's cache folder under
a hash of the sources, the flags, the compiler's version and the CPU model (``-march=native``
makes a library that only runs on CPUs like the one that built it).

``SLIPSTREAM_CPU_ARCH`` overrides the target of ``-march`` (default ``native``): with
``x86-64-v3`` (AVX2, FMA) an AVX-512 machine builds and runs the library that an AVX2-only machine
would, so its float32 rounding can be checked on one machine (docs/performance.md). The target is
part of the flags, hence of the cache key.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from solver.errors import CompileError
from solver.lattice import CUDA_DIR

log = logging.getLogger(__name__)

#: The shell's translation units (every .cpp of cuda/host), the longest to compile first, so that
#: a build on two cores runs the in-place step's parity 1 beside the others: on a 2-vCPU AMD EPYC
#: (g++ 12.2) they took 54, 34, 30 and 2 s, 89 s in all in alphabetical order and 107 s as one unit.
HOST_SOURCES = [
    CUDA_DIR / "host" / name
    for name in (
        "lbm_host_in_place_1.cpp",
        "lbm_host.cpp",
        "lbm_host_in_place_0.cpp",
        "voxelize_host.cpp",
    )
]
#: -fno-math-errno lets sqrtf vectorize; it changes no result. No -ffast-math: the arithmetic
#: stays IEEE. g++ and NVRTC both contract a*b+c into FMAs, not always the same ones, so CPU and
#: GPU agree to float32 round-off, not bit for bit (the agreement test allows 1e-5).
BASE_FLAGS = ("-O3", "-fno-math-errno", "-fopenmp", "-shared", "-fPIC", "-std=c++17")
#: On x86 g++ tunes its vector loops for 256-bit registers even where -march allows AVX-512;
#: the kernels' chunks of 16 cells then take two registers per value. In 512-bit registers the
#: entropic LES box ran 1.26-1.32 times faster and BGK 1.07-1.13 (docs/performance.md). Where
#: the target has no AVX-512 (x86-64-v3) the flag changes nothing.
X86_FLAGS = ("-mprefer-vector-width=512",)
ARCH_ENV = "SLIPSTREAM_CPU_ARCH"


def cpu_arch() -> str:
    """The -march target: $SLIPSTREAM_CPU_ARCH (e.g. x86-64-v3), else native."""
    arch = os.environ.get(ARCH_ENV, "").strip() or "native"
    if not all(ch.isalnum() or ch in "-_." for ch in arch):
        raise CompileError(
            f"{ARCH_ENV}={arch!r} is not a -march target: use e.g. native, x86-64-v3 or x86-64-v4"
        )
    return arch


#: The bulk loop's source prefetches keep their lines in every cache level on Intel processors
#: and bypass them (non-temporal) elsewhere: each was the faster where measured, the first on a
#: 2-vCPU Intel Xeon (the LES box 1.2-1.3 times, the car 1.3 times), the second on a 2-vCPU AMD
#: EPYC (docs/performance.md).
PREFETCH_LOCALITY = {"GenuineIntel": 3}


def cpu_vendor() -> str:
    """The processor's vendor_id from /proc/cpuinfo ('' where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def cxx_flags() -> tuple[str, ...]:
    """The compiler flags: -march from cpu_arch(), X86_FLAGS on an x86-64 machine, and the
    prefetch locality of the processor's vendor."""
    x86 = X86_FLAGS if platform.machine().lower() in ("x86_64", "amd64") else ()
    locality = PREFETCH_LOCALITY.get(cpu_vendor(), 0)
    return (
        BASE_FLAGS[0],
        f"-march={cpu_arch()}",
        *x86,
        f"-DLBM_PREFETCH_LOCALITY={locality}",
        *BASE_FLAGS[1:],
    )


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


def build_host_library(storage_code: int = 0) -> Path:
    """Return the path of the compiled host library for a population storage (LBM_STORAGE of
    cuda/lbm_lattice.cuh: 0 float32, 1 binary16 scaled, 2 the 16-bit FP16C format), compiling it
    if the cache lacks it."""
    cxx = _compiler()
    flags = cxx_flags() + ((f"-DLBM_STORAGE={storage_code}",) if storage_code else ())
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256()
    for part in [
        *(p.read_bytes() for p in _sources()),
        " ".join(flags).encode(),
        version.encode(),
        _cpu_model().encode(),
    ]:
        digest.update(part)
    target = cache_dir() / f"lbm_host_{digest.hexdigest()[:16]}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        objects = _compile_objects(cxx, flags, Path(work))
        tmp_path = Path(work) / target.name
        _run_compiler(cxx, [cxx, *flags, "-o", str(tmp_path), *map(str, objects)])
        os.replace(tmp_path, target)
    return target


def _compile_objects(cxx: str, flags: tuple[str, ...], work: Path) -> list[Path]:
    """Compile each of HOST_SOURCES into an object in `work`, as many at a time as this process
    may use cores (the in-place step's two parities are units of their own,
    cuda/host/lbm_host_in_place.h)."""
    objects = [work / f"{source.stem}.o" for source in HOST_SOURCES]
    commands = [
        [cxx, *flags, "-c", "-o", str(obj), str(source)]
        for source, obj in zip(HOST_SOURCES, objects, strict=True)
    ]
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        for command in commands:
            log.info("compiling the CPU kernels: %s", " ".join(command))
        list(pool.map(lambda command: _run_compiler(cxx, command), commands))
    return objects


def _run_compiler(cxx: str, cmd: list[str]) -> None:
    """Run one compiler command; CompileError with the command and its output if it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).strip()
        if ARCH_ENV in os.environ and "march" in output:
            raise CompileError(
                f"{ARCH_ENV}={cpu_arch()} is not a target {cxx} knows: unset it or use "
                "e.g. x86-64-v3"
            )
        raise CompileError(f"compiling the CPU kernels failed: {' '.join(cmd)}\n{output}")

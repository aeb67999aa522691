"""Backends: the CUDA shell compiles, CPU and GPU agree, build errors are clear."""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import PERIODIC, ROOT, decoded_populations, make_case

from solver.backends.cuda import cuda_available
from solver.config import load_case, merge_case
from solver.errors import BackendUnavailableError, CompileError
from solver.lattice import CUDA_DIR

CU_FILES = sorted(CUDA_DIR.glob("*.cu"))


def tunnel_box(storage: str, subgrid: str = "smagorinsky"):
    """The box near the moving ground at 12 cells (body, inlet, outflow, free slip, moving wall,
    LES with the wall model) in a population storage, under a subgrid model."""
    return load_case(
        ROOT / "cases" / "windtunnel_box.yaml",
        [
            "resolution.cells_per_length=12",
            "resolution.min_gap_cells=0",
            f"resolution.storage={storage}",
            f"resolution.subgrid={subgrid}",
        ],
    )


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on the PATH")
@pytest.mark.parametrize("source", CU_FILES, ids=[p.name for p in CU_FILES])
def test_cu_compiles_to_ptx_for_sm90(source, tmp_path):
    """Every .cu compiles to PTX for sm_90 with each population storage (LBM_STORAGE 0, 1, 2:
    float32, binary16 scaled, FP16C). The three compilers run at once: nvcc is single-threaded
    and lbm.cu takes it 65-87 s a storage on a 2-vCPU AMD EPYC (one at a time, 3.7 minutes).
    float32, the storage CuPy builds by default, compiles with the optimizer on, as CuPy does; the
    two 16-bit storages differ from it only in their load and store functions, which the front end
    checks, so they compile without device optimization (`-Xcicc -O0`, 36 s on that machine)."""
    kernels = re.findall(r'extern "C" __global__ void (\w+)', source.read_text())
    assert kernels

    def compile_ptx(storage: int) -> tuple[subprocess.CompletedProcess, str]:
        ptx = tmp_path / f"{source.stem}_{storage}.ptx"
        storage_flag = f"-DLBM_STORAGE={storage}"
        optimizer = [] if storage == 0 else ["-Xcicc", "-O0"]
        command = [
            "nvcc",
            "-ptx",
            "-arch=sm_90",
            storage_flag,
            *optimizer,
            "-o",
            str(ptx),
            str(source),
        ]
        proc = subprocess.run(command, capture_output=True, text=True)
        return proc, ptx.read_text() if proc.returncode == 0 else ""

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(compile_ptx, [0, 1, 2]))
    for storage, (proc, text) in enumerate(results):
        assert proc.returncode == 0, f"LBM_STORAGE={storage}: {proc.stderr}"
        assert ".target sm_90" in text, f"LBM_STORAGE={storage}"
        for name in kernels:
            assert f".entry {name}" in text, f"LBM_STORAGE={storage}: no {name}"


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU (none usable here)")
@pytest.mark.parametrize(
    "storage, subgrid",
    [("fp32", "smagorinsky"), ("fp16s", "smagorinsky"), ("fp16c", "smagorinsky"), ("fp32", "wale")],
    ids=["fp32", "fp16s", "fp16c", "fp32-wale"],
)
def test_cpu_and_cuda_agree_after_20_steps(cpu, storage, subgrid):
    """The box near the moving ground (body, inlet, outflow, free-slip, moving wall, LES),
    20 steps on each backend: populations agree within 1e-5 relative to their scale with float32
    storage, and within 2^-9 of the scale with 16-bit storage, where the two shells' different
    float32 contractions can round a population to the neighbouring 16-bit value. 20 steps, not
    200: on this LES flow two float32 orderings of the same arithmetic (the plane walls' fill
    against the general wall rules, both on the CPU) differed by 1.3e-7 in velocity after 20
    steps and by 1.8e-5 after 200, so at 200 the flow's own growth of round-off could exceed
    the tolerance, while a rule that differs shows at once. WALE's passes (cuda/lbm_subgrid.cuh)
    likewise. (Not yet run on a GPU.)"""
    from solver.backends.cuda import CudaBackend
    from solver.simulation import Simulation

    case = tunnel_box(storage, subgrid)
    results = []
    for backend in (cpu, CudaBackend()):
        sim = Simulation(case, backend)
        forces = sim.advance(20)
        results.append((sim.populations(), forces))
    (f_cpu, force_cpu), (f_gpu, force_gpu) = results
    f_cpu, f_gpu = decoded_populations(f_cpu), decoded_populations(f_gpu)
    scale = np.max(np.abs(f_cpu))
    assert np.max(np.abs(f_cpu - f_gpu)) <= (1e-5 if storage == "fp32" else 2.0**-9) * scale
    assert np.allclose(
        force_cpu[-1], force_gpu[-1], rtol=1e-4, atol=1e-6 * np.abs(force_cpu[-1]).max()
    )


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU (none usable here)")
@pytest.mark.parametrize("storage", ["fp32", "fp16s"])
@pytest.mark.parametrize("grid", ["periodic", "tunnel"])
def test_cuda_in_place_streaming_agrees_with_the_cpu_pull(cpu, storage, grid):
    """20 steps of a periodic box of 40 x 9 x 10 cells (the vehicle cases' LES operator, a
    Taylor-Green start) and of the box near the moving ground of the test above: the GPU's
    in-place streaming (resolution.streaming=aa: the fills, lbm_general_cells_aside,
    lbm_step_in_place, lbm_general_cells_back) against the CPU's two-buffer pull, the updated
    cells' populations within the tolerances of the test above. (Not yet run on a GPU.)"""
    from solver.backends.cuda import CudaBackend
    from solver.lattice import FLUID, INLET, OUTFLOW, TYPE_MASK
    from solver.simulation import Simulation

    if grid == "periodic":
        case = make_case(
            name="box",
            flow={"speed_m_s": 1.0, "reynolds": 1e4, "initial": "taylor_green"},
            domain={"size_m": [1.0, 9 / 40, 10 / 40], "boundaries": PERIODIC},
            body={"reference_length_m": 1.0},
            resolution={
                "cells_per_length": 40,
                "u_lattice": 0.05,
                "collision": "entropic",
                "smagorinsky_cs": 0.16,
                "storage": storage,
            },
        )
    else:
        case = tunnel_box(storage)
    results = []
    for backend, streaming in ((cpu, "ab"), (CudaBackend(), "aa")):
        sim = Simulation(merge_case(case, [f"resolution.streaming={streaming}"]), backend)
        sim.advance(20)
        planes = decoded_populations(sim.populations()).reshape(19, -1)[:, : sim.grid.n_cells]
        updated = np.isin(sim.flags_host & TYPE_MASK, (FLUID, INLET, OUTFLOW)).reshape(-1)
        results.append(planes[:, updated])
    tol = (1e-5 if storage == "fp32" else 2.0**-9) * np.max(np.abs(results[0]))
    assert np.max(np.abs(results[0] - results[1])) <= tol


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU (none usable here)")
def test_params_record_has_nvrtcs_layout():
    """The record CuPy passes by value has the size and offsets NVRTC gives LbmParams."""
    from solver.backends.cuda import CudaBackend
    from solver.kernel_params import FIELDS, params_dtype

    layout, dtype = CudaBackend().params_layout(), params_dtype()
    assert layout[0] == dtype.itemsize
    assert [int(v) for v in layout[1:]] == [dtype.fields[name][1] for _, name in FIELDS]


@pytest.mark.skipif(cuda_available(), reason="a GPU is usable here")
def test_cuda_backend_refused_without_gpu():
    from solver.backends import select_backend

    with pytest.raises(BackendUnavailableError, match="--backend cpu"):
        select_backend("cuda")


def test_failed_compile_shows_command_and_output(tmp_path, monkeypatch):
    from solver.backends import host_build

    monkeypatch.setenv("SLIPSTREAM_CACHE", str(tmp_path))
    monkeypatch.setattr(host_build, "BASE_FLAGS", (*host_build.BASE_FLAGS, "-fno-such-option"))
    with pytest.raises(CompileError) as err:
        host_build.build_host_library()
    message = str(err.value)
    assert "cuda/host/lbm_host" in message and "-O3" in message and "error" in message
    assert not list(tmp_path.glob("*.so"))


def test_host_sources_are_every_translation_unit_of_the_shell():
    """The build compiles HOST_SOURCES, in the order it lists them: every .cpp of cuda/host,
    each once."""
    from solver.backends import host_build

    units = sorted((host_build.CUDA_DIR / "host").glob("*.cpp"))
    assert sorted(host_build.HOST_SOURCES) == units and len(units) == 4


def test_cpu_arch_override_is_in_the_flags_and_the_cache_key(monkeypatch):
    """SLIPSTREAM_CPU_ARCH=x86-64-v3 builds for AVX2 (the flags say so); a target that is not a
    word is refused in one line naming the variable."""
    from solver.backends import host_build

    monkeypatch.delenv("SLIPSTREAM_CPU_ARCH", raising=False)
    assert "-march=native" in host_build.cxx_flags()
    monkeypatch.setenv("SLIPSTREAM_CPU_ARCH", "x86-64-v3")
    assert (
        "-march=x86-64-v3" in host_build.cxx_flags()
        and "-march=native" not in host_build.cxx_flags()
    )
    monkeypatch.setenv("SLIPSTREAM_CPU_ARCH", "x86-64 -O0")
    with pytest.raises(CompileError, match="SLIPSTREAM_CPU_ARCH") as err:
        host_build.cxx_flags()
    assert len(str(err.value).splitlines()) == 1


def test_unknown_cpu_arch_is_named(tmp_path, monkeypatch):
    from solver.backends import host_build

    monkeypatch.setenv("SLIPSTREAM_CACHE", str(tmp_path))
    monkeypatch.setenv("SLIPSTREAM_CPU_ARCH", "no-such-cpu")
    with pytest.raises(CompileError, match="SLIPSTREAM_CPU_ARCH=no-such-cpu") as err:
        host_build.build_host_library()
    assert len(str(err.value).splitlines()) == 1
    assert not list(tmp_path.glob("*.so"))


def test_missing_compiler_is_named(tmp_path, monkeypatch):
    from solver.backends import host_build

    monkeypatch.setenv("SLIPSTREAM_CACHE", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler")
    with pytest.raises(CompileError, match="no-such-compiler"):
        host_build.build_host_library()


def test_cpu_buffers_start_on_a_cache_line(cpu):
    """The CPU backend's arrays start on 64 B, so the bulk loop's chunks of 16 floats that start
    on a line of a plane (lattice.plane_stride is a multiple of 16 floats) load and store one
    line."""
    for shape, dtype in (((19 * 1000 + 3,), np.float32), ((7, 5), np.float64), ((3,), np.uint8)):
        a = cpu.zeros(shape, dtype)
        assert a.ctypes.data % 64 == 0
        assert a.shape == shape and a.dtype == dtype and not a.any()
        assert a.flags.c_contiguous and a.flags.writeable


def test_vector_width_flag_only_on_x86(monkeypatch):
    """x86-64 builds its vector loops for 512-bit registers (where -march has AVX-512); another
    architecture's compiler does not know the flag and does not get it."""
    from solver.backends import host_build

    monkeypatch.setattr(host_build.platform, "machine", lambda: "x86_64")
    assert "-mprefer-vector-width=512" in host_build.cxx_flags()
    monkeypatch.setattr(host_build.platform, "machine", lambda: "aarch64")
    assert not any(flag.startswith("-mprefer-vector-width") for flag in host_build.cxx_flags())


def test_prefetch_locality_follows_the_vendor(monkeypatch):
    """Intel processors prefetch the bulk's sources into every cache level (3), others
    non-temporally (0), as measured (docs/performance.md)."""
    from solver.backends import host_build

    monkeypatch.setattr(host_build, "cpu_vendor", lambda: "GenuineIntel")
    assert "-DLBM_PREFETCH_LOCALITY=3" in host_build.cxx_flags()
    monkeypatch.setattr(host_build, "cpu_vendor", lambda: "AuthenticAMD")
    assert "-DLBM_PREFETCH_LOCALITY=0" in host_build.cxx_flags()


@pytest.mark.parametrize("storage", ["fp32", "fp16s", "fp16c"])
@pytest.mark.parametrize(
    "case_file, overrides",
    [
        ("windtunnel_box.yaml", ["resolution.cells_per_length=12", "resolution.min_gap_cells=0"]),
        ("taylor_green.yaml", ["resolution.cells_per_length=40"]),
    ],
    ids=["tunnel", "periodic"],
)
def test_non_temporal_stores_change_no_population(storage, case_file, overrides):
    """The CPU shell's non-temporal stores (LbmParams.stream_stores, chosen for grids of more than
    8 last-level caches) store the same populations as ordinary ones: 30 steps of the box near
    the moving ground (body, inlet, outflow, free slip, moving wall, LES; rows whose runs start
    and end off the cache lines) and of a periodic box of 40 cells (its rows' wrapped chunks), bit
    for bit, with the cache taken as 0 bytes (every grid streams) and as 1 TiB (none does). (A
    build without AVX-512 stores ordinarily either way: cuda/host/lbm_host_shell.h, streams.)"""
    from solver.backends.cpu import CpuBackend
    from solver.simulation import Simulation

    case = load_case(ROOT / "cases" / case_file, [*overrides, f"resolution.storage={storage}"])
    results = []
    for llc_bytes in (0, 1 << 40):
        backend = CpuBackend()
        backend._llc_bytes = llc_bytes
        sim = Simulation(case, backend)
        assert sim.params["stream_stores"] == (llc_bytes == 0)
        sim.advance(30)
        results.append(sim.populations())
    assert np.array_equal(results[0], results[1])


def test_last_level_cache_read_from_sysfs(tmp_path):
    """The highest cache level's size from sysfs (index*/level, index*/size), and 32 MiB where
    sysfs has none."""
    from solver.backends.cpu import last_level_cache_bytes

    for index, level, size in ((0, 1, "48K"), (2, 2, "1024K"), (3, 3, "32768K"), (4, 2, "2M")):
        (tmp_path / f"index{index}").mkdir()
        (tmp_path / f"index{index}" / "level").write_text(f"{level}\n")
        (tmp_path / f"index{index}" / "size").write_text(f"{size}\n")
    assert last_level_cache_bytes(tmp_path) == 32 << 20
    assert last_level_cache_bytes(tmp_path / "missing") == 32 << 20
    (tmp_path / "index3" / "size").write_text("105M\n")
    assert last_level_cache_bytes(tmp_path) == 105 << 20


def test_cpu_streams_stores_only_beyond_eight_caches(cpu):
    """Grids whose two population buffers are up to 8 last-level caches keep ordinary stores."""
    assert not cpu.streams_stores(8 * cpu._llc_bytes)
    assert cpu.streams_stores(8 * cpu._llc_bytes + 1)

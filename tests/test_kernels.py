"""The kernels against an independent NumPy D3Q19 step, and the lattice tables against the
header."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import decoded_populations, run_periodic_step, stored_populations
from oracle import entropic_equilibrium, equilibrium, step_periodic, step_periodic_entropic

from solver import lattice
from solver.kernel_params import FIELDS, params_dtype


def test_link_table_matches_header():
    text = lattice.HEADER.read_text()
    links = re.findall(r"X\((\d+), (-?\d), (-?\d), (-?\d), LBM_W(\d)\)", text)
    assert len(links) == 19
    for q, cx, cy, cz, w in links:
        assert tuple(lattice.C[int(q)]) == (int(cx), int(cy), int(cz))
        assert lattice.W[int(q)] == pytest.approx({"0": 1 / 3, "1": 1 / 18, "2": 1 / 36}[w])
    assert np.all(lattice.C[lattice.OPP] == -lattice.C)
    assert lattice.W.sum() == pytest.approx(1.0)


def test_params_record_has_the_compilers_layout(cpu):
    """The numpy record built from the header's LBM_PARAMS list has the size and field offsets
    the C++ compiler gives the struct (the GPU check runs the same comparison for NVRTC)."""
    dtype = params_dtype()
    layout = cpu.params_layout()
    assert layout[0] == dtype.itemsize
    assert [int(v) for v in layout[1:]] == [dtype.fields[name][1] for _, name in FIELDS]
    assert {"flags", "tau_x", "cell_force", "nx", "cs2_smag", "wall_ux"} <= set(dtype.names)


@pytest.mark.parametrize("itemsize", [4, 2])
def test_plane_stride_breaks_cache_set_aliasing(itemsize):
    """Float32 and 16-bit planes alike: 19 planes start on 19 different 64-byte lines of a 4 KiB
    page, at every cell count."""
    for n in (1, 8, 64**3, 128**3, 130**3, 192**3, *range(100_000, 4_000_000, 9_973)):
        s = lattice.plane_stride(n, itemsize)
        assert s >= n
        lines = {(q * s * itemsize % 4096) // 64 for q in range(19)}
        assert len(lines) == 19, n


def _random_state(shape, seed=0):
    rng = np.random.default_rng(seed)
    rho = 1 + 0.01 * rng.standard_normal(shape)
    u = 0.05 * rng.standard_normal((3, *shape))
    f = (
        equilibrium(rho, u)
        + 2e-3 * rng.standard_normal((19, *shape)) * lattice.W[:, None, None, None]
    )
    return f


@pytest.mark.parametrize("cs_smag", [0.0, 0.17])
def test_cpu_step_matches_numpy_oracle(cpu, cs_smag):
    """A random non-equilibrium state on a 9x7x5 periodic box: one step of the C++ kernel equals
    the NumPy textbook step to float32 round-off (1e-7 relative to the populations)."""
    nz, ny, nx = 5, 7, 9
    f = _random_state((nz, ny, nx))
    tau = 0.62
    got = run_periodic_step(cpu, f, tau, cs_smag)
    ref = step_periodic(f, tau, cs_smag)
    assert np.max(np.abs(got - ref) / lattice.W[:, None, None, None]) < 2e-6
    assert got.sum() == pytest.approx(f.sum(), rel=1e-7)


def _as_stored(f, storage):
    """Unshifted populations rounded as the storage rounds them."""
    shift = lattice.W[:, None, None, None]
    return decoded_populations(stored_populations(f - shift, storage)) + shift


#: Half a unit in the last place of each 16-bit storage, relative, and (fp16c) the absolute one
#: below its normal range.
HALF_UNIT = {"fp16s": (2.0**-11, 0.0), "fp16c": (2.0**-12, 2.0**-26)}


@pytest.mark.parametrize("storage", ["fp16s", "fp16c"])
@pytest.mark.parametrize("collision", ["bgk", "entropic"])
@pytest.mark.parametrize("nx", [9, 40])
def test_16_bit_step_matches_the_oracle_to_its_rounding(cpu, collision, nx, storage):
    """16-bit storage (resolution.storage: fp16s, fp16c): one step of the kernel from a random
    state equals the NumPy step of the same stored (rounded) state to the storage's round-off,
    half a unit in the last place (2^-11 of each shifted population for binary16, 2^-12 for
    FP16C, which adds 2^-26 below its normal range), over rows of 9 (the plain loop) and 40 cells
    (chunks converted 16 at a time, the wrapped ones partly cell by cell), and conserves the mass
    of that state to the same round-off."""
    shape = (3, 4, nx)
    f = _as_stored(_random_state(shape, seed=nx), storage)
    shift = lattice.W[:, None, None, None]
    if collision == "bgk":
        ref = step_periodic(f, 0.62, 0.17)
    else:
        ref = step_periodic_entropic(f, 0.5001, 0.17)
    got = run_periodic_step(
        cpu, f, 0.62 if collision == "bgk" else 0.5001, 0.17, collision, storage=storage
    )
    relative, absolute = HALF_UNIT[storage]
    bound = relative * np.abs(ref - shift) + absolute + 2e-6 * shift
    assert np.all(np.abs(got - ref) <= bound)
    assert np.max(np.abs(got - ref) / shift) > 1e-6  # it did round: the storage is 16-bit
    assert got.sum() == pytest.approx(f.sum(), abs=float(np.sum(bound)))


def test_fp16c_kernel_codes_are_the_formats_definition(cpu):
    """The kernels' FP16C encoding and decoding are the format's NumPy definition
    (tests/conftest.py), bit for bit: the equilibrium the 16-bit library stores for random
    moments (flows from 1e-5 to 0.1 of the lattice speed: shifted populations from below the
    format's normal range, 2^-14, to 0.4, of both signs) is the encoding of the float32 one the
    float32 library stores, and the moments read back from the codes equal those the float32
    library reads from their decoded values."""
    from conftest import fp16c_decode, fp16c_encode

    rng = np.random.default_rng(3)
    n = 4096
    scale = 10.0 ** rng.uniform(-5, -1, n)
    moments = np.concatenate(
        [1 + scale * rng.standard_normal(n), *(scale * rng.standard_normal((3, n)))]
    ).astype(np.float32)
    bgk = lattice.COLLISIONS["bgk"]
    f32 = np.zeros(19 * lattice.plane_stride(n), np.float32)
    cpu.init_equilibrium(f32, moments, n, lattice.plane_stride(n), bgk)
    codes = np.zeros(19 * lattice.plane_stride(n, 2), np.uint16)
    cpu.init_equilibrium(codes, moments, n, lattice.plane_stride(n, 2), bgk)
    stored = f32.reshape(19, -1)[:, :n]
    assert np.min(np.abs(stored[stored != 0])) < 2.0**-14 < np.max(np.abs(stored))
    assert np.all(codes.reshape(19, -1)[:, :n] == fp16c_encode(stored))
    decoded = np.zeros_like(f32)
    decoded.reshape(19, -1)[:, :n] = fp16c_decode(codes.reshape(19, -1)[:, :n])
    from_codes, from_decoded = np.zeros(4 * n, np.float32), np.zeros(4 * n, np.float32)
    cpu.fields(codes, from_codes, n, lattice.plane_stride(n, 2), bgk)
    cpu.fields(decoded, from_decoded, n, lattice.plane_stride(n), bgk)
    assert np.array_equal(from_codes, from_decoded)


@pytest.mark.parametrize("nx", [17, 18, 40, 44])
def test_bulk_rows_of_any_length_match_the_oracle(cpu, nx):
    """The CPU shell runs a row of a periodic box in chunks of 16 that overlap where the row is
    not a multiple of 16, the chunks at x = 0 and nx - 1 with the wrapped links, and runs shorter
    than a chunk in a plain loop: rows of 17, 18, 40 and 44 cells, BGK and the entropic operator,
    each equal the NumPy step to float32 round-off."""
    rng = np.random.default_rng(nx)
    shape = (2, 2, nx)
    f = _random_state(shape, seed=nx)
    got = run_periodic_step(cpu, f, 0.62, 0.17)
    assert (
        np.max(np.abs(got - step_periodic(f, 0.62, 0.17)) / lattice.W[:, None, None, None]) < 2e-6
    )
    f = np.empty((19, *shape))
    for idx in np.ndindex(shape):
        f[(slice(None), *idx)] = entropic_equilibrium(
            1 + 0.01 * rng.standard_normal(), 0.05 * rng.standard_normal(3)
        )
    f += 2e-3 * rng.standard_normal(f.shape) * lattice.W[:, None, None, None]
    got = run_periodic_step(cpu, f, 0.5001, 0.17, collision="entropic")
    ref = step_periodic_entropic(f, 0.5001, 0.17)
    assert np.max(np.abs(got - ref) / lattice.W[:, None, None, None]) < 2e-6


def test_step_near_rest_matches_the_oracle_and_leaves_the_callers_float_mode(cpu):
    """A fluid nearly at rest (velocities of 1e-7): the entropic step's products of such numbers
    fall below float32's normal range, which the CPU step flushes to zero for speed
    (cuda/host/lbm_host_shell.h); it still equals the NumPy step to round-off, and the calling
    thread gets its own floating-point mode back (a denormal float32 survives arithmetic)."""
    rng = np.random.default_rng(7)
    shape = (5, 7, 9)
    f = np.empty((19, *shape))
    for idx in np.ndindex(shape):
        f[(slice(None), *idx)] = entropic_equilibrium(
            1 + 1e-7 * rng.standard_normal(), 1e-7 * rng.standard_normal(3)
        )
    got = run_periodic_step(cpu, f, 0.5001, 0.17, collision="entropic")
    ref = step_periodic_entropic(f, 0.5001, 0.17)
    assert np.max(np.abs(got - ref) / lattice.W[:, None, None, None]) < 2e-6
    tiny = np.float32(1e-38) * np.float32(0.5)
    assert tiny > 0 and np.isclose(tiny, 5e-39, rtol=1e-3)

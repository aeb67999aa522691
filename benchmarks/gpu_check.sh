#!/usr/bin/env bash
# The GPU check, in one call on a machine with an NVIDIA GPU and CuPy:
#   1. install carried wheels (.whl/: omegaconf) when present;
#   2. compile every .cu to PTX for sm_90 and the kernels through CuPy/NVRTC;
#   3. run the CPU-vs-GPU agreement test, the kernel tests and the refinement coupling's tests;
#   4. measure MLUPs against the device's copy bandwidth (the periodic boxes in both streamings too);
#   5. print a short table last.
# Usage: bash benchmarks/gpu_check.sh [SECONDS_PER_SIZE]   (writes logs to $OUT when set)
# The GPU machine lacks omegaconf; carry it as a wheel (omegaconf 2.4 needs only PyYAML, which
# is there), fetched here beforehand into the git-ignored .whl/ with
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 -d .whl omegaconf==2.4.0
# vtk, pyvista, meshio and paddle are not needed by these tests.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3}"
out="${OUT:-/tmp/gpu_check}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
python3 -m pytest -q -p no:cacheprovider tests/test_backends.py tests/test_kernels.py tests/test_voxelize.py tests/test_refinement.py -rs 2>&1 \
    | tee "$out/tests.log"
tests_status=${PIPESTATUS[0]}
python3 benchmarks/lbm_mlups.py --backend cuda --seconds "$seconds" --sizes 128 256 --sphere 192 \
    --storage fp32 fp16s fp16c --in-place 2>&1 \
    | tee "$out/mlups.log"
bench_status=${PIPESTATUS[0]}
echo
echo "=== GPU check summary ==="
echo "tests (LBM and voxelizer agreement, PTX, kernels): $(tail -n 1 "$out/tests.log")"
grep -E "^(copy bandwidth|periodic box|sphere channel|aa / ab)" "$out/mlups.log"
exit $(( tests_status != 0 || bench_status != 0 ))

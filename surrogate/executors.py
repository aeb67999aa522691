"""Who computes a sweep's samples: a local process pool, or Ray tasks on a cluster.

Both take SampleJobs and yield SampleOutcomes as samples finish; workers write their files
straight into the dataset folder (on a cluster: a folder every node mounts).
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from solver.backends.cuda import cuda_device_count
from solver.errors import SlipstreamError
from surrogate.sample_job import SampleJob, SampleOutcome, run_sample
from surrogate.sweep_config import ExecutorConfig, RayConfig

log = logging.getLogger(__name__)


class ExecutorError(SlipstreamError):
    """The executor cannot start or lost a worker; the finished samples are kept."""


class Executor(Protocol):
    def describe(self) -> str: ...

    def run(self, jobs: list[SampleJob]) -> Iterator[SampleOutcome]: ...


def make_executor(config: ExecutorConfig, ray: RayConfig) -> Executor:
    if config.kind == "ray":
        return RayExecutor(config, ray)
    return LocalExecutor(config)


class LocalExecutor:
    """A pool of processes on this machine: one per GPU where CuPy sees GPUs (and the backend
    allows them), else cores / threads_per_worker CPU workers of threads_per_worker OpenMP
    threads each."""

    def __init__(self, config: ExecutorConfig) -> None:
        self.gpus = cuda_device_count() if config.backend in ("auto", "cuda") else 0
        if config.backend == "cuda" and self.gpus == 0:
            raise ExecutorError(
                "executor.backend is cuda but CuPy sees no GPU: install cupy-cuda12x "
                "on a GPU machine, or set executor.backend=cpu"
            )
        self.threads = config.threads_per_worker or 1
        cores = len(os.sched_getaffinity(0))
        default = self.gpus if self.gpus else max(1, cores // self.threads)
        self.workers = config.workers or default

    def describe(self) -> str:
        if self.gpus:
            return f"local pool: {self.workers} workers on {self.gpus} GPUs"
        return f"local pool: {self.workers} CPU workers x {self.threads} OpenMP threads"

    def run(self, jobs: list[SampleJob]) -> Iterator[SampleOutcome]:
        if not jobs:
            return
        context = multiprocessing.get_context("spawn")  # no inherited CUDA context or threads
        gpu_ids = context.Queue()
        for i in range(self.workers):
            gpu_ids.put(i % self.gpus if self.gpus else None)
        pool = ProcessPoolExecutor(
            self.workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(self.threads, gpu_ids),
        )
        try:
            futures = [pool.submit(run_sample, job) for job in jobs]
            for future in as_completed(futures):
                yield future.result()
        except BrokenProcessPool as exc:
            raise ExecutorError(
                "a sample's worker process died (out of memory?): the finished "
                "samples are kept; run the same command again to go on"
            ) from exc
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _init_worker(threads: int, gpu_ids: multiprocessing.Queue[int | None]) -> None:
    """Set up a pool process: die with the driver, pin its OpenMP threads and its GPU before
    anything loads the kernels."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:  # not Linux: orphans finish their sample and exit when the pool's pipe closes
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    os.environ["OMP_NUM_THREADS"] = str(threads)
    gpu = gpu_ids.get()
    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)


class RayExecutor:
    """Each sample a Ray task reserving ray.num_cpus_per_sample CPUs and (on a cluster with
    GPUs) one GPU; joins ray.address, or starts a local Ray of executor.workers CPUs."""

    def __init__(self, config: ExecutorConfig, ray_config: RayConfig) -> None:
        self.config = config
        self.ray_config = ray_config
        self.num_gpus = ray_config.num_gpus_per_sample

    def describe(self) -> str:
        where = self.ray_config.address or "a local Ray"
        cpus, gpus = self.ray_config.num_cpus_per_sample, self.num_gpus or 0
        return f"ray: {where}, {cpus:g} CPU and {gpus:g} GPU per sample"

    def run(self, jobs: list[SampleJob]) -> Iterator[SampleOutcome]:
        try:
            import ray
        except ImportError as exc:
            raise ExecutorError(
                "executor.kind is ray but Ray is not installed: pip install 'ray>=2.9' "
                "(or the project's [dist] extra)"
            ) from exc
        started = not ray.is_initialized()
        if started:
            try:
                if self.ray_config.address:
                    ray.init(address=self.ray_config.address, log_to_driver=False)
                else:
                    ray.init(
                        num_cpus=self.config.workers or len(os.sched_getaffinity(0)),
                        include_dashboard=False,
                        log_to_driver=False,
                    )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ExecutorError(
                    f"cannot start or join Ray at {self.ray_config.address or 'local'} "
                    f"({str(exc).splitlines()[0]}): check ray.address"
                ) from exc
        try:
            if self.num_gpus is None:
                self.num_gpus = 1.0 if ray.cluster_resources().get("GPU", 0) > 0 else 0.0
            task = ray.remote(
                num_cpus=self.ray_config.num_cpus_per_sample, num_gpus=self.num_gpus, max_retries=0
            )(run_sample)
            pending = {task.remote(job): job for job in jobs}
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                job = pending.pop(done[0])
                try:
                    yield ray.get(done[0])
                # the worker died; the sample is lost, not the sweep
                except ray.exceptions.RayError as exc:
                    yield SampleOutcome(
                        job.sample_id, "failed", "worker crashed", str(exc).splitlines()[0]
                    )
        finally:
            if started:
                ray.shutdown()

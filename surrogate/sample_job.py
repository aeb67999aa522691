"""One sample of a sweep, run by a worker: parameters -> mesh -> voxelize -> simulate -> record.

A worker gets a SampleJob (small, picklable), writes the sample's HDF5 file (or, on failure, a
small JSON record with the reason) straight into the dataset folder, and returns only a
SampleOutcome: the driver never holds fields.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from shapes.case_geometry import CASE_SCHEMA, case_mesh
from shapes.errors import MeshError
from shapes.geometry_config import family_overrides
from slipstream.model import attach_body_surface
from solver import __version__
from solver.atomic import atomic_path, write_text
from solver.backends import select_backend
from solver.config import merge_case
from solver.errors import ConfigError, DivergenceError, UnstableSettingsError
from solver.refined_simulation import make_simulation
from solver.results import field_origin, physical_fields
from solver.run import Runner
from solver.simulation import FORCE_TOTAL
from solver.surface import dynamic_pressure_pa, surface_pressure, wall_pressure_pa
from surrogate.sample_record import SampleData, set_write_time, write_sample
from surrogate.shape_features import sample_surface, signed_distance_grid
from surrogate.sweep_config import RecordConfig


@dataclass(frozen=True)
class SampleJob:
    sample_id: int
    family: str
    parameters: dict[str, float]  # name -> value, in the family's units
    units: dict[str, str]
    base_case: dict[str, Any]  # the resolved base case as a plain mapping
    record: RecordConfig
    config_hash: str
    samples_dir: str
    backend: str
    seed: int  # of the surface points


@dataclass
class SampleOutcome:
    sample_id: int
    status: str  # ok | failed
    reason: str = (
        ""  # failures: diverged | invalid shape | invalid settings | out of memory | error
    )
    message: str = ""
    cd: float = float("nan")
    cl: float = float("nan")
    converged: bool = False
    steps: int = 0
    timings_s: dict[str, float] = field(default_factory=dict)


def sample_path(samples_dir: Path, sample_id: int) -> Path:
    return samples_dir / f"sample_{sample_id:05d}.h5"


def failure_path(samples_dir: Path, sample_id: int) -> Path:
    return samples_dir / f"sample_{sample_id:05d}.failed.json"


#: Exceptions a sample can fail with, and the reason the sweep counts them under.
FAILURE_REASONS: tuple[tuple[type[BaseException], str], ...] = (
    (DivergenceError, "diverged"),
    (MeshError, "invalid shape"),
    (ConfigError, "invalid settings"),
    (UnstableSettingsError, "invalid settings"),
    (MemoryError, "out of memory"),
)


def run_sample(job: SampleJob) -> SampleOutcome:
    """Run one sample to its file; a failure is recorded with its reason, never raised."""
    samples_dir = Path(job.samples_dir)
    timings: dict[str, float] = {}
    try:
        return _run(job, samples_dir, timings)
    except Exception as exc:  # every failure of one sample is recorded and the sweep goes on
        reason = next(
            (r for t, r in FAILURE_REASONS if isinstance(exc, t)), f"error ({type(exc).__name__})"
        )
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        outcome = SampleOutcome(job.sample_id, "failed", reason, message, timings_s=timings)
        record = {
            **asdict(outcome),
            "parameters": job.parameters,
            "config_hash": job.config_hash,
            "solver_version": __version__,
        }
        write_text(failure_path(samples_dir, job.sample_id), json.dumps(record, indent=2) + "\n")
        return outcome


def _run(job: SampleJob, samples_dir: Path, timings: dict[str, float]) -> SampleOutcome:
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = now - clock
        clock = now

    case = merge_case(
        job.base_case,
        family_overrides(job.family, job.parameters),
        source=f"sample {job.sample_id}",
        schema=CASE_SCHEMA,
    )
    mesh = case_mesh(case)
    assert mesh is not None, "a sweep's case always has a family's mesh"
    lap("mesh")
    model = make_simulation(case, select_backend(job.backend), mesh)  # refinement levels too
    attach_body_surface(case, model, mesh)
    sim = model.finest  # the body's level
    lap("voxelize")
    result = Runner(model).run()
    lap("simulate")

    fields = result.best_fields
    surface = surface_pressure(sim, fields, mesh.vertices_m, mesh.faces)
    points = sample_surface(mesh, job.record.surface_points, job.seed)
    q_inf = dynamic_pressure_pa(sim)
    point_cp = wall_pressure_pa(sim, fields, points.points_m, points.normals) / q_inf
    shape = job.record.sdf_shape
    sdf = signed_distance_grid(mesh, (shape[0], shape[1], shape[2]), job.record.sdf_margin)
    stride = job.record.field_stride
    arrays = physical_fields(sim, fields, stride=stride)
    u = sim.units
    scalars = {
        "cd": result.cd,
        "cl": result.cl,
        "cd_pressure": result.cd_pressure,
        "cl_pressure": result.cl_pressure,
        "cd_friction": result.cd_friction,
        "cl_friction": result.cl_friction,
        "gap_cells": sim.fidelity.gap_cells or np.nan,
        "blockage": sim.fidelity.blockage or np.nan,
        "converged": result.converged,
        "steps": result.steps,
        "averaged_steps": result.averaged_steps,
        "frontal_area_m2": float(sim.reference_area_m2 or np.nan),
        "reynolds": u.reynolds,
        "mach": u.mach,
        "tau": u.tau,
        "u_lattice": u.u_lattice,
        "cells_per_length": case.resolution.cells_per_length,
        "dx_m": u.dx_m,
        "reference_length_m": u.length_m,
        "speed_m_s": u.speed_m_s,
        "mlups": result.mlups,
    }
    lap("postprocess")
    data = SampleData(
        sample_id=job.sample_id,
        family=job.family,
        config_hash=job.config_hash,
        solver_version=__version__,
        parameter_names=list(job.parameters),
        parameter_units=[job.units[k] for k in job.parameters],
        parameters=np.array(list(job.parameters.values())),
        scalars=scalars,
        cd_history=result.coefficients[:, FORCE_TOTAL, 0],
        cl_history=result.coefficients[:, FORCE_TOTAL, 1],
        vertices_m=mesh.vertices_m,
        faces=mesh.faces,
        vertex_cp=surface.cp_vertices,
        vertex_normals=mesh.vertex_normals(),
        points_m=points.points_m,
        point_normals=points.normals,
        point_cp=point_cp,
        sdf_m=sdf.distance_m,
        sdf_origin_m=sdf.origin_m,
        sdf_spacing_m=sdf.spacing_m,
        velocity_m_s=arrays["velocity"],
        pressure_pa=arrays["pressure"],
        solid=arrays["solid"],
        fields_origin_m=np.array(field_origin(sim)),
        fields_spacing_m=u.dx_m * stride,
        fields_time_averaged=result.fields_averaged,
        timings_s=dict(timings),
    )
    with atomic_path(sample_path(samples_dir, job.sample_id)) as tmp:
        write_sample(tmp, data)
        set_write_time(tmp, time.perf_counter() - clock)
    lap("write")
    failure_path(samples_dir, job.sample_id).unlink(missing_ok=True)
    return SampleOutcome(
        job.sample_id,
        "ok",
        cd=result.cd,
        cl=result.cl,
        converged=result.converged,
        steps=result.steps,
        timings_s=timings,
    )

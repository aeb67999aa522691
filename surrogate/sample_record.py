"""One dataset sample as one HDF5 file: the schema, the writer and the checks a reader relies on.

The schema, with units, is docs/dataset.md. A file is written under a temporary name and renamed
when complete, so a file with the final name was whole when it was written; `check_sample`
also catches one damaged later (truncated, or from another dataset's config).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Bumped when a key, a shape or a unit changes; readers refuse other versions.
SCHEMA_VERSION = 1

#: What every complete sample file holds (groups and datasets), checked by check_sample.
REQUIRED = (
    "parameters",
    "history/cd",
    "history/cl",
    "surface/vertices_m",
    "surface/faces",
    "surface/cp",
    "points/xyz_m",
    "points/normals",
    "points/cp",
    "sdf/distance_m",
    "fields/velocity_m_s",
    "fields/pressure_pa",
    "fields/solid",
)

STAGES = ("mesh", "voxelize", "simulate", "postprocess", "write")


@dataclass
class SampleData:
    """Everything one sample file holds, in the units of its names (docs/dataset.md)."""

    sample_id: int
    family: str
    config_hash: str
    solver_version: str
    parameter_names: list[str]
    parameter_units: list[str]
    parameters: np.ndarray  # [d]
    scalars: dict[str, float | int | bool]  # cd, cl, converged, frontal_area_m2, reynolds ...
    cd_history: np.ndarray  # [steps] Cd per step
    cl_history: np.ndarray  # [steps]
    vertices_m: np.ndarray  # [V, 3]
    faces: np.ndarray  # [F, 3]
    vertex_cp: np.ndarray  # [V]
    vertex_normals: np.ndarray  # [V, 3]
    points_m: np.ndarray  # [P, 3]
    point_normals: np.ndarray  # [P, 3]
    point_cp: np.ndarray  # [P]
    sdf_m: np.ndarray  # [nz, ny, nx]
    sdf_origin_m: np.ndarray  # [3]
    sdf_spacing_m: np.ndarray  # [3]
    velocity_m_s: np.ndarray  # [3, nz, ny, nx]
    pressure_pa: np.ndarray  # [nz, ny, nx]
    solid: np.ndarray  # [nz, ny, nx] uint8
    fields_origin_m: np.ndarray  # [3]
    fields_spacing_m: float
    fields_time_averaged: bool
    timings_s: dict[str, float]  # per stage


def write_sample(path: Path, s: SampleData) -> None:
    """Write the sample to path (the caller renames it into place)."""
    import h5py

    big = {"compression": "gzip", "compression_opts": 4, "shuffle": True}
    with h5py.File(path, "w") as h5:
        h5.attrs.update(
            {
                "schema_version": SCHEMA_VERSION,
                "sample_id": s.sample_id,
                "family": s.family,
                "config_hash": s.config_hash,
                "solver_version": s.solver_version,
            }
        )
        p = h5.create_dataset("parameters", data=np.asarray(s.parameters, np.float64))
        p.attrs["names"] = json.dumps(s.parameter_names)
        p.attrs["units"] = json.dumps(s.parameter_units)
        h5.create_group("results").attrs.update(s.scalars)
        h5.create_dataset("history/cd", data=s.cd_history.astype(np.float32), **big)
        h5.create_dataset("history/cl", data=s.cl_history.astype(np.float32), **big)
        h5.create_dataset("surface/vertices_m", data=s.vertices_m.astype(np.float32), **big)
        h5.create_dataset("surface/faces", data=s.faces.astype(np.int32), **big)
        h5.create_dataset("surface/cp", data=s.vertex_cp.astype(np.float32), **big)
        h5.create_dataset("surface/normals", data=s.vertex_normals.astype(np.float32), **big)
        h5.create_dataset("points/xyz_m", data=s.points_m.astype(np.float32), **big)
        h5.create_dataset("points/normals", data=s.point_normals.astype(np.float32), **big)
        h5.create_dataset("points/cp", data=s.point_cp.astype(np.float32), **big)
        d = h5.create_dataset("sdf/distance_m", data=s.sdf_m.astype(np.float32), **big)
        d.attrs.update({"origin_m": s.sdf_origin_m, "spacing_m": s.sdf_spacing_m})
        fields = h5.create_group("fields")
        fields.attrs.update(
            {
                "origin_m": s.fields_origin_m,
                "spacing_m": s.fields_spacing_m,
                "time_averaged": s.fields_time_averaged,
            }
        )
        fields.create_dataset("velocity_m_s", data=s.velocity_m_s.astype(np.float32), **big)
        fields.create_dataset("pressure_pa", data=s.pressure_pa.astype(np.float32), **big)
        fields.create_dataset("solid", data=s.solid.astype(np.uint8), **big)
        h5.create_group("timings").attrs.update(
            {f"{k}_s": float(v) for k, v in s.timings_s.items()}
        )


def set_write_time(path: Path, seconds: float) -> None:
    """Record the time the writing took in the file it went into."""
    import h5py

    with h5py.File(path, "r+") as h5:
        h5["timings"].attrs["write_s"] = float(seconds)


@dataclass(frozen=True)
class SampleSummary:
    """The small part of a sample file the sweep and the index need."""

    sample_id: int
    parameters: np.ndarray
    scalars: dict
    timings_s: dict[str, float]


def check_sample(path: Path, config_hash: str) -> SampleSummary:
    """Open a sample file and check it is whole and belongs to the dataset with config_hash;
    ValueError naming what is wrong otherwise."""
    import h5py

    try:
        with h5py.File(path, "r") as h5:
            if int(h5.attrs.get("schema_version", -1)) != SCHEMA_VERSION:
                raise ValueError(
                    f"schema version {h5.attrs.get('schema_version')} is not {SCHEMA_VERSION}"
                )
            if h5.attrs.get("config_hash") != config_hash:
                raise ValueError("it belongs to another sweep config")
            missing = [k for k in REQUIRED if k not in h5]
            if missing or "write_s" not in h5["timings"].attrs:
                raise ValueError(f"it lacks {missing[0] if missing else 'timings/write_s'}")
            for key in REQUIRED:  # reads every chunk: a damaged one fails its checksum or inflate
                h5[key][...]
            return SampleSummary(
                sample_id=int(h5.attrs["sample_id"]),
                parameters=h5["parameters"][...],
                scalars={k: _plain(v) for k, v in h5["results"].attrs.items()},
                timings_s={k[:-2]: float(v) for k, v in h5["timings"].attrs.items()},
            )
    except (OSError, KeyError) as exc:
        raise ValueError(f"it cannot be read ({str(exc).splitlines()[0]})") from exc


def _plain(value: object) -> float | int | bool | str:
    return value.item() if isinstance(value, np.generic) else value  # type: ignore[return-value]


def read_sample(path: Path) -> SampleData:
    """The whole sample file."""
    import h5py

    with h5py.File(path, "r") as h5:
        p, f = h5["parameters"], h5["fields"]
        return SampleData(
            sample_id=int(h5.attrs["sample_id"]),
            family=str(h5.attrs["family"]),
            config_hash=str(h5.attrs["config_hash"]),
            solver_version=str(h5.attrs["solver_version"]),
            parameter_names=json.loads(p.attrs["names"]),
            parameter_units=json.loads(p.attrs["units"]),
            parameters=p[...],
            scalars={k: _plain(v) for k, v in h5["results"].attrs.items()},
            cd_history=h5["history/cd"][...],
            cl_history=h5["history/cl"][...],
            vertices_m=h5["surface/vertices_m"][...],
            faces=h5["surface/faces"][...],
            vertex_cp=h5["surface/cp"][...],
            vertex_normals=h5["surface/normals"][...],
            points_m=h5["points/xyz_m"][...],
            point_normals=h5["points/normals"][...],
            point_cp=h5["points/cp"][...],
            sdf_m=h5["sdf/distance_m"][...],
            sdf_origin_m=h5["sdf/distance_m"].attrs["origin_m"],
            sdf_spacing_m=h5["sdf/distance_m"].attrs["spacing_m"],
            velocity_m_s=f["velocity_m_s"][...],
            pressure_pa=f["pressure_pa"][...],
            solid=f["solid"][...],
            fields_origin_m=f.attrs["origin_m"],
            fields_spacing_m=float(f.attrs["spacing_m"]),
            fields_time_averaged=bool(f.attrs["time_averaged"]),
            timings_s={k[:-2]: float(v) for k, v in h5["timings"].attrs.items()},
        )

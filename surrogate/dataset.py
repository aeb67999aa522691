"""A dataset folder made by generate_dataset.py, read through one class.

    ds = Dataset("results/datasets/sweep_demo")
    ds.parameters      # [n, d] in the units of ds.parameter_units
    ds.cd, ds.cl       # [n]
    ds.sample(k)       # everything of the k-th sample (SampleData): surface, points, SDF, fields

Only finished samples are listed (failed and pending ones are not); the schema is
docs/dataset.md.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from solver.errors import SlipstreamError
from surrogate.sample_record import SCHEMA_VERSION, SampleData, read_sample
from surrogate.sweep_config import Range

log = logging.getLogger(__name__)


class DatasetError(SlipstreamError):
    """A folder that is not a readable dataset of this schema."""


@dataclass(frozen=True)
class DatasetMeta:
    """dataset.json, what defines a dataset (docs/dataset.md): the schema it is written in, the
    hash of its sweep's definition (a sample of another hash does not belong to it), the shape
    family and its parameters' ranges, the solver's version and the definition itself (the
    base case and the record settings the sweep's sample jobs ran with)."""

    schema_version: int
    config_hash: str
    family: str
    parameters: list[Range]
    solver_version: str
    definition: dict[str, Any]
    created_utc: str = field(default="", compare=False)

    @classmethod
    def read(cls, folder: Path) -> DatasetMeta:
        """The folder's dataset.json; DatasetError (one line) if it is missing, unreadable, of
        another schema or lacks a key."""
        try:
            raw = json.loads((folder / "dataset.json").read_text())
        except (OSError, ValueError) as exc:
            raise DatasetError(
                f"'{folder}' is not a dataset (no readable dataset.json): give a folder "
                "made by generate_dataset.py"
            ) from exc
        if not isinstance(raw, dict) or raw.get("schema_version") != SCHEMA_VERSION:
            version = raw.get("schema_version") if isinstance(raw, dict) else None
            raise DatasetError(
                f"'{folder}' has dataset schema {version}, this version "
                f"reads {SCHEMA_VERSION}: regenerate it with generate_dataset.py"
            )
        try:
            return cls(
                schema_version=raw["schema_version"],
                config_hash=raw["config_hash"],
                family=raw["family"],
                parameters=[Range(**p) for p in raw["parameters"]],
                solver_version=raw["solver_version"],
                definition=raw["definition"],
                created_utc=raw.get("created_utc", ""),
            )
        except (KeyError, TypeError) as exc:
            raise DatasetError(
                f"'{folder}/dataset.json' lacks or mistypes {exc}: regenerate the dataset with "
                "generate_dataset.py"
            ) from exc

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"


class Dataset:
    def __init__(self, folder: str | Path) -> None:
        import h5py

        self.folder = Path(folder)
        meta = DatasetMeta.read(self.folder)
        self.meta = meta
        self.family: str = meta.family
        self.config_hash: str = meta.config_hash
        self.parameter_names: list[str] = [p.name for p in meta.parameters]
        self.parameter_units: list[str] = [p.unit for p in meta.parameters]
        self.low = np.array([p.low for p in meta.parameters])
        self.high = np.array([p.high for p in meta.parameters])
        ids, params, cd, cl, converged, files = [], [], [], [], [], []
        for path in sorted((self.folder / "samples").glob("sample_*.h5")):
            try:
                with h5py.File(path, "r") as h5:
                    if h5.attrs["config_hash"] != self.config_hash:
                        raise ValueError("it belongs to another sweep config")
                    r = h5["results"].attrs
                    row = (
                        int(h5.attrs["sample_id"]),
                        h5["parameters"][...],
                        float(r["cd"]),
                        float(r["cl"]),
                        bool(r["converged"]),
                    )
            except (OSError, KeyError, ValueError) as exc:
                log.warning(
                    "%s left out: %s (generate_dataset.py redoes it)",
                    path,
                    str(exc).splitlines()[0],
                )
                continue
            for column, value in zip((ids, params, cd, cl, converged), row, strict=False):
                column.append(value)
            files.append(path)
        self.ids = np.array(ids, dtype=int)
        self.parameters = np.array(params, dtype=float).reshape(len(ids), len(self.parameter_names))
        self.cd = np.array(cd)
        self.cl = np.array(cl)
        self.converged = np.array(converged, dtype=bool)
        self.files = files

    def __len__(self) -> int:
        return len(self.files)

    def sample(self, k: int) -> SampleData:
        """The k-th listed sample (not sample id k), read whole."""
        return read_sample(self.files[k])

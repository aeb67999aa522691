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
from pathlib import Path

import numpy as np

from solver.errors import SlipstreamError
from surrogate.sample_record import SCHEMA_VERSION, SampleData, read_sample

log = logging.getLogger(__name__)


class DatasetError(SlipstreamError):
    """A folder that is not a readable dataset of this schema."""


class Dataset:
    def __init__(self, folder: str | Path) -> None:
        import h5py

        self.folder = Path(folder)
        meta_path = self.folder / "dataset.json"
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise DatasetError(
                f"'{self.folder}' is not a dataset (no readable dataset.json): give a folder "
                "made by generate_dataset.py"
            ) from exc
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise DatasetError(
                f"'{self.folder}' has dataset schema {meta.get('schema_version')}, this version "
                f"reads {SCHEMA_VERSION}: regenerate it with generate_dataset.py"
            )
        self.family: str = meta["family"]
        self.config_hash: str = meta["config_hash"]
        self.parameter_names: list[str] = [p["name"] for p in meta["parameters"]]
        self.parameter_units: list[str] = [p["unit"] for p in meta["parameters"]]
        self.low = np.array([p["low"] for p in meta["parameters"]])
        self.high = np.array([p["high"] for p in meta["parameters"]])
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

"""surrogate.json, the metadata of an exported surrogate (surrogate/export.py writes it, the
Predictor, the ONNX and Triton exports, the optimizer and active learning read it), as one typed
dataclass. Imports no Paddle: the ONNX Runtime path reads it without one."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from surrogate.errors import PredictorError
from surrogate.kinds import KINDS
from surrogate.sweep_config import Range

#: Bumped when the folder's layout or the program's inputs or outputs change; the Predictor
#: refuses other versions. 2: model.onnx, and the outputs named with shapes and dtypes.
FORMAT_VERSION = 2

FILENAME = "surrogate.json"


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of the exported program: its name, shape (-1: dynamic) and dtype."""

    name: str
    shape: list[int]
    dtype: str
    meaning: str = ""


@dataclass(frozen=True)
class DatasetRef:
    """The dataset the surrogate was trained on."""

    folder: str
    config_hash: str
    family: str
    shapes: int


@dataclass(frozen=True)
class SurrogateMeta:
    """What an exported surrogate is: its kind and program's tensors, the network's sizes and
    normalization, the versions it was made with; where it was trained (train_surrogate.py), its
    dataset, split, test metrics and training settings; the kind's own entries: a ParamNet's
    trained parameters (name, unit, low, high), a GeoNet's trained extent [min, max corner] in
    metres and family."""

    format_version: int
    kind: str
    input: TensorSpec
    outputs: list[TensorSpec]
    architecture: dict[str, Any]
    normalization: dict[str, Any]
    onnx_opset: int
    versions: dict[str, str]
    created_utc: str
    dataset: DatasetRef | None = None  # None: exported without training (tests)
    split: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    parameters: list[Range] | None = None
    trained_extent_m: list[list[float]] | None = None
    family: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any], source: str) -> SurrogateMeta:
        """The metadata of a parsed surrogate.json (source names it in errors): PredictorError
        (one line) for another format version, an unknown kind or a missing or mistyped key."""
        version = raw.get("format_version")
        if version != FORMAT_VERSION:
            raise PredictorError(
                f"'{source}' was exported in format {version}; this version serves format "
                f"{FORMAT_VERSION}: export it again with train_surrogate.py"
            )
        if raw.get("kind") not in KINDS:
            raise PredictorError(
                f"'{source}' holds a surrogate of unknown kind '{raw.get('kind')}'; this version "
                f"serves {', '.join(KINDS)}: export it again with train_surrogate.py"
            )
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        try:
            values["input"] = TensorSpec(**raw["input"])
            values["outputs"] = [TensorSpec(**spec) for spec in raw["outputs"]]
            if raw.get("dataset") is not None:
                values["dataset"] = DatasetRef(**raw["dataset"])
            if raw.get("parameters") is not None:
                values["parameters"] = [Range(**p) for p in raw["parameters"]]
            return cls(**values)
        except (KeyError, TypeError) as exc:
            raise PredictorError(
                f"'{source}' lacks or mistypes {exc}: export it again with train_surrogate.py"
            ) from exc

    @classmethod
    def read(cls, folder: Path, files: tuple[str, ...] = ()) -> SurrogateMeta:
        """The folder's surrogate.json, checked (from_dict), and the folder holding files;
        PredictorError (one line) otherwise."""
        try:
            raw = json.loads((folder / FILENAME).read_text())
        except (OSError, ValueError) as exc:
            raise PredictorError(
                f"'{folder}' is not an exported surrogate (no readable {FILENAME}): "
                "give a folder written by train_surrogate.py"
            ) from exc
        if not isinstance(raw, dict):
            raise PredictorError(f"'{folder}/{FILENAME}' is not a mapping: export it again")
        meta = cls.from_dict(raw, str(folder))
        for name in files:
            if not (folder / name).is_file():
                raise PredictorError(
                    f"'{folder}' lacks {name}: export it again with train_surrogate.py"
                )
        return meta

    def to_dict(self) -> dict[str, Any]:
        """The JSON mapping; a kind's entries it does not have, and empty tensor meanings, are
        left out."""
        out = {k: v for k, v in asdict(self).items() if v is not None}
        for spec in (out["input"], *out["outputs"]):
            if not spec["meaning"]:
                del spec["meaning"]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

"""The surrogate kinds, one class each, in one registry (after PaddleScience's Arch): what the
training run, the export, the serving code and the optimizer need to know of a kind, so none of
them switches on its name. A new kind is a network (surrogate/models.py), a task that trains it
(surrogate/tasks.py) and a class here registered in KINDS; train_config's `model` key takes its
name.

    kind = KINDS["paramnet"]
    kind.input_name, kind.outputs        # the exported program's input and outputs
    kind.takes                           # "parameters" (Predictor.predict_parameters) or "surface"

This module imports no Paddle: the configuration and the ONNX Runtime path read it without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from surrogate.dataset import Dataset
    from surrogate.train_config import TrainConfig


@dataclass(frozen=True)
class HeldOutReport:
    """A trained model on the test split: metrics for metrics.json, the rows of
    test_predictions.csv under its header, and the metadata surrogate.json adds for this kind."""

    metrics: dict[str, float]
    header: list[str]
    rows: list[list[Any]]
    metadata: dict[str, Any]


class SurrogateKind:
    """What one kind of surrogate is: its exported program's input and outputs, the inputs a
    Predictor serves it with, how its task is built and tested, and how its exported network is
    rebuilt for gradients."""

    name: ClassVar[str]
    #: the exported program's input name; its shape is input_shape(metadata)
    input_name: ClassVar[str]
    #: the program's outputs in order: ONNX output names, shapes (-1: dynamic), dtype, meaning
    outputs: ClassVar[list[dict[str, Any]]]
    #: what a Predictor serves it with: "parameters" (predict_parameters) or "surface"
    #: (predict_surface)
    takes: ClassVar[str]
    #: (min, optimum, max) inputs per call a TensorRT engine is built for (surrogate/profile.py)
    batch_profile: ClassVar[tuple[int, int, int]]

    def input_shape(self, metadata: dict[str, Any]) -> list[int]:
        raise NotImplementedError

    def task(self, ds: Dataset, train: np.ndarray, validation: np.ndarray, config: TrainConfig):
        """The training task (surrogate/tasks.py) on the given splits of ds."""
        raise NotImplementedError

    def architecture(self, config: TrainConfig, ds: Dataset) -> dict[str, Any]:
        """The network's constructor sizes, as surrogate.json keeps them."""
        raise NotImplementedError

    def test_report(self, task, ds: Dataset, test: np.ndarray) -> HeldOutReport:
        raise NotImplementedError

    def network(self, architecture: dict[str, Any], normalization: dict[str, Any]):
        """The exported network as a dygraph layer, untrained weights (load_dygraph sets them)."""
        raise NotImplementedError


class ParamNetKind(SurrogateKind):
    """ParamNet: an ensemble of MLPs from the shape parameters to Cd and Cl with their spread."""

    name = "paramnet"
    input_name = "params"
    outputs = [
        {"name": "mean", "shape": [-1, 2], "dtype": "float32", "meaning": "Cd, Cl"},
        {
            "name": "std",
            "shape": [-1, 2],
            "dtype": "float32",
            "meaning": "standard deviations of Cd, Cl",
        },
    ]
    takes = "parameters"
    batch_profile = (1, 64, 4096)

    def input_shape(self, metadata: dict[str, Any]) -> list[int]:
        return [-1, len(metadata["parameters"])]

    def task(self, ds: Dataset, train: np.ndarray, validation: np.ndarray, config: TrainConfig):
        from surrogate.tasks import ParamTask

        return ParamTask(ds, train, validation, config)

    def architecture(self, config: TrainConfig, ds: Dataset) -> dict[str, Any]:
        return {
            "n_params": len(ds.parameter_names),
            "n_targets": 2,
            "members": config.paramnet.members,
            "hidden": list(config.paramnet.hidden),
        }

    def test_report(self, task, ds: Dataset, test: np.ndarray) -> HeldOutReport:
        from surrogate.metrics import coefficient_metrics

        mean, std = task.predict(test)
        metrics = {
            **coefficient_metrics("cd", ds.cd[test], mean[:, 0], std[:, 0]),
            **coefficient_metrics("cl", ds.cl[test], mean[:, 1], std[:, 1]),
        }
        rows = [
            [ds.ids[r], ds.cd[r], mean[k, 0], std[k, 0], ds.cl[r], mean[k, 1], std[k, 1]]
            for k, r in enumerate(test)
        ]
        parameters = [
            {"name": n, "unit": u, "low": float(lo), "high": float(hi)}
            for n, u, lo, hi in zip(
                ds.parameter_names, ds.parameter_units, ds.low, ds.high, strict=False
            )
        ]
        header = ["sample_id", "cd_lbm", "cd_predicted", "cd_std"]
        header += ["cl_lbm", "cl_predicted", "cl_std"]
        return HeldOutReport(metrics, header, rows, {"parameters": parameters})

    def network(self, architecture: dict[str, Any], normalization: dict[str, Any]):
        from surrogate.models import ParamEnsemble

        a, n = architecture, normalization
        return ParamEnsemble(
            a["n_params"],
            a["n_targets"],
            a["members"],
            a["hidden"],
            np.array(n["x_mean"]),
            np.array(n["x_scale"]),
            np.array(n["y_mean"]),
            np.array(n["y_scale"]),
        )


class GeoNetKind(SurrogateKind):
    """GeoNet: surface points with their normals to Cp at each point and Cd."""

    name = "geonet"
    input_name = "points"
    outputs = [
        {"name": "cp", "shape": [-1, -1], "dtype": "float32", "meaning": "Cp at each point"},
        {"name": "cd", "shape": [-1], "dtype": "float32", "meaning": "Cd"},
    ]
    takes = "surface"
    batch_profile = (1, 1, 8)

    def input_shape(self, metadata: dict[str, Any]) -> list[int]:
        return [-1, -1, 6]

    def task(self, ds: Dataset, train: np.ndarray, validation: np.ndarray, config: TrainConfig):
        from surrogate.tasks import GeoTask

        return GeoTask(ds, train, validation, config)

    def architecture(self, config: TrainConfig, ds: Dataset) -> dict[str, Any]:
        return {"width": config.geonet.width}

    def test_report(self, task, ds: Dataset, test: np.ndarray) -> HeldOutReport:
        from surrogate.metrics import coefficient_metrics, cp_relative_l2

        cp, cd = task.predict(test)
        errors = [cp_relative_l2(task.cp[r], cp[k]) for k, r in enumerate(test)]
        metrics = {
            **coefficient_metrics("cd", ds.cd[test], cd),
            "cp_relative_l2": float(np.mean(errors)),
        }
        rows = [[ds.ids[r], ds.cd[r], cd[k], errors[k]] for k, r in enumerate(test)]
        xyz = task.points[task.train, :, :3].reshape(-1, 3)
        metadata = {
            "trained_extent_m": [xyz.min(0).tolist(), xyz.max(0).tolist()],
            "family": ds.family,
        }
        return HeldOutReport(
            metrics, ["sample_id", "cd_lbm", "cd_predicted", "cp_relative_l2"], rows, metadata
        )

    def network(self, architecture: dict[str, Any], normalization: dict[str, Any]):
        from surrogate.models import GeoNet

        n = normalization
        return GeoNet(
            architecture["width"],
            np.array(n["xyz_mean"]),
            float(n["xyz_scale"][0]),
            *n["targets"],
        )


#: every kind by its name (train_config's `model`, surrogate.json's `kind`)
KINDS: dict[str, SurrogateKind] = {k.name: k() for k in (ParamNetKind, GeoNetKind)}

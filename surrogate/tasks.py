"""What each network learns from a Dataset: its inputs and targets, the normalization fitted on
the training split, the loss, the validation loss and the test predictions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import paddle
from paddle import nn

from surrogate.dataset import Dataset
from surrogate.models import GeoNet, ParamEnsemble
from surrogate.training import scale_of

if TYPE_CHECKING:
    from surrogate.train_config import TrainConfig

TARGETS = ("cd", "cl")


def gaussian_nll(
    mean: paddle.Tensor, log_var: paddle.Tensor, target: paddle.Tensor
) -> paddle.Tensor:
    """Mean negative log-likelihood of target under N(mean, exp(log_var)), constants dropped."""
    return 0.5 * (log_var + (target - mean) ** 2 / paddle.exp(log_var)).mean()


class _EnsembleLoss(nn.Layer):
    def __init__(self, model: ParamEnsemble) -> None:
        super().__init__()
        self.model = model

    def forward(self, params: paddle.Tensor, targets: paddle.Tensor) -> paddle.Tensor:
        mean, log_var = self.model.member_outputs(params)
        y = (targets - self.model.y_mean) / self.model.y_scale
        return (
            gaussian_nll(mean, log_var, y.unsqueeze(0).expand_as(mean)) * mean.shape[0]
        )  # summed over members


class ParamTask:
    """ParamNet: the shape parameters to Cd and Cl."""

    def __init__(
        self, ds: Dataset, train: np.ndarray, validation: np.ndarray, config: TrainConfig
    ) -> None:
        self.x = ds.parameters.astype(np.float32)
        self.y = np.column_stack([ds.cd, ds.cl]).astype(np.float32)
        self.train, self.validation = train, validation
        c = config.paramnet
        x, y = self.x[train], self.y[train]
        self.model = ParamEnsemble(
            self.x.shape[1],
            len(TARGETS),
            c.members,
            list(c.hidden),
            x.mean(0),
            scale_of(x),
            y.mean(0),
            scale_of(y),
        )
        self.loss_layer = _EnsembleLoss(self.model)

    def loss(self, net: nn.Layer, batch: np.ndarray) -> paddle.Tensor:
        rows = self.train[batch]
        return net(paddle.to_tensor(self.x[rows]), paddle.to_tensor(self.y[rows]))

    def validation_loss(self, model: nn.Layer) -> float:
        return float(
            self.loss_layer(
                paddle.to_tensor(self.x[self.validation]), paddle.to_tensor(self.y[self.validation])
            )
        )

    def predict(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation [n, 2] (Cd, Cl) for the given samples."""
        with paddle.no_grad():
            mean, std = self.model(paddle.to_tensor(self.x[rows]))
        return mean.numpy(), std.numpy()


class _GeoLoss(nn.Layer):
    def __init__(self, model: GeoNet, cd_weight: float) -> None:
        super().__init__()
        self.model = model
        self.cd_weight = cd_weight

    def forward(
        self, points: paddle.Tensor, cp: paddle.Tensor, known: paddle.Tensor, cd: paddle.Tensor
    ) -> paddle.Tensor:
        cp_pred, cd_pred = self.model.normalized(points)
        t = self.model.targets
        cp_err = ((cp_pred - (cp - t[0]) / t[1]) ** 2) * known
        cd_err = (cd_pred - (cd - t[2]) / t[3]) ** 2
        return cp_err.sum() / paddle.clip(known.sum(), min=1.0) + self.cd_weight * cd_err.mean()


class GeoTask:
    """GeoNet: surface points with normals to Cp at each point and Cd."""

    def __init__(
        self, ds: Dataset, train: np.ndarray, validation: np.ndarray, config: TrainConfig
    ) -> None:
        samples = [ds.sample(k) for k in range(len(ds))]
        self.points = np.stack(
            [np.concatenate([s.points_m, s.point_normals], axis=1) for s in samples]
        ).astype(np.float32)
        self.cp = np.stack([s.point_cp for s in samples]).astype(np.float32)
        self.cd = ds.cd.astype(np.float32)
        self.train, self.validation = train, validation
        self.n_points = config.geonet.points
        self.rng = np.random.default_rng(config.optim.seed)
        xyz = self.points[train, :, :3].reshape(-1, 3)
        cp = self.cp[train]
        self.model = GeoNet(
            config.geonet.width,
            xyz.mean(0),
            float(xyz.std()),
            float(np.nanmean(cp)),
            float(np.nanstd(cp)),
            float(self.cd[train].mean()),
            float(scale_of(self.cd[train], None)),
        )
        self.loss_layer = _GeoLoss(self.model, config.geonet.cd_weight)

    def _tensors(self, rows: np.ndarray, n_points: int | None) -> tuple[paddle.Tensor, ...]:
        if n_points is None or n_points >= self.points.shape[1]:
            pick = np.arange(self.points.shape[1])[None].repeat(len(rows), 0)
        else:
            pick = np.stack(
                [self.rng.choice(self.points.shape[1], n_points, replace=False) for _ in rows]
            )
        points = np.take_along_axis(self.points[rows], pick[..., None], axis=1)
        cp = np.take_along_axis(self.cp[rows], pick, axis=1)
        known = np.isfinite(cp)
        return (
            paddle.to_tensor(points),
            paddle.to_tensor(np.nan_to_num(cp)),
            paddle.to_tensor(known.astype(np.float32)),
            paddle.to_tensor(self.cd[rows]),
        )

    def loss(self, net: nn.Layer, batch: np.ndarray) -> paddle.Tensor:
        return net(*self._tensors(self.train[batch], self.n_points))

    def validation_loss(self, model: nn.Layer) -> float:
        return float(self.loss_layer(*self._tensors(self.validation, None)))

    def predict(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cp [n, P] at every stored point and Cd [n] for the given samples."""
        with paddle.no_grad():
            cp, cd = self.model(paddle.to_tensor(self.points[rows]))
        return cp.numpy(), cd.numpy()

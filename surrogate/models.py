"""The surrogate networks (PaddlePaddle dygraph).

ParamNet: a deep ensemble (Lakshminarayanan, Pritzel & Blundell 2017) of small MLPs from the
shape parameters to Cd and Cl. Each member predicts a mean and a variance per output and is
trained on the Gaussian negative log-likelihood; the ensemble's prediction is the mixture's mean
and standard deviation, so the uncertainty holds both the members' disagreement (what the data
does not pin down) and the predicted scatter (the LES's averaging noise).

GeoNet: geometry-general. A point network (PointNet, Qi et al. 2017, with the segmentation
head's concatenation of per-point and global features) from surface points with normals to
Cp at every point and Cd. It takes any number of points of any closed surface, so it runs on a
user's STL that no sweep produced. docs/surrogate.md gives the reasons and what was tried.

Both take inputs in physical units and normalize inside the network (constants fitted on the
training split), so the exported program carries its normalization.
"""

from __future__ import annotations

import numpy as np
import paddle
from paddle import nn


def _constant(layer: nn.Layer, name: str, value: np.ndarray) -> paddle.Tensor:
    """A non-trainable float32 tensor saved with the layer's parameters."""
    tensor = paddle.to_tensor(np.asarray(value, np.float32))
    layer.register_buffer(name, tensor, persistable=True)
    return tensor


def mlp(sizes: list[int], activation: type[nn.Layer] = nn.GELU) -> nn.Sequential:
    """Linear layers of the given widths with an activation between them (none after the last)."""
    layers: list[nn.Layer] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=False)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class ParamEnsemble(nn.Layer):
    """Shape parameters [B, d] (their units) -> mean [B, k] and standard deviation [B, k] of the
    k targets (Cd, Cl) in their units. Fixed parameters (zero spread) are scaled by 1."""

    def __init__(
        self,
        n_params: int,
        n_targets: int,
        members: int,
        hidden: list[int],
        x_mean: np.ndarray,
        x_scale: np.ndarray,
        y_mean: np.ndarray,
        y_scale: np.ndarray,
    ) -> None:
        super().__init__()
        self.n_targets = n_targets
        self.members = nn.LayerList(
            [mlp([n_params, *hidden, 2 * n_targets]) for _ in range(members)]
        )
        self.x_mean = _constant(self, "x_mean", x_mean)
        self.x_scale = _constant(self, "x_scale", x_scale)
        self.y_mean = _constant(self, "y_mean", y_mean)
        self.y_scale = _constant(self, "y_scale", y_scale)

    def member_outputs(self, params: paddle.Tensor) -> tuple[paddle.Tensor, paddle.Tensor]:
        """Each member's normalized mean and log-variance, [M, B, k] each."""
        x = (params - self.x_mean) / self.x_scale
        out = paddle.stack([m(x) for m in self.members])
        mean, log_var = out[..., : self.n_targets], out[..., self.n_targets :]
        return mean, paddle.clip(log_var, -12.0, 6.0)

    def forward(self, params: paddle.Tensor) -> tuple[paddle.Tensor, paddle.Tensor]:
        mean, log_var = self.member_outputs(params)
        mixture_mean = mean.mean(axis=0)
        mixture_var = (paddle.exp(log_var) + mean**2).mean(axis=0) - mixture_mean**2
        std = paddle.sqrt(paddle.clip(mixture_var, min=1e-12))
        return mixture_mean * self.y_scale + self.y_mean, std * self.y_scale


class GeoNet(nn.Layer):
    """Surface points [B, N, 6] (x, y, z in metres in the solver's frame, outward unit normal)
    -> Cp [B, N] and Cd [B]. Positions are centred and scaled by constants of the training set."""

    def __init__(
        self,
        width: int,
        xyz_mean: np.ndarray,
        xyz_scale: float,
        cp_mean: float,
        cp_scale: float,
        cd_mean: float,
        cd_scale: float,
    ) -> None:
        super().__init__()
        self.local = mlp([6, width // 2, width, width])
        self.global_head = mlp([2 * width, width, width])
        self.point_head = mlp([width + width, width, width // 2, 1])
        self.cd_head = mlp([width, width // 2, 1])
        self.xyz_mean = _constant(self, "xyz_mean", xyz_mean)
        self.xyz_scale = _constant(self, "xyz_scale", [xyz_scale])
        self.targets = _constant(self, "targets", [cp_mean, cp_scale, cd_mean, cd_scale])

    def normalized(self, points: paddle.Tensor) -> tuple[paddle.Tensor, paddle.Tensor]:
        """Normalized Cp [B, N] and Cd [B] (what the loss compares)."""
        xyz = (points[..., :3] - self.xyz_mean) / self.xyz_scale
        features = self.local(paddle.concat([xyz, points[..., 3:]], axis=-1))  # [B, N, w]
        # Max over the points as a pooling layer: Paddle 3.3.1's CPU backward of Tensor.max took
        # 12 s for [8, 1024, 128], adaptive_max_pool1d 0.7 ms (the same gradient).
        point_max = nn.functional.adaptive_max_pool1d(features.transpose([0, 2, 1]), 1).squeeze(-1)
        pooled = paddle.concat([point_max, features.mean(axis=1)], axis=-1)  # [B, 2w]
        shape = self.global_head(pooled)  # [B, w]
        # Broadcast to the runtime shape of features: expand_as bakes the traced shape [-1, -1, w]
        # into the program, which paddle2onnx 2.1 turns into an ONNX Expand that leaves N at 1.
        expanded = paddle.expand(shape.unsqueeze(1), paddle.shape(features))  # [B, N, w]
        cp = self.point_head(paddle.concat([features, expanded], axis=-1)).squeeze(-1)
        return cp, self.cd_head(shape).squeeze(-1)

    def forward(self, points: paddle.Tensor) -> tuple[paddle.Tensor, paddle.Tensor]:
        cp, cd = self.normalized(points)
        t = self.targets
        return cp * t[1] + t[0], cd * t[3] + t[2]

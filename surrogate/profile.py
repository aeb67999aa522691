"""TensorRT's dynamic-shape profile of an exported surrogate's input: the smallest, the optimum
and the largest input shape an engine is built for. One profile for Paddle-TensorRT
(surrogate/runtime_paddle.py), ONNX Runtime's TensorRT provider (surrogate/runtime_onnx.py) and
Triton's model configuration (surrogate/triton.py), so all three serve the same shapes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from surrogate.kinds import KINDS

if TYPE_CHECKING:
    from surrogate.meta import SurrogateMeta

#: (min, optimum, max) surface points of a GeoNet input.
POINTS = (64, 4096, 65536)


def profile_shapes(meta: SurrogateMeta) -> list[list[int]]:
    """[min, optimum, max] input shapes of the exported model whose metadata is meta: its
    input's dynamic axes (-1 in meta.input.shape) filled from its kind's batch_profile
    (axis 0: designs per call; a GeoNet call is usually one surface, Triton may batch up to 8 of
    the same point count) and POINTS (axis 1)."""
    sizes = (KINDS[meta.kind].batch_profile, POINTS)
    return [
        [sizes[axis][k] if dim < 0 else dim for axis, dim in enumerate(meta.input.shape)]
        for k in range(3)
    ]


def profile_strings(meta: SurrogateMeta) -> list[str]:
    """profile_shapes as ONNX Runtime's TensorRT options write them, "name:1x64x6"."""
    name = meta.input.name
    return [f"{name}:{'x'.join(map(str, shape))}" for shape in profile_shapes(meta)]

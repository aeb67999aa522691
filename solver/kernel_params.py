"""The kernels' calling interface: the LbmParams struct of ``cuda/lbm_lattice.cuh`` as a numpy
record.

The struct's X-list in the header is the interface's only description. This module reads it and
builds the numpy dtype with the C layout (``align=True``: each field at a multiple of its size,
as the host compiler and NVRTC place them; a test compares with the compiler's own offsets).
Pointer fields hold device addresses: a backend supplies them for the arrays it owns. The CPU
library takes a pointer to the record, the GPU kernel takes the record by value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.lattice import HEADER

_SCALARS = {"int": np.int32, "long long": np.int64, "float": np.float32}


def _read_fields() -> list[tuple[str, str]]:
    text = HEADER.read_text()
    block = re.search(r"#define LBM_PARAMS\(X\)(.*?)\nstruct LbmParams", text, re.S)
    assert block, f"{HEADER} has no LBM_PARAMS list"
    body = re.sub(r"/\*.*?\*/", "", block[1], flags=re.S)
    return [(ctype.strip(), name) for ctype, name in re.findall(r"X\(([^,()]+),\s*(\w+)\)", body)]


#: (C type, name) of each LbmParams field, in declaration order.
FIELDS: list[tuple[str, str]] = _read_fields()


def is_pointer(ctype: str) -> bool:
    return ctype.endswith("*")


def params_dtype() -> np.dtype:
    """numpy dtype laid out like the C struct LbmParams."""
    return np.dtype(
        [(name, np.uint64 if is_pointer(ctype) else _SCALARS[ctype]) for ctype, name in FIELDS],
        align=True,
    )


@dataclass(frozen=True)
class KernelParams:
    """The values of one LbmParams (arrays on the backend's device, and numbers) and the packed
    record the shells receive. Holding the arrays here keeps them alive while the record points
    at them."""

    values: Mapping[str, Any]
    record: np.ndarray  # shape (1,), dtype params_dtype()

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


def pack_params(values: Mapping[str, Any], address: Callable[[Any], int]) -> KernelParams:
    """Pack a value for every LbmParams field (names as in the header) into its record; address
    gives the device address of an array. A missing or unknown name is a programming error."""
    names = [name for _, name in FIELDS]
    missing, unknown = set(names) - set(values), set(values) - set(names)
    if missing or unknown:
        raise KeyError(f"LbmParams fields missing {sorted(missing)}, unknown {sorted(unknown)}")
    record = np.zeros(1, dtype=params_dtype())
    for ctype, name in FIELDS:
        record[name] = address(values[name]) if is_pointer(ctype) else values[name]
    return KernelParams(values=dict(values), record=record)

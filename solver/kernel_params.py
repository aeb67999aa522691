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

from solver import lattice
from solver.lattice import HEADER, OPP, Q
from solver.law_of_the_wall import spalding_table
from solver.volumetric_projected import ProjectedWall
from solver.volumetric_wall import VolumetricWall, csr_start
from solver.wall_fill import freeslip_fill, wall_fill_cells, wall_fill_faces
from solver.wall_geometry import WALL_FIELDS

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


#: The volumetric wall's fields where there is none (n_vol_elements 0: the kernels read none).
NO_VOLUMETRIC_WALL: dict[str, Any] = {
    "vol_index": np.zeros(0, np.int32),
    "vol_keep": np.zeros(0, np.float32),
    "vol_scatter_start": np.zeros(1, np.int32),
    "vol_scatter": np.zeros(0, np.int32),
    "vol_scatter_weight": np.zeros(0, np.float32),
    "vol_gather_start": np.zeros(1, np.int32),
    "vol_gather_at": np.zeros(0, np.int64),
    "vol_gather_volume": np.zeros(0, np.float32),
    "vol_swept": np.zeros(0, np.float32),
    "vol_gamma": np.zeros(0, np.float32),
    "vol_force": np.zeros(0, np.float32),
    "n_vol_elements": 0,
    "vol_law": np.zeros(0, np.float32),
    "vol_probe": np.zeros(0, np.int64),
    "vol_sample": 0.0,
    "vol_law_on": 0,
    "vol_projected": 0,
    "vol_keep_map": np.zeros(0, np.float32),
    "vol_turn_start": np.zeros(1, np.int32),
    "vol_turn_at": np.zeros(0, np.int64),
    "vol_turn_map": np.zeros(0, np.float32),
    "vol_gather_first": np.zeros(0, np.float32),
    "vol_scatter_slope": np.zeros(0, np.float32),
    "vol_gather_profile": np.zeros(0, np.float32),
    "vol_scatter_profile": np.zeros(0, np.float32),
    "vol_profile_gram": np.zeros(0, np.float32),
    "vol_profile": np.zeros(0, np.float32),
    "vol_slope_in": np.zeros(0, np.float32),
    "vol_slope_out": np.zeros(0, np.float32),
    "vol_slot_mean": np.zeros(0, np.float32),
    "vol_slot_cell": np.zeros(0, np.int64),
    "n_vol_slots": 0,
}


def _element_tables(
    tables: VolumetricWall | ProjectedWall, n_cells: int, n_el: int, plane_stride: int
) -> dict[str, np.ndarray | int]:
    """The fields both forms of the volumetric wall fill from their tables of the same names:
    the slots, the scatter, the elements' gather and swept volumes, the elements' state."""
    index = np.full(n_cells, -1, np.int32)
    index[tables.slot_cell] = np.arange(len(tables.slot_cell), dtype=np.int32)
    owner = np.repeat(np.arange(n_el), np.diff(tables.gather_start))
    return {
        "vol_index": index,
        "vol_scatter_start": tables.scatter_start.astype(np.int32),
        "vol_scatter": (Q * tables.scatter_element + tables.scatter_q).astype(np.int32),
        "vol_scatter_weight": tables.scatter_weight.astype(np.float32),
        "vol_gather_start": csr_start(Q * owner + tables.gather_q, Q * n_el).astype(np.int32),
        "vol_gather_at": (tables.gather_q * plane_stride + tables.gather_cell).astype(np.int64),
        "vol_gather_volume": tables.gather_volume.astype(np.float32),
        "vol_swept": tables.swept_out.astype(np.float32).ravel(),
        "vol_gamma": np.zeros(Q * n_el, np.float32),
        "vol_force": np.zeros(3 * n_el, np.float32),
        "n_vol_elements": n_el,
    }


def volumetric_wall_values(wall: VolumetricWall, plane_stride: int) -> dict[str, np.ndarray | int]:
    """The LbmParams fields of the volumetric wall (cuda/lbm_volumetric.cuh), host arrays;
    NO_VOLUMETRIC_WALL's where there is none."""
    return {
        **_element_tables(wall, wall.volume.size, len(wall.element_cell), plane_stride),
        "vol_keep": wall.keep.astype(np.float32).ravel(),
    }


def projected_wall_values(wall: ProjectedWall, plane_stride: int) -> dict[str, np.ndarray | int]:
    """The LbmParams fields of the projected wall (cuda/lbm_projected.cuh), host arrays: the
    volumetric wall's elements with the projected wall's slots, maps and parcels."""
    n_slot = len(wall.slot_cell)
    q_out = np.repeat(np.arange(Q * n_slot) % Q, np.diff(wall.turn_start))
    n_cells, n_el = wall.wall.volume.size, len(wall.wall.element_cell)
    return {
        **_element_tables(wall, n_cells, n_el, plane_stride),
        "vol_keep": np.zeros(0, np.float32),
        "vol_projected": 1,
        "vol_keep_map": wall.keep_map.astype(np.float32).ravel(),
        "vol_turn_start": wall.turn_start.astype(np.int32),
        "vol_turn_at": (OPP[q_out] * plane_stride + wall.turn_source).astype(np.int64),
        "vol_turn_map": wall.turn_map.astype(np.float32).ravel(),
        "vol_gather_first": wall.gather_first.astype(np.float32).ravel(),
        "vol_scatter_slope": wall.scatter_slope.astype(np.float32).ravel(),
        "vol_gather_profile": wall.profile.gather.astype(np.float32).ravel(),
        "vol_scatter_profile": wall.profile.scatter.astype(np.float32).ravel(),
        "vol_profile_gram": wall.profile.gram.astype(np.float32).ravel(),
        "vol_profile": np.zeros(6 * n_el, np.float32),
        "vol_slope_in": np.zeros(57 * n_slot, np.float32),
        "vol_slope_out": np.zeros(57 * n_slot, np.float32),
        "vol_slot_mean": np.zeros(19 * n_slot, np.float32),
        "vol_slot_cell": wall.slot_cell.astype(np.int64),
        "n_vol_slots": n_slot,
    }


def wall_fill_params(flags: np.ndarray, plane_stride: int) -> dict[str, Any]:
    """What is filled into the walls before each step (solver/wall_fill.py, filled_walls), host
    arrays: the free-slip walls' copies (freeslip_dst, freeslip_src, n_freeslip: freeslip_fill)
    as population indices q * plane_stride + cell, and the cells whose links from the other walls
    that are not the body are filled (wall_fill_cells, n_wall_fill) with the plane wall of each
    (wall_fill_face: wall_fill_faces)."""
    q, cell, q_src, cell_src = freeslip_fill(flags)
    cells = wall_fill_cells(flags)
    return {
        "freeslip_dst": q * plane_stride + cell,
        "freeslip_src": q_src * plane_stride + cell_src,
        "n_freeslip": len(q),
        "wall_fill_cells": cells,
        "wall_fill_face": wall_fill_faces(flags, cells),
        "n_wall_fill": len(cells),
    }


def plain_box_values(
    flags: np.ndarray, tau: float, collision: int, cs2_smag: float = 0.0
) -> dict[str, Any]:
    """Host values of every LbmParams field for a box of the given flags [z, y, x] (no inlet, no
    body slots, no wall model, no body force, resting walls) at relaxation time tau: the base
    that small drivers and tests override (solver/refinement.py, tests/)."""
    nz, ny, nx = flags.shape
    return {
        "plane_stride": lattice.plane_stride(flags.size),
        "flags": flags,
        "tau_x": np.full(nx, tau, np.float32),
        "u_inlet": np.zeros((nz, ny), np.float32),
        "inlet_drho": np.zeros((nz, ny), np.float32),
        "boundary_index": np.full(flags.shape, -1, np.int32),
        "cell_force": np.zeros((0, 3, 3), np.float32),
        "link_q": np.zeros((0, 18), np.float32),
        "slot_area": np.zeros((0, 3), np.float32),
        "slot_wall": np.zeros((0, len(WALL_FIELDS)), np.float32),
        "spalding": spalding_table(),
        "wall_feq": np.zeros(19, np.float32),
        "slot_cell": np.zeros(0, np.int64),
        "pool_start": np.zeros(1, np.int32),
        "pool_slot": np.zeros(0, np.int32),
        "pool_weight": np.zeros(0, np.float32),
        "pool_residual": np.zeros(0, np.float32),
        "n_pool_slots": 0,
        **NO_VOLUMETRIC_WALL,
        "sgs_moments": np.zeros(0, np.float32),
        "tau_eddy": np.zeros(0, np.float32),
        **wall_fill_params(flags, lattice.plane_stride(flags.size)),
        "general_cells": np.zeros(0, np.int64),
        "general_out": np.zeros(0, np.float32),
        "n_general": 0,
        "stream_stores": 0,
        "nx": nx,
        "ny": ny,
        "nz": nz,
        "interpolated": 0,
        "has_force": 0,
        "collision": collision,
        "wall_model": lattice.WALL_MODELS["none"],
        "wall_sample": 1,
        "wall_body_rule": 0,
        "nu_lattice": (tau - 0.5) / 3.0,
        "subgrid": 0,
        "subgrid_c": 0.0,
        "cs2_smag": cs2_smag,
        "inlet_relax": 0.0,
        "gx": 0.0,
        "gy": 0.0,
        "gz": 0.0,
        "wall_ux": 0.0,
        "wall_uy": 0.0,
        "wall_uz": 0.0,
    }

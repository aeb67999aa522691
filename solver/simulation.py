"""One case on one backend: lattice units, grid, flags, the population buffers and the step.

This is the model in the Oceananigans sense: it knows how to advance itself and to report its
fields and forces; the run loop (solver/run.py) decides how long, and what to record.

Over 250 lines: the model is one class whose buffers, kernel parameters and step belong
together.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver import lattice
from solver.backends import Backend
from solver.backends.base import population_dtype
from solver.bodies import MeshArrays, make_body
from solver.boundary_conditions import boundary_conditions
from solver.config import (
    AXES,
    VOLUMETRIC,
    CaseConfig,
    body_acceleration_m_s2,
    collision_operator,
    wall_model,
)
from solver.errors import ConfigError
from solver.fidelity import Fidelity, assess, check_fidelity, check_through_flow
from solver.grid import (
    Grid,
    body_neighbour_index,
    inlet_profile,
    make_flags,
    make_grid,
    relaxation_times,
    wall_mask,
)
from solver.kernel_params import (
    NO_VOLUMETRIC_WALL,
    KernelParams,
    pack_params,
    projected_wall_values,
    volumetric_wall_values,
    wall_fill_params,
)
from solver.law_of_the_wall import spalding_table
from solver.memory import check_memory
from solver.rolling import contact_cells, element_wall_velocity, rolls_on_road
from solver.streaming import (
    check_in_place_grid,
    freeslip_copies,
    general_cells,
    swap_pairs,
    to_canonical,
)
from solver.subgrid import SUBGRID_MODELS, model_constant, uses_gradient
from solver.surface_elements import SlotSurface, periodic_axes, slot_surface_elements
from solver.units import LatticeUnits, derive_units
from solver.volumetric_law import law_values, volumetric_law
from solver.volumetric_projected import ProjectedWall, projected_wall_on_grid
from solver.volumetric_wall import VolumetricWall, volumetric_wall_on_grid
from solver.wall_fill import mark_bulk
from solver.wall_geometry import WALL_FIELDS, slot_wall_geometry
from solver.wall_pool import wall_pool

log = logging.getLogger(__name__)


#: The inlet's density follows its neighbour's with a time constant of this many acoustic
#: crossings of the tunnel (cuda/lbm_boundaries.cuh).
INLET_RELAX_CROSSINGS = 1.0

#: The kinds of force advance() returns: momentum exchange (the total), and the integrals of the
#: pressure and of the viscous stress over the body's surface.
FORCE_TOTAL, FORCE_PRESSURE, FORCE_FRICTION = 0, 1, 2


@dataclass(frozen=True)
class Fields:
    """Macroscopic fields on the grid, lattice units, arrays [z, y, x] on the host."""

    rho: np.ndarray  # density
    velocity: np.ndarray  # [3, z, y, x]
    # the free stream's density where the grid has no inlet of its own (a refinement level:
    # the tunnel level's); None: from the grid's inlet (solver/surface.free_stream_density)
    rho_free_stream: float | None = None


class Simulation:
    """A case set up on a backend: units, grid, flags, the population buffers (two, or one
    streamed in place: resolution.streaming) and the step."""

    def __init__(
        self,
        case: CaseConfig,
        backend: Backend,
        mesh: MeshArrays | None = None,
        ghost_cells: np.ndarray | None = None,
    ) -> None:
        """mesh: the closed triangle mesh of a body.shape 'mesh' case (vertices in metres).
        ghost_cells: bool [z, y, x] of cells a refinement level's coupling fills instead of the
        step (FLAG_GHOST; solver/refined_simulation.py)."""
        self.case = case
        self.backend = backend
        self.body = make_body(case, backend, mesh)
        length = case.body.reference_length_m or (
            self.body.reference_length_m() if self.body else None
        )
        assert length is not None, "config validation guarantees a reference length"
        self.units: LatticeUnits = derive_units(case, length)
        self.grid: Grid = make_grid(case, self.units)
        check_memory(
            self.grid.n_cells,
            case.resolution.cells_per_length,
            backend.free_device_bytes(),
            case.resolution.storage,
            case.resolution.streaming,
            case.resolution.subgrid,
        )
        rolling = getattr(mesh, "rolling", None)  # a generator's car with wheels has them
        rolls = rolling is not None and rolls_on_road(case)  # refuses wheels that cannot roll
        self.volumetric_wall: VolumetricWall | None = None
        self.element_velocity: np.ndarray | None = None  # [E, 3] lattice units: rolling wheels
        self.projected_wall: ProjectedWall | None = None  # the volumetric wall's projected form
        if self.body is not None and case.body.bounce_back in VOLUMETRIC:
            assert mesh is not None, "config validation guarantees a mesh body"
            if case.body.bounce_back == "projected":
                self.projected_wall = projected_wall_on_grid(
                    mesh.vertices_m, mesh.faces, self.grid, periodic_axes(case)
                )
                self.volumetric_wall = self.projected_wall.wall
                overlap = self.projected_wall.overlap
                if overlap.links or overlap.balanced_volume:
                    log.info(
                        "projected wall: the surface's prisms overlap (a concave surface) in %d "
                        "(cell, link) pairs; their pieces share the cell's fluid, %.3g cells^3 "
                        "less, their landings balanced by moving %.3g cells^3, and a fluid at rest "
                        "changes by up to %.2g%% a step (docs/solver.md, 'The projected volumetric "
                        "wall')",
                        overlap.links,
                        overlap.dropped_volume,
                        overlap.balanced_volume,
                        100 * overlap.rest_error,
                    )
            else:
                self.volumetric_wall = volumetric_wall_on_grid(
                    mesh.vertices_m, mesh.faces, self.grid, periodic_axes(case)
                )
            # each mesh face's part index and the parts' names, for the drag by part
            self.volumetric_parts: tuple[np.ndarray, tuple[str, ...]] = mesh.parts()
            if rolls:
                parts = self.volumetric_parts
                self.element_velocity = element_wall_velocity(
                    self.volumetric_wall, rolling, *parts, case, self.grid, self.units
                )
        body_cells = (
            self.volumetric_wall.volume == 0
            if self.volumetric_wall is not None
            else self.body.cells(self.grid)
            if self.body
            else None
        )
        self.flags_host = make_flags(case, self.grid, body_cells)
        if ghost_cells is not None:
            self.flags_host[ghost_cells] = lattice.GHOST
            mark_bulk(self.flags_host)
        if self.body is not None and not np.any(self.flags_host & lattice.BODY):
            raise ConfigError(
                f"body.shape '{case.body.shape}' covers no cell centre at dx = "
                f"{self.units.dx_m:.4g} m: raise resolution.cells_per_length or check "
                "body.center_m against the domain"
            )
        # the floor's columns round the wheels' contact patches: contact, not gap
        standing = None if rolling is None else contact_cells(rolling, self.grid)
        if self.body is not None:
            check_through_flow(case, self.grid, self.flags_host)
            check_body_clear_of_moving_walls(
                case, self.grid, self.flags_host, standing if rolls else None
            )
        lo = np.asarray(case.domain.origin_m, float)
        hi = lo + np.asarray(case.domain.size_m, float)
        if case.body.reference_area_m2 is not None:
            self.reference_area_m2: float | None = case.body.reference_area_m2
        elif self.body is not None:
            self.reference_area_m2 = self.body.frontal_area_m2(lo, hi, self.units.dx_m)
        else:
            self.reference_area_m2 = None
        self.lift_axis = AXES.index(case.body.lift_axis)

        u = self.units
        g_lattice = np.asarray(body_acceleration_m_s2(case), float) * u.dt_s**2 / u.dx_m
        self.body_accel_lattice = tuple(float(v) for v in g_lattice)
        n = self.grid.n_cells
        self.population_dtype = population_dtype(case.resolution.storage)
        self.plane_stride = lattice.plane_stride(n, self.population_dtype.itemsize)
        self.slot_host = body_neighbour_index(self.flags_host)
        self.flags_host[self.slot_host >= 0] &= ~np.uint8(
            lattice.BULK
        )  # reporting cells take the general path
        if self.volumetric_wall is not None:  # its cells pull by its tables
            slots = (self.projected_wall or self.volumetric_wall).slot_cell
            self.flags_host.reshape(-1)[slots] &= ~np.uint8(lattice.BULK)
        n_slots = int(self.slot_host.max()) + 1
        interpolated = self.body is not None and case.body.bounce_back == "interpolated"
        link_q = (
            self.body.wall_fractions(self.grid, self.flags_host, self.slot_host)
            if interpolated
            else np.zeros((n_slots, 18), np.float32)
        )
        frontal = (
            self.body.frontal_area_m2(lo, hi, u.dx_m)
            if case.body.reference_area_m2 is not None and self.body is not None
            else self.reference_area_m2
        )
        self.fidelity: Fidelity = assess(
            case,
            self.grid,
            self.flags_host,
            self.slot_host,
            link_q if interpolated else None,
            frontal,
            u.length_m,
            standing,
        )
        check_fidelity(case, self.fidelity)
        self.collision = lattice.COLLISIONS[collision_operator(case.resolution)]
        # the moving walls' velocity (the rolling road's: the free stream's), in lattice units
        wall_u = tuple(
            v / u.speed_m_s * u.u_lattice for v in boundary_conditions(case).wall_velocity_m_s()
        )
        slot_wall = (
            slot_wall_geometry(
                self.flags_host,
                self.slot_host,
                link_q if interpolated else None,
                periodic_axes(case),
            )
            if case.walls.body_rule != "faces"
            else np.zeros((n_slots, len(WALL_FIELDS)), np.float32)
        )
        pool = wall_pool(self.slot_host, slot_wall, periodic_axes(case), case.walls.pool_cells)
        wall_fill = wall_fill_params(self.flags_host, self.plane_stride)
        self.in_place = case.resolution.streaming == "aa"
        general = np.zeros(0, np.int64)
        if self.in_place:
            check_in_place_grid(self.flags_host, case.walls.pool_cells)
            general = general_cells(self.flags_host)
        cs = float(case.resolution.smagorinsky_cs)
        gradient_model = uses_gradient(case.resolution.subgrid, cs)
        subgrid_code = SUBGRID_MODELS[case.resolution.subgrid] if gradient_model else 0
        self._param_values = {
            "collision": self.collision,
            "wall_model": lattice.WALL_MODELS[wall_model(case)],
            "wall_sample": case.walls.sample_cells,
            "wall_body_rule": lattice.WALL_BODY_RULES[case.walls.body_rule],
            "nu_lattice": u.nu_lattice,
            "plane_stride": self.plane_stride,
            "flags": backend.asarray(self.flags_host),
            "tau_x": backend.asarray(relaxation_times(case, self.grid, u.tau)),
            "u_inlet": backend.asarray(inlet_profile(case, self.grid, u.u_lattice)),
            "inlet_drho": backend.zeros((self.grid.nz, self.grid.ny), np.float32),
            "boundary_index": backend.asarray(self.slot_host),
            "cell_force": backend.zeros((n_slots, 3, 3), np.float32),
            "link_q": backend.asarray(link_q),
            "slot_area": backend.zeros((n_slots, 3), np.float32),
            "slot_wall": backend.asarray(slot_wall),
            "spalding": backend.asarray(spalding_table()),
            "wall_feq": self._equilibrium_at(wall_u),
            "slot_cell": backend.asarray(pool.cell),
            "pool_start": backend.asarray(pool.start),
            "pool_slot": backend.asarray(pool.slot),
            "pool_weight": backend.asarray(pool.weight),
            "pool_residual": backend.zeros((4 * pool.n_slots,), np.float32),
            "n_pool_slots": pool.n_slots,
            **{
                key: backend.asarray(v) if isinstance(v, np.ndarray) else v
                for key, v in self._volumetric_values(case).items()
            },
            "sgs_moments": backend.zeros((4 * n if gradient_model else 0,), np.float32),
            "tau_eddy": backend.zeros((n if gradient_model else 0,), np.float32),
            **{
                key: backend.asarray(v) if isinstance(v, np.ndarray) else v
                for key, v in wall_fill.items()
            },
            "general_cells": backend.asarray(general),
            "general_out": backend.zeros((lattice.Q * len(general),), np.float32),
            "n_general": len(general),
            "stream_stores": int(
                not self.in_place
                and backend.streams_stores(
                    2 * lattice.Q * self.plane_stride * self.population_dtype.itemsize
                )
            ),
            "nx": self.grid.nx,
            "ny": self.grid.ny,
            "nz": self.grid.nz,
            "interpolated": int(interpolated),
            "has_force": int(any(v != 0.0 for v in self.body_accel_lattice)),
            "subgrid": subgrid_code,
            "subgrid_c": model_constant(case.resolution.subgrid, cs),
            "cs2_smag": 0.0 if gradient_model else cs**2,
            "inlet_relax": INLET_RELAX_CROSSINGS / (math.sqrt(3.0) * self.grid.nx),
            "gx": self.body_accel_lattice[0],
            "gy": self.body_accel_lattice[1],
            "gz": self.body_accel_lattice[2],
            "wall_ux": wall_u[0],
            "wall_uy": wall_u[1],
            "wall_uz": wall_u[2],
        }
        # in-place streaming: the free-slip walls' copies of each parity (solver/streaming.py)
        self._freeslip_by_parity = {
            parity: tuple(backend.asarray(a) for a in arrays)
            for parity, arrays in (
                freeslip_copies(self.flags_host, self.plane_stride) if self.in_place else {}
            ).items()
        }
        self._pack_params()
        self.surface_area_missed = float("nan")  # share of the attached surface no slot stands for
        self.surface: SlotSurface | None = None  # what each slot stands for (attach_surface)
        self.surface_part_names: tuple[str, ...] = ()
        self.surface_x_min_m = float("nan")  # the attached surface's most upstream point
        # the attached surface itself: vertices [m] and triangles (for Cp on the skin)
        self.surface_vertices_m = np.zeros((0, 3))
        self.surface_faces = np.zeros((0, 3), np.int64)
        self.surface_face_part = np.zeros(0, np.int32)  # each face's index into surface_part_names
        # Sum of the slots' forces (params cell_force) over the steps advanced with
        # accumulate_slot_forces, [n_slots, 3 kinds, 3 axes] in lattice units, on the device.
        self._slot_force_sum: Any = None
        self.slot_force_steps = 0
        # The volumetric wall's elements: unit normals [E, 3] on the device (each step's exchange
        # splits into the part along them, pressure, and the rest, friction), and the sum of
        # their exchange over the same steps as the slots' [E, 3] (None without the wall).
        self._element_normal: Any = None
        self._element_force_sum: Any = None
        if self.volumetric_wall is not None:
            area = self.volumetric_wall.area_vector
            norm = np.linalg.norm(area, axis=1, keepdims=True)
            normal = np.divide(area, norm, out=np.zeros_like(area), where=norm > 0)
            self._element_normal = backend.asarray(normal.astype(np.float32))
        # One allocation for both buffers, so the two copies of a link's plane sit at different
        # offsets within a 4 KiB page and loads and stores do not alias.
        size = lattice.Q * self.plane_stride
        n_buffers = 1 if self.in_place else 2
        try:
            self._buffer = backend.zeros((n_buffers * size,), self.population_dtype)
        except MemoryError as exc:  # the CUDA backend raises a subclass of MemoryError too
            raise ConfigError(
                f"the grid of {n / 1e6:.1f} M cells needs "
                f"{n_buffers * size * self.population_dtype.itemsize / 1e9:.1f} GB for its "
                "populations, more than this device has: lower "
                "resolution.cells_per_length"
            ) from exc
        self._f = tuple(self._buffer[i * size : (i + 1) * size] for i in range(n_buffers))
        self._current = 0  # two buffers: the one that holds the state
        self._parity = 0  # one buffer: its layout (solver/streaming.py)
        self._moments = backend.zeros((4 * n,), np.float32)
        self.step_count = 0
        self._initialise()

    def _equilibrium_at(self, u_lattice: tuple[float, float, float]) -> Any:
        """The operator's equilibrium populations (shifted, on the device) at density 1 and
        velocity u_lattice, by the kernels' own initialisation: the moving-wall rule's weights."""
        moments = np.asarray((1.0, *u_lattice), np.float32)  # rho, ux, uy, uz of one cell
        feq = self.backend.zeros((lattice.Q,), np.float32)
        self.backend.init_equilibrium(feq, self.backend.asarray(moments), 1, 1, self.collision)
        return feq

    # ---- state ------------------------------------------------------------------------------
    def _initialise(self) -> None:
        self.start_from(initial_moments(self.case, self.grid, self.units))

    def _volumetric_values(self, case: CaseConfig) -> dict[str, Any]:
        """The volumetric wall's kernel fields (none without one), with the wall model the law
        on its elements, read walls.sample_cells - 1/2 cells out along each element's normal (the
        centre of the sample_cells-th cell from a wall on the cells' faces, as the faces rule
        reads it)."""
        if self.volumetric_wall is None:
            return NO_VOLUMETRIC_WALL
        values = {
            **NO_VOLUMETRIC_WALL,
            **(
                projected_wall_values(self.projected_wall, self.plane_stride)
                if self.projected_wall is not None
                else volumetric_wall_values(self.volumetric_wall, self.plane_stride)
            ),
        }
        if wall_model(case) == "loglaw":
            sample = case.walls.sample_cells - 0.5
            law = volumetric_law(
                self.volumetric_wall, sample, periodic_axes(case), self.element_velocity
            )
            values.update(law_values(law, sample))
        return values

    def start_from(self, moments: np.ndarray) -> None:
        """Set both population buffers to the operator's equilibrium of moments [4, z, y, x]
        (rho, ux, uy, uz per cell, lattice units; the walls' cells are put at rest) and the step
        count to 0."""
        m = np.array(moments, dtype=np.float32, copy=True)
        walls = wall_mask(self.flags_host)
        m[0][walls] = 1.0
        m[1:, walls] = 0.0
        device = self.backend.asarray(m.reshape(-1))
        for f in self._f:
            self.backend.init_equilibrium(
                f, device, self.grid.n_cells, self.plane_stride, self.collision
            )
        self._to_swapped()
        self._load_inlet_drho(m[0][:, :, 0] - 1.0)
        if self.projected_wall is not None:  # a linear field's slopes start at 0
            self._param_values["vol_slope_in"][...] = 0.0
        self._current = 0
        self.step_count = 0

    def _load_inlet_drho(self, drho: np.ndarray) -> None:
        """Set the inlet cells' density state [z, y] (lattice units; the column x = 0, which holds
        the inlet where the case has one)."""
        self._param_values["inlet_drho"][...] = self.backend.asarray(
            np.ascontiguousarray(drho, np.float32)
        )

    def inlet_state(self) -> np.ndarray:
        """The inlet cells' density - 1 [z, y] on the host: state the step keeps besides the
        populations, in a checkpoint with them."""
        return self.backend.to_host(self._param_values["inlet_drho"])

    def _to_swapped(self) -> None:
        """With in-place streaming, the buffer from the canonical layout to parity 0's."""
        if self.in_place:
            swap_pairs(self._f[0], self.grid.shape_zyx, self.plane_stride)
            self._parity = 0

    def population_buffers(self) -> tuple[Any, Any]:
        """The two population buffers on the device: the current state, then the one the next
        step writes (for a refinement level's coupling; two-buffer streaming only)."""
        assert not self.in_place, "config validation keeps refinement to resolution.streaming=ab"
        return self._f[self._current], self._f[1 - self._current]

    @property
    def n_populations(self) -> int:
        """Length of one population buffer, 19 * plane_stride."""
        return lattice.Q * self.plane_stride

    def populations(self) -> np.ndarray:
        """The current (post-collision, shifted) populations on the host, [19 * plane_stride],
        as stored (resolution.storage: float32; float16 holding the population times 2^15; or
        uint16 holding the FP16C codes, cuda/lbm_lattice.cuh), in the two-buffer layout whatever
        resolution.streaming (solver/streaming.py)."""
        host = np.array(self.backend.to_host(self._f[self._current]), copy=True)
        if self.in_place:
            to_canonical(host, self._parity, self.grid.shape_zyx, self.plane_stride, np)
        return host

    def load_populations(
        self, f_host: np.ndarray, step_count: int, inlet_drho: np.ndarray | None = None
    ) -> None:
        """Restore a state saved by :meth:`populations` and :meth:`inlet_state` (both buffers:
        solid cells are never written, so both must hold the same values there), in this run's
        storage. Without inlet_drho (a checkpoint from before it was kept) the inlet cells' state
        is their stored density, what the step read before."""
        if f_host.dtype != self.population_dtype:
            raise ValueError(
                f"populations stored as {f_host.dtype}, this run stores {self.population_dtype}"
            )
        device = self.backend.asarray(f_host)
        for f in self._f:
            f[...] = device
        self._to_swapped()
        self._current = 0
        self.step_count = step_count
        if inlet_drho is None:
            inlet_drho = self.fields().rho[:, :, 0] - 1.0
        self._load_inlet_drho(inlet_drho)

    def attach_surface(
        self,
        vertices_m: np.ndarray,
        faces: np.ndarray,
        face_part: np.ndarray | None = None,
        part_names: tuple[str, ...] = ("body",),
    ) -> None:
        """Give the body's closed surface mesh (vertices in metres, outward faces; face_part [m]
        each face's index into part_names): from then on each step also integrates the pressure
        and the viscous stress of the fluid cells next to the body over it (FORCE_PRESSURE,
        FORCE_FRICTION of advance), and where each slot's surface lies, by part and grid column
        (surface, for the drag breakdown of solver/drag_breakdown.py)."""
        surface = slot_surface_elements(
            self.grid, self.case, self.flags_host, self.slot_host, vertices_m, faces, face_part
        )
        self.surface_area_missed = surface.missed
        self.surface, self.surface_part_names = surface, tuple(part_names)
        self.surface_vertices_m, self.surface_faces = np.asarray(vertices_m), np.asarray(faces)
        self.surface_face_part = np.asarray(
            face_part if face_part is not None else np.zeros(len(faces), np.int32)
        )
        self.surface_x_min_m = float(np.min(np.asarray(vertices_m)[:, 0]))
        self._param_values["slot_area"] = self.backend.asarray(surface.area)
        self._pack_params()

    def _pack_params(self) -> None:
        """The record the step reads (self.params) and, with in-place streaming, one per parity
        with that parity's free-slip copies (self._params_by_parity)."""
        self.params: KernelParams = pack_params(self._param_values, self.backend.address)
        self._params_by_parity = {
            parity: pack_params(
                {**self._param_values, "freeslip_dst": dst, "freeslip_src": src},
                self.backend.address,
            )
            for parity, (dst, src) in self._freeslip_by_parity.items()
        }

    @property
    def has_surface(self) -> bool:
        return np.isfinite(self.surface_area_missed)

    # ---- time stepping ----------------------------------------------------------------------
    def advance(self, n_steps: int, accumulate_slot_forces: bool = False) -> np.ndarray:
        """Take n_steps steps; return the forces on the body of each step in lattice units,
        [n, 3 kinds, 3 axes]: kind FORCE_TOTAL by momentum exchange, FORCE_PRESSURE and
        FORCE_FRICTION (the viscous stress) integrated over the attached surface (zero without one).
        With accumulate_slot_forces each step's per-slot forces are added to slot_force_sum.
        With the volumetric wall FORCE_PRESSURE and FORCE_FRICTION are its elements' exchange
        along their normals and the rest (they add up to FORCE_TOTAL), and the elements' forces
        are summed too (element_force_sum)."""
        force = self.backend.zeros((n_steps, 3, 3), self.backend.force_dtype)
        cell_force = self._param_values["cell_force"]
        if accumulate_slot_forces and self._slot_force_sum is None:
            self._slot_force_sum = self.backend.zeros(cell_force.shape, np.float64)
        element_force = None
        if self._element_normal is not None:
            element_force = self._param_values["vol_force"].reshape(-1, 3)
            if accumulate_slot_forces and self._element_force_sum is None:
                self._element_force_sum = self.backend.zeros(element_force.shape, np.float64)
        for i in range(n_steps):
            if self.in_place:
                params = self._params_by_parity[self._parity]
                self.backend.step_in_place(self._f[0], params, self._parity, force[i])
                self._parity = 1 - self._parity
            else:
                src, dst = self._f[self._current], self._f[1 - self._current]
                self.backend.step(src, dst, self.params, force[i])
                self._current = 1 - self._current
            if element_force is not None:
                along = (element_force * self._element_normal).sum(axis=1, keepdims=True)
                pressure = (along * self._element_normal).sum(axis=0)
                force[i, FORCE_PRESSURE] = pressure
                force[i, FORCE_FRICTION] = force[i, FORCE_TOTAL] - pressure
            if accumulate_slot_forces:
                self._slot_force_sum += cell_force
                if element_force is not None:
                    self._element_force_sum += element_force
        self.step_count += n_steps
        if accumulate_slot_forces:
            self.slot_force_steps += n_steps
        return self.backend.to_host(force).astype(np.float64)

    def slot_force_sum(self) -> np.ndarray | None:
        """The per-slot forces summed over the steps advanced with accumulate_slot_forces,
        [n_slots, 3, 3] lattice units, on the host (None before any)."""
        return None if self._slot_force_sum is None else self.backend.to_host(self._slot_force_sum)

    def load_slot_force_sum(self, total: np.ndarray | None, steps: int) -> None:
        """Restore slot_force_sum (a checkpoint's) and its number of steps."""
        self._slot_force_sum = (
            None if total is None else self.backend.asarray(np.asarray(total, np.float64))
        )
        self.slot_force_steps = steps

    def element_force_sum(self) -> np.ndarray | None:
        """The volumetric wall's per-element exchange summed over the steps advanced with
        accumulate_slot_forces (slot_force_steps of them), [E, 3] lattice units, on the host (None
        before any, or without the wall)."""
        total = self._element_force_sum
        return None if total is None else self.backend.to_host(total)

    def load_element_force_sum(self, total: np.ndarray | None) -> None:
        """Restore element_force_sum (a checkpoint's; its steps are slot_force_steps)."""
        self._element_force_sum = (
            None if total is None else self.backend.asarray(np.asarray(total, np.float64))
        )

    def wall_slopes(self) -> np.ndarray | None:
        """The projected wall's slots' slopes after the last step [57 S], on the host: state the
        step keeps besides the populations, in a checkpoint with them (None without the wall)."""
        if self.projected_wall is None:
            return None
        return self.backend.to_host(self._param_values["vol_slope_in"])

    def load_wall_slopes(self, slopes: np.ndarray | None) -> None:
        """Restore wall_slopes (a checkpoint's; None leaves them as they are)."""
        if slopes is not None and self.projected_wall is not None:
            self._param_values["vol_slope_in"][...] = self.backend.asarray(
                np.asarray(slopes, np.float32)
            )

    def fields(self) -> Fields:
        """Density and velocity of the current state, lattice units (Guo's velocity: the stored
        momentum less half the body force)."""
        n = self.grid.n_cells
        if self.in_place:  # the kernel reads the canonical layout; the buffer goes on at parity 0
            to_canonical(
                self._f[0], self._parity, self.grid.shape_zyx, self.plane_stride, self.backend.xp
            )
        self.backend.fields(
            self._f[self._current], self._moments, n, self.plane_stride, self.collision
        )
        self._to_swapped()
        m = self.backend.to_host(self._moments).reshape(4, *self.grid.shape_zyx)
        velocity = m[1:].copy()
        for a in range(3):
            velocity[a] -= 0.5 * self.body_accel_lattice[a]
        wall = wall_mask(self.flags_host)
        rho = m[0].copy()
        rho[wall] = 1.0
        velocity[:, wall] = 0.0
        return Fields(rho=rho, velocity=velocity)

    # ---- as a model of the run loop, like RefinedSimulation: one level -----------------------
    @property
    def levels(self) -> tuple[Simulation]:
        return (self,)

    @property
    def finest(self) -> Simulation:
        """The level that holds the body: this grid."""
        return self

    def level_fields(self) -> tuple[Fields]:
        """The current fields of each level: this grid's."""
        return (self.fields(),)

    def with_free_stream(self, levels: tuple[Fields, ...]) -> tuple[Fields, ...]:
        """Fields of each level, their free stream tied to the tunnel's: one grid has its own."""
        return levels

    @property
    def cell_updates_per_step(self) -> float:
        return float(self.grid.n_cells)

    @property
    def fluid_mask(self) -> np.ndarray:
        """Cells of ordinary fluid (no wall, inlet or outflow), [z, y, x]."""
        return (self.flags_host & lattice.TYPE_MASK) == lattice.FLUID

    # ---- coefficients -----------------------------------------------------------------------
    def coefficients(self, force_lattice: np.ndarray) -> np.ndarray:
        """Cd and Cl for lattice forces [..., 3]: C = F / (1/2 rho U^2 A), all in lattice units."""
        if self.reference_area_m2 is None:
            return np.full(force_lattice.shape[:-1] + (2,), np.nan)
        area_lattice = self.reference_area_m2 / self.units.dx_m**2
        q = 0.5 * self.units.u_lattice**2 * area_lattice
        return np.stack(
            [force_lattice[..., 0] / q, force_lattice[..., self.lift_axis] / q], axis=-1
        )


def check_body_clear_of_moving_walls(
    case: CaseConfig, grid: Grid, flags: np.ndarray, rolling_contact: np.ndarray | None = None
) -> None:
    """Refuse a body whose cells touch a moving wall (the rolling road): where no fluid cell lies
    between them, the wall would slide along the body itself. This happens when the gap under the
    body is less than half a cell; ConfigError names the gap and the fix. rolling_contact: bool
    [y, x] of the road z_min's first layer where rolling wheels stand (solver/rolling.py), which
    move with the road and may touch it."""
    faces = vars(case.domain.boundaries)
    for axis, name in enumerate(AXES):
        for side, ghosts in (("min", grid.ghost_lo[axis]), ("max", grid.ghost_hi[axis])):
            if faces[f"{name}_{side}"] != "moving":
                continue
            n = (grid.nx, grid.ny, grid.nz)[axis]
            index = ghosts if side == "min" else n - 1 - ghosts
            touching = (np.take(flags, index, axis=2 - axis) & lattice.BODY) > 0
            if rolling_contact is not None and (axis, side) == (2, "min"):
                touching &= ~rolling_contact
            if np.any(touching):
                raise ConfigError(
                    f"the body touches the moving wall {name}_{side} at dx = {grid.dx_m:.4g} m "
                    "(the gap "
                    f"between them is under half a cell): raise resolution.cells_per_length, or "
                    "the body's clearance from that wall"
                )


def initial_moments(case: CaseConfig, grid: Grid, units: LatticeUnits) -> np.ndarray:
    """Initial (rho, ux, uy, uz) per cell in lattice units, [4, z, y, x] (the walls' cells too:
    Simulation.start_from puts them at rest)."""
    m = np.zeros((4, *grid.shape_zyx), dtype=np.float32)
    m[0] = 1.0
    u0 = units.u_lattice
    if case.flow.initial == "inflow":
        m[1] = inlet_profile(case, grid, u0)[:, :, None]
    elif case.flow.initial == "taylor_green":
        # 2D Taylor-Green vortex in x-y, one period across the box (Taylor & Green 1937):
        # u = U sin(kx x) cos(ky y), v = -U (kx/ky) cos(kx x) sin(ky y),
        # p = -rho U^2/4 (cos 2kx x + (kx/ky)^2 cos 2ky y), rho = 1 + p / c_s^2.
        x = (grid.centers(0) - grid.origin_m[0]) / grid.dx_m
        y = (grid.centers(1) - grid.origin_m[1]) / grid.dx_m
        kx, ky = 2 * np.pi / grid.nx, 2 * np.pi / grid.ny
        X, Y = np.meshgrid(x, y, indexing="xy")
        m[1] = (u0 * np.sin(kx * X) * np.cos(ky * Y))[None]
        m[2] = (-u0 * (kx / ky) * np.cos(kx * X) * np.sin(ky * Y))[None]
        p = -0.25 * u0**2 * (np.cos(2 * kx * X) + (kx / ky) ** 2 * np.cos(2 * ky * Y))
        m[0] = (1.0 + 3.0 * p)[None]
    if case.flow.initial_perturbation > 0:
        # A seeded random velocity of the given share of U: to start a repeat run from a nearby
        # state (e.g. to test whether a flow has two states).
        rng = np.random.default_rng(0)
        m[1:] += (case.flow.initial_perturbation * u0 * rng.standard_normal(m[1:].shape)).astype(
            np.float32
        )
    return m

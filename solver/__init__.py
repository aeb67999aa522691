"""The lattice-Boltzmann solver: case configs, units, grid and flags, backends running the
kernels of cuda/, the run loop, forces and checkpoints.

Importable without vtk, pyvista or paddle (the GPU check runs where those are missing).
"""

__version__ = "0.2.0"

"""Parametric bodies (Ahmed body, parametric car) and mesh I/O through meshio, giving closed,
outward-oriented triangle meshes. Filled by the geometry issue."""

"""ParaView output and pictures. Takes numpy arrays, spacing, origin and meshes; knows nothing
of the solver's objects. vtk and pyvista are imported where they are used."""

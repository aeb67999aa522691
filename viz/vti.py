"""VTK XML image data (.vti): uniform-grid fields that open in ParaView, written through VTK.

Values sit on the image's points, which are the lattice cell centres; spacing and origin are in
metres. Scalars are arrays [z, y, x]; vectors are [3, z, y, x]. The writer writes the path it is
given; callers that need atomic files pass a temporary path and rename it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np


def write_vti(
    path: Path, spacing_m: float, origin_m: Sequence[float], arrays: Mapping[str, np.ndarray]
) -> Path:
    """Write arrays as point data of an image with the given spacing and origin (metres).
    Memory: VTK shares the arrays' buffers; only vectors are copied once, to interleave them."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk

    shapes = {name: (a.shape[1:] if a.ndim == 4 else a.shape) for name, a in arrays.items()}
    shape_zyx = next(iter(shapes.values()))
    if any(s != shape_zyx for s in shapes.values()):
        raise ValueError(f"arrays of different shapes: {shapes}")
    image = vtk.vtkImageData()
    image.SetDimensions(shape_zyx[2], shape_zyx[1], shape_zyx[0])
    image.SetSpacing(spacing_m, spacing_m, spacing_m)
    image.SetOrigin(*map(float, origin_m))
    point_data = image.GetPointData()
    keep = []  # VTK shares these buffers (no deep copy): keep them alive until written
    for name, a in arrays.items():
        if a.ndim == 4:
            flat = np.ascontiguousarray(np.moveaxis(a, 0, -1).reshape(-1, 3))
        else:
            flat = np.ascontiguousarray(a.reshape(-1))
        keep.append(flat)
        vtk_array = numpy_to_vtk(flat, deep=False)
        vtk_array.SetName(name)
        point_data.AddArray(vtk_array)
    writer = vtk.vtkXMLImageDataWriter()
    writer.SetInputData(image)
    writer.SetCompressorTypeToZLib()
    writer.SetDataModeToAppended()
    writer.EncodeAppendedDataOff()
    writer.SetFileName(str(path))
    ok = writer.Write()
    del keep
    if ok != 1:
        raise OSError(f"VTK could not write '{path}'")
    return path

"""ParaView collection files: a .pvd time series of snapshots and a .vtm multiblock that opens
the fields and the body together. Both are small XML files that reference data files by
relative path; ParaView (and pyvista) read them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr


def write_pvd(path: Path, entries: Sequence[tuple[float, str]]) -> Path:
    """A time series: (time [s], file relative to path's folder) per snapshot."""
    lines = [
        '<?xml version="1.0"?>',
        '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
        "  <Collection>",
    ]
    lines += [
        f'    <DataSet timestep="{t:.9g}" group="" part="0" file={quoteattr(f)}/>'
        for t, f in entries
    ]
    lines += ["  </Collection>", "</VTKFile>", ""]
    path.write_text("\n".join(lines))
    return path


def write_vtm(path: Path, blocks: Sequence[tuple[str, str]]) -> Path:
    """A multiblock data set: (block name, file relative to path's folder) per block."""
    lines = [
        '<?xml version="1.0"?>',
        '<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian">',
        "  <vtkMultiBlockDataSet>",
    ]
    lines += [
        f'    <DataSet index="{i}" name={quoteattr(name)} file={quoteattr(f)}/>'
        for i, (name, f) in enumerate(blocks)
    ]
    lines += ["  </vtkMultiBlockDataSet>", "</VTKFile>", ""]
    path.write_text("\n".join(lines))
    return path

"""Redraw the pictures of a results folder: python -m viz results/<case>"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from viz.pictures import draw_all


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m viz", description=__doc__)
    p.add_argument("folder", type=Path, help="a results folder written by run_case.py")
    args = p.parse_args(argv)
    for needed in ("summary.json", "forces.csv"):
        if not (args.folder / needed).is_file():
            print(
                f"error: '{args.folder / needed}' is missing: give a results folder of run_case.py",
                file=sys.stderr,
            )
            return 2
    try:
        drawn = draw_all(args.folder)
    except Exception as exc:  # unreadable files: VTK, JSON and numpy raise their own types
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(
            f"error: cannot draw '{args.folder}' ({type(exc).__name__}: {first})", file=sys.stderr
        )
        return 2
    for path in drawn:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write files under a temporary name in the same folder, then rename: a crash never leaves a
half-written file that looks whole."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from solver.errors import OutputError


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_read_umask()  # read once, at import, before any threads


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside target; flush it to disk and rename it onto target when
    the block succeeds. Creates target's folder if needed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; give the file the usual permissions
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """Call write(tmp) on a temporary path beside target and rename it onto target when it
    succeeds; a failure to write becomes an OutputError naming the file."""
    try:
        with atomic_path(target) as tmp:
            write(tmp)
    except OSError as exc:
        raise OutputError(f"cannot write '{target}': {exc.strerror or exc}") from exc


def write_text(target: Path, text: str) -> None:
    """A text file, written atomically (OutputError on failure)."""
    write_atomically(target, lambda tmp: tmp.write_text(text))


@contextmanager
def atomic_folder(target: Path) -> Iterator[Path]:
    """Yield an empty temporary folder beside target; when the block succeeds, it replaces
    target (whatever target held is removed), else it is removed. A reader sees the old folder
    or the new one, never half of one."""
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        if target.exists():
            os.replace(target, old)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)

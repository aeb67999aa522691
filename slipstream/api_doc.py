"""docs/api.md from the docstrings of the public API (slipstream.__all__).

    python -m slipstream.api_doc > docs/api.md

A test compares docs/api.md with this output, so the page follows the code.
"""

from __future__ import annotations

import dataclasses
import inspect
import re

import slipstream

HEADER = """# The Python API (`import slipstream`)

Generated from the docstrings by `python -m slipstream.api_doc > docs/api.md`; the README's
"From Python" section and `examples/` show it in use. The case sections are the dataclasses the
YAML loader fills: `cases/README.md` gives every key's unit, default and range.
"""


def _field_comments(cls: type) -> dict[str, str]:
    """The comment written with each field in the class's source (the config sections document
    units there): the comment lines just above the field, then the one on its own lines."""
    comments: dict[str, str] = {}
    above: list[str] = []
    name = None
    try:
        source = inspect.getsource(cls)
    except OSError:  # a class made at run time (Case: the schema with the geometry section)
        return comments
    for line in source.splitlines()[1:]:
        stripped = line.strip()
        field_line = re.match(r"    (\w+): ", line)
        if field_line:
            name = field_line[1]
            comments[name] = " ".join(above)
            above = []
        if stripped.startswith("#") and not field_line:
            above.append(stripped.lstrip("# "))
            continue
        if name and "#" in stripped:
            own = stripped.split("#", 1)[1].strip()
            comments[name] = f"{comments[name]} {own}".strip()
    return comments


def _fields(cls: type) -> list[str]:
    """One line per field of a dataclass: name, type (as annotated), default and its comment."""
    comments = _field_comments(cls)
    lines = []
    for item in dataclasses.fields(cls):
        if item.default is not dataclasses.MISSING:
            default = repr(item.default)
        elif item.default_factory is not dataclasses.MISSING:
            value = item.default_factory()
            default = (
                f"{type(value).__name__}()" if dataclasses.is_dataclass(value) else repr(value)
            )
        else:
            default = "required"
        annotation = item.type if isinstance(item.type, str) else item.type.__name__
        comment = comments.get(item.name, "")
        lines.append(
            f"- `{item.name}`: `{annotation}` = `{default}`" + (f": {comment}" if comment else "")
        )
    return lines


def _entry(name: str, obj: object) -> list[str]:
    """The markdown section of one public name."""
    if inspect.isclass(obj):
        kind = "dataclass" if dataclasses.is_dataclass(obj) else "class"
        own = obj.__name__
        title = f"## `{name}` ({kind}{'' if own == name else f' {own}'})"
    else:
        title = f"## `{name}{str(inspect.signature(obj)).replace(chr(39), '')}`"
    lines = [title, ""]
    doc = inspect.getdoc(obj)
    if doc and not (inspect.isclass(obj) and doc.startswith(f"{obj.__name__}(")):
        lines += [doc, ""]
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        lines += [*_fields(obj), ""]
    return lines


def api_markdown() -> str:
    """The whole page."""
    lines = [HEADER]
    for name in slipstream.__all__:
        lines += _entry(name, getattr(slipstream, name))
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(api_markdown(), end="")

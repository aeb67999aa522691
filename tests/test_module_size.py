"""Small modules with one job: a module of solver/, surrogate/, optimize/ or slipstream/ over 250
lines says why in its docstring ("Over 250 lines: ...")."""

from __future__ import annotations

import ast

from conftest import ROOT

LIMIT_LINES = 250


def test_every_long_module_says_why():
    unexplained = []
    for package in ("solver", "surrogate", "optimize", "slipstream"):
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text()
            if text.count("\n") <= LIMIT_LINES:
                continue
            doc = ast.get_docstring(ast.parse(text)) or ""
            if f"Over {LIMIT_LINES} lines:" not in doc:
                unexplained.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not unexplained, "split these or say why in the docstring: " + ", ".join(unexplained)

# Quick start: `make demo` (the main job) and `make test` (the tests). Both create or refresh
# .venv from pyproject.toml first, so they work from a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYLINT_PATHS := solver slipstream shapes surrogate optimize viz examples benchmarks tests *.py

.PHONY: help venv demo lint test test-slow bench clean
.DEFAULT_GOAL := help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)  ## create or refresh .venv from pyproject.toml

demo: $(STAMP)  ## the whole mission: sweep, surrogate, optimization, results/demo/report.html
	$(PY) run_pipeline.py cases/pipeline_demo.yaml

lint: $(STAMP)  ## ruff's lint rules and formatting (pyproject.toml's [tool.ruff]); `ruff format .` fixes the format; code repeated in 6+ lines across files (pylint)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pylint --score=n $(PYLINT_PATHS)

test: lint  ## the lint step, then the test suite (without the slow physics checks), one worker per core
	$(PY) -m pytest -q -n auto --dist worksteal

test-slow: $(STAMP)  ## the long physics checks
	$(PY) -m pytest -q -m slow

bench: $(STAMP)  ## the MLUPs benchmark, beside lbmpy (installs the bench extra)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/lbm_mlups.py

clean:  ## delete .venv, results/ and the pytest cache
	rm -rf $(VENV) results .pytest_cache

# Two entry points for a fresh machine with python3 and make:
#   make play   - set everything up, then play a terminal game against bots (the main job)
#   make test   - set everything up, then run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup play test lint bench system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip==25.3
	$(BIN)/pip install --quiet -e '.[all]'
	touch $(STAMP)

setup: $(STAMP)

play: setup
	$(BIN)/nimmt play

system-deps:
	bash scripts/system-deps.sh

test: setup system-deps
	$(BIN)/ruff check nimmt tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2

lint: setup
	$(BIN)/ruff check nimmt tests benchmarks
	$(BIN)/mypy

bench: setup
	$(BIN)/python benchmarks/bench_core.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis

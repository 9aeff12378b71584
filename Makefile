# Two entry points for a fresh machine with python3 and make:
#   make serve  - set everything up, then start the web table (the main job) and print its address
#   make test   - set everything up, then run the whole test suite
# and one more:
#   make play   - set everything up, then play in the terminal against bots
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup serve play test lint bench system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip==25.3
	$(BIN)/pip install --quiet -e '.[all]'
	touch $(STAMP)

setup: $(STAMP)
	$(BIN)/nimmt prepare  # compile the bots' kernels once (minutes on a first run, a second after)

serve: setup
	$(BIN)/nimmt serve $(ARGS)

play: setup
	$(BIN)/nimmt play

system-deps:
	bash scripts/system-deps.sh

test: setup system-deps
	$(BIN)/ruff check nimmt tests benchmarks
	$(BIN)/mypy
	$(BIN)/mypy benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadgroup

lint: setup
	$(BIN)/ruff check nimmt tests benchmarks
	$(BIN)/mypy
	$(BIN)/mypy benchmarks

bench: setup
	$(BIN)/python benchmarks/bench_core.py
	$(BIN)/nimmt bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis

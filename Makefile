# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The benchmarks: FACETEVAL_DATA_DIR, else the data-dir of faceteval.toml, which the faceteval command reads too.
DATA_DIR ?= $(or $(FACETEVAL_DATA_DIR),$(abspath $(shell $(PYTHON) -c \
	'import tomllib; print(tomllib.load(open("faceteval.toml", "rb")).get("data-dir", "data"))')))

.PHONY: install demo test bench check lint typecheck docs-api clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[anthropic]" --group dev
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	FACETEVAL_DATA_DIR=$(DATA_DIR) $(BIN)/python examples/demo.py

# The review app's browser tests drive Debian's Chromium (a test tool's own browser download is not used).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null

test: $(STAMP) $(CHROMIUM)
	FACETEVAL_DATA_DIR=$(DATA_DIR) FACETEVAL_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

bench: $(STAMP)
	PYTHONPATH=. $(BIN)/python benchmarks/run.py
	PYTHONPATH=. $(BIN)/python benchmarks/hdeval_aggregator.py
	PYTHONPATH=. $(BIN)/python benchmarks/view_index.py
	PYTHONPATH=. $(BIN)/python benchmarks/stall.py
	PYTHONPATH=. $(BIN)/python benchmarks/review_pages.py
	PYTHONPATH=. $(BIN)/python benchmarks/review_import_memory.py
	PYTHONPATH=. FACETEVAL_DATA_DIR=$(DATA_DIR) $(BIN)/python benchmarks/prefix_share.py
	PYTHONPATH=. $(BIN)/python benchmarks/stream_memory.py
	PYTHONPATH=. $(BIN)/python benchmarks/startup.py
	PYTHONPATH=. $(BIN)/python benchmarks/collect.py

# The package boundaries (pyproject.toml's [tool.importlinter]); the test suite runs them too.
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

# The API reference, from the public packages' docstrings (pdoc): build/api/index.html
docs-api: $(STAMP)
	$(BIN)/python docs/api/build.py build/api

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

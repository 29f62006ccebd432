# All set-up lives here: a fresh machine needs only Python 3.11+ and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Workers for the test suite: one per core.
TEST_WORKERS ?= auto

.PHONY: run test test-all bench docs install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[web,dask,envs,dev,docs]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/dicelab pig solve --goal 100
	@echo "dicelab web lab: open http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/dicelab serve --host $(HOST) --port $(PORT)

# The documentation site (mkdocs.yml, docs/): strict, so a broken reference or docstring fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -q -d site

test: $(STAMP) docs
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not slow" --timeout 900

test-all: $(STAMP)
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --timeout 3600

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build dist site

# All set-up lives here: a fresh machine needs only Python 3.11+ and the package registries.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
# Workers for the test suite: one per core. Idle workers take tests from busy ones (worksteal):
# the suite's warm run on 2 cores, 13 min 50 s with xdist's default scheduling, 11 min 53 s
# (2026-12-01; a fresh clone adds about 4 minutes of numba compiling)
TEST_WORKERS ?= auto
TEST_DIST ?= worksteal
# The web lab's PostgreSQL tests start a throwaway server from Debian's postgresql binaries
# (/usr/lib/postgresql/<version>/bin); make installs them when missing, and the tests must run.
PG_BINARIES := ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null
INSTALL_PG  := $(PG_BINARIES) || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null)

.PHONY: run test test-all bench docs install clean reproductions tutorials leaderboard

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[web,dask,envs,dev,docs,postgres]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/dicelab pig solve --goal 100
	@echo "dicelab web lab: open http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/dicelab serve --host $(HOST) --port $(PORT)

# The documentation site (mkdocs.yml, docs/): strict, so a broken reference or docstring fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -q -d site

# The docs' Reproductions section: every source document recomputed at full size (about 20 minutes
# on 2 cores); the reports are committed, so `make docs` does not wait for them.
reproductions: $(STAMP)
	nice -n 10 $(BIN)/dicelab reproduce all --out docs/reproductions

# The docs' Tutorials section: the text sources docs/tutorials/*.py executed at full size into
# docs/tutorials/*.ipynb (committed; a few minutes)
tutorials: $(STAMP)
	nice -n 10 $(BIN)/python docs/run_tutorials.py

# The docs' Leaderboard: Q-learning, DQN and PPO graded exactly as they learn (two processes, one per
# core; under an hour on 2 idle cores); installs the [rl] extra (Stable-Baselines3, PyTorch's CPU build), which `make install` leaves out
leaderboard: $(STAMP)
	$(BIN)/pip install -q -e ".[rl]"
	nice -n 10 $(BIN)/python benchmarks/leaderboard.py --out docs --games pig100 & p=$$!; \
	nice -n 10 $(BIN)/python benchmarks/leaderboard.py --out docs --games piglet,liars && wait $$p

test: $(STAMP) docs
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	@$(INSTALL_PG)
	DICELAB_REQUIRE_POSTGRES=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST) -m "not slow" --timeout 900

test-all: $(STAMP)
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)
	@$(INSTALL_PG)
	DICELAB_REQUIRE_POSTGRES=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist $(TEST_DIST) --timeout 3600

bench: $(STAMP)
	@$(INSTALL_PG)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build dist site

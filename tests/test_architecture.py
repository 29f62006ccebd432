"""The one-way data flow: rules -> solvers -> strategies -> sim -> cli / web.

Checked on the source text with ``ast``, so a stray import fails the suite at once.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "dicelab"

FORBIDDEN = {
    "games": ("dicelab.solvers", "dicelab.learn", "dicelab.strategies", "dicelab.sim",
              "dicelab.cli", "dicelab.web", "dicelab.envs", "dicelab.plots"),
    "solvers": ("dicelab.cli", "dicelab.web", "dicelab.envs"),
    "learn": ("dicelab.cli", "dicelab.web"),
    "strategies": ("dicelab.cli", "dicelab.web"),
    "sim": ("dicelab.cli", "dicelab.web"),
    "plots": ("dicelab.cli", "dicelab.web"),
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layering(package):
    bad = []
    for path in sorted((SRC / package).rglob("*.py")):
        for name in _imports(path):
            if name.startswith(FORBIDDEN[package]):
                bad.append(f"{path.relative_to(SRC)} imports {name}")
    assert not bad, "\n".join(bad)


# Storage never uses pickle. The one exception is *transport*: the local process backend sends
# a lambda or closure to its worker processes with cloudpickle (functions with an importable name
# go by reference), as Dask does for every task; nothing pickled is ever written to disk.
PICKLE_TRANSPORT_ALLOWED = {"sim/backends.py": {"cloudpickle"}}


def test_no_pickle_for_storage():
    offenders = []
    for p in SRC.rglob("*.py"):
        rel = str(p.relative_to(SRC))
        used = {"pickle", "cloudpickle", "dill", "joblib"} & {n.split(".")[0] for n in _imports(p)}
        if used - PICKLE_TRANSPORT_ALLOWED.get(rel, set()):
            offenders.append(rel)
        text = p.read_text()
        assert "allow_pickle=True" not in text and ".pkl" not in text, rel
    assert not offenders


def test_cli_starts_without_heavy_imports():
    # `dicelab --help` must be quick: solvers, scipy.stats and matplotlib load only when used.
    code = ("import sys, dicelab.cli.main; heavy = [m for m in ('scipy.stats', 'matplotlib.pyplot', "
            "'fastapi', 'dask', 'torch') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""

"""The layout's rules, checked on the import graph of the source text (``ast``), imports inside
function bodies included:

* one package per game (``pig``, ``simpig``, ``supersix``, ``liars``) over a shared ``core``;
* ``core`` imports no game and no front end; no game imports another game or a front end;
* no import cycle between modules;
* front ends (checked: ``web``) import a game only through its package (``dicelab.<game>``, its
  public ``__init__``), never ``dicelab.<game>.<module>``, and never compare a value with a game's
  name (``==``, ``!=``, ``in`` against a literal such as ``"pig"``): they loop over the registry;
* no pickle for storage.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "dicelab"
FRONT_ENDS = ("cli", "web", "envs")
PACKAGES = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").exists())
GAMES = tuple(p for p in PACKAGES if p not in ("core", *FRONT_ENDS))  # every other package is a game


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


def imported_modules(path: Path) -> set[str]:
    """The dicelab modules ``path`` imports anywhere in its text (``from pkg import sub``: both
    ``pkg`` and ``pkg.sub``)."""
    me = module_name(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = me.split(".")
                keep = len(base) - node.level + (1 if path.name == "__init__.py" else 0)
                mod = ".".join(base[:keep] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # ``from pkg import sub`` imports ``pkg`` (its __init__ runs) and ``pkg.sub``: both
            # count, so a package whose __init__ imports one of its modules, even only for type
            # checkers, closes a cycle with a module that does ``from pkg import ...``
            found |= {f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES}
            found.add(mod)
    out = set()
    for name in found:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != me and name != "dicelab":
            out.add(name)
    return out


GRAPH = {m: imported_modules(p) for m, p in MODULES.items()}


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_layout_has_one_package_per_game_over_a_core():
    assert {"core", *FRONT_ENDS} <= set(PACKAGES)
    assert {"pig", "simpig", "supersix", "liars"} <= set(GAMES), GAMES
    loose = sorted(p.name for p in SRC.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert not loose, f"modules outside the packages: {loose}"


@pytest.mark.parametrize("game", GAMES)
def test_each_game_package_has_a_public_api(game):
    import importlib

    mod = importlib.import_module(f"dicelab.{game}")
    assert mod.__all__, game
    for name in mod.__all__:  # every public name resolves
        assert getattr(mod, name) is not None, (game, name)


@pytest.mark.parametrize("package", ["core", *GAMES])
def test_dependencies_point_down(package):
    allowed = {"core"} if package == "core" else {"core", package}
    bad = sorted(f"{m} imports {d}" for m, deps in GRAPH.items() if top(m) == package
                 for d in deps if top(d) not in allowed)
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_checker_sees_imports_inside_functions(tmp_path):
    # the rules would be blind if imports in function bodies were missed
    assert "dicelab.pig.evaluation" in GRAPH["dicelab.pig.simulation"]  # imported inside simulate()


# Front ends drive games through the registry and each game's public API.
CHECKED_FRONT_ENDS = FRONT_ENDS
# Data migrations convert rows written by an older layout, which was per game by nature: they are
# history, not dispatch, and are left out of the name-comparison rule.
NAME_RULE_EXEMPT = ("web/migrations/",)


def deep_game_imports(package: str, graph: dict[str, set[str]] = GRAPH) -> list[str]:
    """Imports of a game's inner modules (``dicelab.<game>.<module>``) by the front end ``package``."""
    return sorted(f"{m} imports {d}" for m, deps in graph.items() if top(m) == package
                  for d in deps if top(d) in GAMES and d != f"dicelab.{top(d)}")


def game_name_comparisons(tree: ast.AST) -> list[int]:
    """Lines that compare something with a game's name given as a literal: ``x == "pig"``,
    ``x in ("pig", "liars")``, ``case "pig":``."""
    def names(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in GAMES
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(names(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(k is not None and names(k) for k in node.keys)
        return False

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            if any(names(x) for x in (node.left, *node.comparators)):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and names(node.value):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("package", CHECKED_FRONT_ENDS)
def test_front_ends_import_games_only_through_their_package(package):
    bad = deep_game_imports(package)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", CHECKED_FRONT_ENDS)
def test_front_ends_do_not_dispatch_on_game_names(package):
    bad = []
    for p in (SRC / package).rglob("*.py"):
        rel = str(p.relative_to(SRC))
        if rel.startswith(NAME_RULE_EXEMPT):
            continue
        bad += [f"{rel}:{line}" for line in game_name_comparisons(ast.parse(p.read_text()))]
    assert not bad, "comparisons with game names (loop over dicelab.core.registry instead): " + ", ".join(bad)


def test_the_front_end_checks_can_fail():
    # each rule finds what it forbids
    src = 'if g.game == "pig":\n    pass\nelif kind in ("simpig", "x"):\n    pass\nok = name == "pigs"\n'
    assert game_name_comparisons(ast.parse(src)) == [1, 3]
    assert game_name_comparisons(ast.parse('match g:\n    case "liars":\n        pass\n')) == [2]
    fake = {"dicelab.web.x": {"dicelab.pig.rules", "dicelab.pig", "dicelab.core.registry"}}
    assert deep_game_imports("web", fake) == ["dicelab.web.x imports dicelab.pig.rules"]


# Storage never uses pickle. The one exception is *transport*: the local process backend sends
# a lambda or closure to its worker processes with cloudpickle (functions with an importable name
# go by reference), as Dask does for every task; nothing pickled is ever written to disk.
PICKLE_TRANSPORT_ALLOWED = {"core/backends.py": {"cloudpickle"}}


def test_no_pickle_for_storage():
    offenders = []
    for p in SRC.rglob("*.py"):
        rel = str(p.relative_to(SRC))
        names: set[str] = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.split(".")[0])
        used = {"pickle", "cloudpickle", "dill", "joblib"} & names
        if used - PICKLE_TRANSPORT_ALLOWED.get(rel, set()):
            offenders.append(rel)
        text = p.read_text()
        assert "allow_pickle=True" not in text and ".pkl" not in text, rel
    assert not offenders


def test_cli_starts_without_heavy_imports():
    # `dicelab --help` must be quick: solvers, scipy.stats and matplotlib load only when used.
    code = ("import sys, dicelab.cli.main; heavy = [m for m in ('scipy.stats', 'matplotlib.pyplot', "
            "'fastapi', 'dask', 'torch', 'numba') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""

"""docs/data/liars-item2.json, the figure of where issue 26's item 2 stands: every figure in it is one
BENCHMARKS.md records, from a section that exists, and the figure renders from it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "docs" / "data" / "liars-item2.json").read_text())
BENCH = (ROOT / "BENCHMARKS.md").read_text()


@pytest.mark.parametrize("row", DATA["sizes"], ids=lambda r: f"{r['dice'][0]}v{r['dice'][1]}-{r['wild']}")
def test_each_figure_is_one_benchmarks_records(row):
    figure = f"{row['learned']:.4f}" + (f" +- {row['ci']:.4f}" if row["ci"] is not None else "")
    assert figure in BENCH, figure
    assert row["section"] in BENCH, row["section"]


def test_every_size_of_both_rules_once():
    sizes = sorted((tuple(r["dice"]), r["wild"]) for r in DATA["sizes"])
    expected = sorted(((a, b), w) for w in ("none", "ones") for a in range(3, 6) for b in range(3, 6))
    assert sizes == expected


def test_the_bar_reads_as_the_issue_words_it(tmp_path):
    spec = importlib.util.spec_from_file_location("liars_item2_plot", ROOT / "benchmarks" / "liars_item2_plot.py")
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    # "a lower bound whose 95% interval includes 0 or stays under 0.02"
    assert plot.met({"learned": 0.0194, "ci": 0.0005}, 0.02) and not plot.met({"learned": 0.0194, "ci": 0.0010}, 0.02)
    assert plot.met({"learned": 0.005, "ci": 0.03}, 0.02) and not plot.met({"learned": 0.0100, "ci": None}, 0.02)
    out = plot.plot(DATA, tmp_path / "item2.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

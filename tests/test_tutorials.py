"""The tutorials (docs/tutorials/*.py, jupytext percent format) run: each is converted to a notebook
and executed cell by cell in a real Jupyter kernel, at small sizes (DICELAB_TUTORIAL_QUICK=1). Their
cells assert the papers' numbers where they print them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "docs" / "tutorials").glob("[0-9]*.py"))


def test_there_are_five_tutorials():
    assert len(TUTORIALS) >= 5


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path, tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_TUTORIAL_QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = jupytext.read(path)
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= 3  # words, not only code
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_the_rendered_notebook_is_the_source_run(path):
    """The docs show docs/tutorials/NAME.ipynb, executed from NAME.py by `make tutorials`: same cells,
    every code cell run, no error."""
    rendered = path.with_suffix(".ipynb")
    assert rendered.exists(), f"run `make tutorials`: {rendered.name} is missing"
    src, out = jupytext.read(path), jupytext.read(rendered)
    code = [c.source for c in src.cells if c.cell_type == "code"]
    assert [c.source for c in out.cells if c.cell_type == "code"] == code, f"run `make tutorials`: {rendered.name} is stale"
    assert [c.source for c in src.cells if c.cell_type == "markdown"] == \
        [c.source for c in out.cells if c.cell_type == "markdown"]
    for c in out.cells:
        if c.cell_type == "code":
            assert c.get("execution_count"), f"{rendered.name}: a code cell was not run"
            assert not any(o.get("output_type") == "error" for o in c.get("outputs", []))

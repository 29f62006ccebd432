"""The tutorials (docs/tutorials/*.py, jupytext percent format) run: each is converted to a notebook
and executed cell by cell in a real Jupyter kernel, at small sizes (DICELAB_TUTORIAL_QUICK=1). Their
cells assert the papers' numbers where they print them.

One kernel per test worker serves every tutorial, its namespace wiped (``%reset -f``) before each, so
a tutorial cannot lean on another's variables, and the suite pays for one kernel start and one round of
imports instead of five (the five take about 15 s of CPU time in all)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "docs" / "tutorials").glob("[0-9]*.py"))


def test_there_are_five_tutorials():
    assert len(TUTORIALS) >= 5


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A Jupyter kernel in a scratch folder, with the tutorials' small sizes and a headless plotting backend."""
    client = nbclient.NotebookClient(nbformat.v4.new_notebook(), timeout=600, kernel_name="python3",
                                     shutdown_kernel="immediate",
                                     resources={"metadata": {"path": str(tmp_path_factory.mktemp("tutorials"))}})
    env = {**os.environ, "DICELAB_TUTORIAL_QUICK": "1", "MPLBACKEND": "Agg"}
    with client.setup_kernel(env=env):
        yield client


def run_in(client, nb) -> None:
    """Execute every cell of ``nb`` in the shared kernel, after wiping what the previous tutorial left."""
    wipe = nbformat.v4.new_code_cell("%reset -f\nimport matplotlib.pyplot\nmatplotlib.pyplot.close('all')")
    client.nb = nbformat.v4.new_notebook(cells=[wipe])  # execute_cell writes the cell back into client.nb
    client.execute_cell(wipe, 0, store_history=False)
    client.nb = nb
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            client.execute_cell(cell, index)  # raises CellExecutionError with the traceback on an error


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path, kernel):
    nb = jupytext.read(path)
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= 3  # words, not only code
    run_in(kernel, nb)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")


def test_a_tutorial_cannot_use_what_another_left(kernel):
    """The wipe between tutorials is real: a name one tutorial defines is gone for the next."""
    run_in(kernel, nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("left_behind = 1")]))
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="NameError"):
        run_in(kernel, nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("left_behind")]))


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

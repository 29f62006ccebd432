"""Execute the tutorials' text sources (docs/tutorials/NN_*.py, jupytext percent format) at full size
into the notebooks the documentation shows (docs/tutorials/NN_*.ipynb): ``make tutorials``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jupytext
import nbclient

HERE = Path(__file__).resolve().parent / "tutorials"


def main(names: list[str]) -> None:
    for path in sorted(HERE.glob("[0-9]*.py")):
        if names and path.stem not in names:
            continue
        t0 = time.perf_counter()
        nb = jupytext.read(path)
        nbclient.NotebookClient(nb, timeout=3600, kernel_name="python3",
                                resources={"metadata": {"path": str(HERE)}}).execute()
        nb.metadata.pop("widgets", None)
        jupytext.write(nb, path.with_suffix(".ipynb"))
        print(f"{path.name}: {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

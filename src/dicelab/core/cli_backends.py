"""The options every distributed command shares: ``--backend``, ``--address``, ``--workers``, ``--store``.

``--backend local`` (the default) uses processes on this machine; ``--backend dask`` starts a
``LocalCluster`` for the run, or with ``--address tcp://HOST:PORT`` uses a running Dask
scheduler; ``--backend ray`` uses Ray (``pip install 'dicelab[ray]'``). ``--store DIR`` keeps
every finished task's result in Parquet files there, so running the same command again resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from dicelab.core.backends import check_backend
from dicelab.core.cli import check_count, check_out_folder

MAX_WORKERS = 4096

BackendOption = typer.Option(
    None,
    "--backend",
    help="Run the tasks on: local (processes here), dask or ray. Default: the single-process code.",
)
AddressOption = typer.Option(
    None,
    "--address",
    help="A running cluster: tcp://HOST:PORT for Dask, ray://HOST:PORT (or auto) for Ray.",
)
WorkersOption = typer.Option(
    None,
    "--workers",
    help="Local worker processes, or workers of the Dask LocalCluster (default: every core).",
)
StoreOption = typer.Option(
    None,
    "--store",
    help="Folder for finished task results (Parquet); the same command resumes from it.",
)


def backend_kwargs(
    backend: str | None, address: str | None, workers: int | None, store: Path | None
) -> dict[str, Any] | None:
    """Validated keyword arguments for :mod:`dicelab.core.jobs`, or None for the single-process path."""
    check_count(workers, "--workers", 1, MAX_WORKERS)
    check_out_folder(store, "--store")
    if backend is None:
        check_backend("local", address)  # an address without a backend is an error too
        if workers is not None or store is not None:
            backend = "local"
        else:
            return None
    check_backend(backend, address)
    return {
        "backend": backend,
        "address": address,
        "workers": workers,
        "store": None if store is None else str(store),
    }

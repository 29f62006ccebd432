"""The dicelab web lab: play the games in a browser against exact bots, with a coach, a recorded
human-play study (seed 002, section 2.4) and a strategy explorer.

Start it with ``dicelab serve`` (or ``make run``); build an app in code with
:func:`dicelab.web.app.create_app`. The JSON API is described at ``/openapi.json``.
"""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(db_url: str | None = None, warm: bool = True, **options):  # noqa: ANN201, ANN003 - FastAPI app
    """Build the FastAPI app on ``db_url`` (see :func:`dicelab.web.app.create_app` for ``options``:
    ``admin_key``, ``bind_host``, ``allow_hosts``)."""
    from dicelab.web.app import create_app as _create

    return _create(db_url, warm=warm, **options)

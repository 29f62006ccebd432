"""``dicelab serve``: start the web lab (FastAPI + uvicorn) and print its address and researcher key."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import typer

from dicelab.core.errors import require

KEY_FORMAT = re.compile(r"[\x21-\x7e]{8,200}")  # visible ASCII: it travels in an HTTP header


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (1-65535)."),
    db: str = typer.Option(None, "--db", help="SQLAlchemy database URL (default: SQLite in the user data folder)."),
    warm: bool = typer.Option(True, "--warm/--no-warm", help="Build every game's opponents, levels and trained policies in the background at start-up "
                                                            "(from the cache when there); --no-warm: build when a game needs them."),
    admin_key: str = typer.Option(
        None, "--admin-key", envvar="DICELAB_ADMIN_KEY", show_envvar=True,
        help="Researcher key for the study's exports and analysis (header X-Admin-Key); "
             "default: a new random key, printed at start-up."),
    puzzles: Path = typer.Option(None, "--puzzles", help="A puzzle set to serve (dicelab puzzles build --out); "
                                                         "default: the one shipped with dicelab."),
) -> None:
    """Start the web lab: play, coach, human-play study and strategy explorer."""
    require(1 <= port <= 65535, f"port must be from 1 to 65535, got {port}")
    if admin_key is not None:
        require(KEY_FORMAT.fullmatch(admin_key) is not None,
                "the researcher key (--admin-key or DICELAB_ADMIN_KEY) must be 8 to 200 visible ASCII characters "
                "without spaces")
    if puzzles is not None:
        from dicelab.core.puzzles import load

        load(puzzles)  # a missing or damaged set stops here with one line
    import uvicorn

    from dicelab.web.app import create_app
    from dicelab.web.db import default_db_url, hide_password

    url = db or default_db_url()
    key = admin_key or secrets.token_urlsafe(24)
    app = create_app(url, warm=warm, admin_key=key, bind_host=host, puzzle_set=puzzles)
    shown = hide_password(app.state.engine.url)
    shown_host = f"[{host}]" if ":" in host else host
    typer.echo(f"dicelab web lab: http://{shown_host}:{port}/  (database: {shown}; Ctrl-C stops)", err=True)
    typer.echo("researcher key (X-Admin-Key, for /analysis and /export): "
               + (key if admin_key is None else "as given by --admin-key or DICELAB_ADMIN_KEY"), err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)

"""``dicelab serve``: start the web lab (FastAPI + uvicorn) and print its address."""

from __future__ import annotations

import typer

from dicelab.errors import require


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (1-65535)."),
    db: str = typer.Option(None, "--db", help="SQLAlchemy database URL (default: SQLite in the user data folder)."),
    warm: bool = typer.Option(True, "--warm/--no-warm", help="Solve Pig to 100 at start-up (from the cache)."),
) -> None:
    """Start the web lab: play, coach, human-play study and strategy explorer."""
    require(1 <= port <= 65535, f"port must be from 1 to 65535, got {port}")
    import uvicorn

    from dicelab.web.app import create_app
    from dicelab.web.db import default_db_url

    url = db or default_db_url()
    app = create_app(url, warm=warm)
    shown = app.state.engine.url.render_as_string(hide_password=True)
    typer.echo(f"dicelab web lab: http://{host}:{port}/  (database: {shown}; Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)

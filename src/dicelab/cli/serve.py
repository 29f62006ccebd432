"""``dicelab serve``: start the web lab (FastAPI + uvicorn) and print its address and researcher key.

The address is checked and the listening socket opened here, before uvicorn starts, so that a bad
``--host`` (empty, not an address, odd characters) or a port that cannot be had is one line and
exit code 2. Served beyond loopback, the lab still answers only Host headers it was told about
(``--allow-host``; :func:`dicelab.web.app.host_allow_list`), which keeps DNS rebinding out.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
import socket
from pathlib import Path
from typing import Any

import typer

from dicelab.core import env
from dicelab.core.errors import DicelabError, require

KEY_FORMAT = env.ADMIN_KEY_FORMAT
# a host name: dot-separated labels of letters, digits and inner hyphens (RFC 1123), not all digits
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
WILDCARDS = ("0.0.0.0", "::")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:50] + f"... ({len(text)} characters)")


def check_host(host: str, what: str = "--host") -> str:
    """``host`` if it is an IP address or a host name; else a one-line :class:`DicelabError`."""
    require(host.strip() != "", f"{what} is empty; give an address such as 127.0.0.1 (this machine only), "
                                "a host name, or 0.0.0.0 to listen on every interface")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    ok = (len(host) <= 253 and all(_LABEL.fullmatch(x) for x in labels)
          and not all(x.isdigit() for x in labels))  # 256.1.1.1 is a bad address, not a name
    require(ok, f"{what} {_shown(host)} is neither an IP address nor a host name (letters, digits, hyphens and "
                "dots); give e.g. 127.0.0.1, ::1 or lab.example.org")
    return host.lower()


def open_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (a name is looked up first); one line when it cannot be."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise DicelabError(f"cannot find the address of --host {_shown(host)}: {getattr(exc, 'strerror', exc)}") \
            from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and host == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # IPv4 too, as 0.0.0.0 would
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise DicelabError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


# How long an idle keep-alive connection stays open. It must outlast the idle timeout of the clients
# and proxies in front, so that the client, not the server, closes an idle connection: with both at
# 5 s (uvicorn's and httpx's defaults) a request sent on a connection just as the server drops it
# fails with a closed connection (seen in CI: one game creation of 200 failed so; reproduced with
# requests sent 4.99-5.00 s after the last). 75 s is nginx's own default for clients and outlasts its
# upstream default (60 s), httpx (5 s) and requests; browsers retry such a request themselves.
KEEP_ALIVE_S = 75


def run_server(app: Any, sock: socket.socket, port: int) -> None:
    """uvicorn on the socket already bound (the lab's own checks are done)."""
    import uvicorn

    config = uvicorn.Config(app, port=port, log_level="warning", timeout_graceful_shutdown=3,
                            timeout_keep_alive=KEEP_ALIVE_S)
    uvicorn.Server(config).run(sockets=[sock])


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help=(
        "Address to listen on: 127.0.0.1 (this machine only, the default), an address of this machine, "
        "or 0.0.0.0 / :: for every interface (then --allow-host is needed).")),
    port: int = typer.Option(8000, "--port", help="Port to listen on (1-65535)."),
    allow_host: list[str] = typer.Option(None, "--allow-host", help=(
        "A name or address clients use to reach the lab (the Host header), besides this machine's loopback "
        "names and the --host address; repeat it for more. '*' accepts any Host (behind a proxy that checks it).")),
    db: str = typer.Option(None, "--db", help="SQLAlchemy database URL (default: SQLite in the user data folder)."),
    warm: bool = typer.Option(True, "--warm/--no-warm", help="Build every game's opponents, levels and trained policies in the background at start-up "
                                                            "(from the cache when there); --no-warm: build when a game needs them."),
    admin_key: str = typer.Option(
        None, "--admin-key",
        help="Researcher key for the study's exports and analysis (header X-Admin-Key; or the environment "
             "variable DICELAB_ADMIN_KEY); default: a new random key, printed at start-up."),
    puzzles: Path = typer.Option(None, "--puzzles", help="A puzzle set to serve (dicelab puzzles build --out); "
                                                         "default: the one shipped with dicelab."),
) -> None:
    """Start the web lab: play, coach, human-play study and strategy explorer."""
    require(1 <= port <= 65535, f"port must be from 1 to 65535, got {port}")
    if admin_key is not None:
        require(KEY_FORMAT.fullmatch(admin_key) is not None,
                "the researcher key (--admin-key or DICELAB_ADMIN_KEY) must be 8 to 200 visible ASCII characters "
                "without spaces")
    admin_key = admin_key or env.get("DICELAB_ADMIN_KEY")
    host = check_host(host)
    allowed = [a if a == "*" else check_host(a, "--allow-host") for a in (allow_host or [])]
    if puzzles is not None:
        from dicelab.core.puzzles import load

        load(puzzles)  # a missing or damaged set stops here with one line
    from dicelab.web.app import create_app, host_allow_list
    from dicelab.web.db import default_db_url, hide_password

    host_allow_list(host, allowed)  # a wildcard bind without --allow-host: one line before any work
    sock = open_socket(host, port)
    try:
        url = db or default_db_url()
        key = admin_key or secrets.token_urlsafe(24)
        app = create_app(url, warm=warm, admin_key=key, bind_host=host, allow_hosts=allowed, puzzle_set=puzzles)
    except BaseException:
        sock.close()
        raise
    shown = hide_password(app.state.engine.url)
    shown_host = f"[{host}]" if ":" in host else host
    typer.echo(f"dicelab web lab: http://{shown_host}:{port}/  (database: {shown}; Ctrl-C stops)", err=True)
    typer.echo("researcher key (X-Admin-Key, for /analysis and /export): "
               + (key if admin_key is None else "as given by --admin-key or DICELAB_ADMIN_KEY"), err=True)
    run_server(app, sock, port)

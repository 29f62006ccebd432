"""The web lab's front door: the answers that need almost no work, given before the rest of the
app does any (issue 23: a flood of health checks or static files must not slow the games).

:class:`FrontDoor` is ASGI middleware (inside the Host check and the security headers, outside
admission control and the routes):

* ``GET``/``HEAD /static/NAME``: the lab's own files, read once into memory
  (:class:`StaticFiles`) with a gzip copy and a strong ``ETag``; ``If-None-Match`` answers 304.
  A file changed on disk is read again (one ``stat`` per request); a name not in the folder goes
  on to the app (404 there).
* ``GET``/``HEAD /healthz``: the app's own answer (a real read of the database), kept for
  :data:`HEALTH_TTL_S` seconds while it is ``ok``; a request that met damage or a full disk since
  (the app's ``state.damaged``, ``state.disk_full``) or a change of the SQLite file on disk (its
  size or time, or its write-ahead log's) asks the app again at once.

Each answer costs a few tenths of a millisecond of the event loop, a tenth of the app's way.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HEALTH_TTL_S", "FrontDoor", "StaticFiles"]
HEALTH_TTL_S = 0.25  # an ok health answer is given again for this long (at most 4 database reads a second)
MIN_GZIP = 512  # smaller files are sent as they are


@dataclass(frozen=True)
class File:
    """One static file in memory: its identity on disk, its bytes (and gzip copy) and headers."""

    stamp: tuple[int, int]  # (mtime_ns, size) when read
    body: bytes
    gz: bytes | None
    etag: bytes
    type: bytes


class StaticFiles:
    """The files of ``folder`` (not its subfolders), in memory."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.files: dict[str, File] = {}
        for p in sorted(self.folder.iterdir()):
            if p.is_file() and not p.name.startswith("."):
                self.files[p.name] = self._read(p)

    @staticmethod
    def _read(p: Path) -> File:
        st = p.stat()
        body = p.read_bytes()
        squeezed = gzip.compress(body, 6, mtime=0) if len(body) >= MIN_GZIP else None
        kind = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        return File((st.st_mtime_ns, st.st_size), body,
                    squeezed if squeezed is not None and len(squeezed) < 0.9 * len(body) else None,
                    b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"', kind.encode())

    def get(self, name: str) -> File | None:
        """The file ``name`` as it is on disk now, or None (not one of the folder's files)."""
        f = self.files.get(name)
        if f is None:
            return None
        p = self.folder / name
        try:
            st = p.stat()
            if (st.st_mtime_ns, st.st_size) != f.stamp:  # edited while the lab runs
                f = self.files[name] = self._read(p)
        except OSError:
            return None
        return f


def _header(scope: dict, name: bytes) -> bytes:
    for k, v in scope.get("headers", []):
        if k == name:
            return v
    return b""


class FrontDoor:
    """ASGI middleware: static files and an ok health answer without the app (module docstring)."""

    def __init__(self, app: Any, static: Path, health_ttl: float = HEALTH_TTL_S) -> None:
        self.app, self.static, self.health_ttl = app, StaticFiles(static), health_ttl
        self._health: tuple[float, Any, list[tuple[bytes, bytes]], bytes] | None = None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD"):
            path = scope.get("path", "")
            if path.startswith("/static/"):
                f = self.static.get(path[len("/static/"):])
                if f is not None:
                    await self._send_file(scope, send, f)
                    return
            elif path == "/healthz":
                await self._health_answer(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _send_file(self, scope: dict, send: Any, f: File) -> None:
        headers = [(b"etag", f.etag), (b"cache-control", b"no-cache"), (b"content-type", f.type)]
        if f.gz is not None:
            headers.append((b"vary", b"accept-encoding"))
        if f.etag in _header(scope, b"if-none-match"):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        body = f.body
        if f.gz is not None and b"gzip" in _header(scope, b"accept-encoding"):
            body = f.gz
            headers.append((b"content-encoding", b"gzip"))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    @staticmethod
    def _stamp(state: Any) -> Any:
        """The SQLite file's and its log's (size, time) on disk; None for another database."""
        engine = getattr(state, "engine", None)
        if engine is None or engine.dialect.name != "sqlite" or not engine.url.database:
            return None
        out = []
        for name in (engine.url.database, engine.url.database + "-wal"):
            try:
                st = os.stat(name)
                out.append((st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    async def _health_answer(self, scope: dict, receive: Any, send: Any) -> None:
        state = getattr(scope.get("app"), "state", None)
        stamp = self._stamp(state)
        fresh = self._health is not None and time.monotonic() - self._health[0] < self.health_ttl \
            and self._health[1] == stamp
        if fresh and state is not None and getattr(state, "damaged", None) is None \
                and getattr(state, "disk_full", None) is None:
            assert self._health is not None
            _, _, headers, body = self._health
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
            return
        self._health = None
        seen: dict[str, Any] = {"body": []}

        async def keep(msg: dict) -> None:
            if msg["type"] == "http.response.start":
                seen["status"], seen["headers"] = msg["status"], msg.get("headers", [])
            elif msg["type"] == "http.response.body":
                seen["body"].append(msg.get("body", b""))
            await send(msg)

        t0 = time.monotonic()
        await self.app(scope, receive, keep)
        if seen.get("status") == 200 and scope["method"] == "GET":
            headers = [(k, v) for k, v in seen["headers"] if k != b"server-timing"]
            self._health = (t0, stamp, headers, b"".join(seen["body"]))

"""Fixtures for the web lab tests: an in-process client on a temporary database, and a real
server process (uvicorn over loopback) for the browser, load and durability tests.

Databases: ``db_url`` is a new SQLite file, or with ``db_kind`` "postgresql" a new database on the
session's throwaway PostgreSQL server (``pg_cluster``, :mod:`tests.web.pg`). A test or module
marked ``both_databases`` runs once on each. Without a PostgreSQL server here the PostgreSQL runs
skip, saying why; with ``DICELAB_REQUIRE_POSTGRES=1`` (``make test``) they fail instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from dicelab.web.app import create_app
from dicelab.web.limits import SHED_HEADER

sys.path.insert(0, str(Path(__file__).parent))
import pg  # tests/web/pg.py: the throwaway PostgreSQL server

ADMIN_KEY = "test-researcher-key-0123"
ADMIN = {"X-Admin-Key": ADMIN_KEY}  # the researcher's header for /export, /api/analysis, /analysis


DATABASES = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "both_databases: run the test on SQLite and on PostgreSQL (db_kind)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db_kind" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_databases"):
        metafunc.parametrize("db_kind", DATABASES, scope="function")


def require_postgres() -> None:
    """Skip (fail with DICELAB_REQUIRE_POSTGRES=1) when no PostgreSQL server can run here."""
    why = pg.unavailable()
    if why is None:
        return
    if os.environ.get("DICELAB_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL is required (DICELAB_REQUIRE_POSTGRES=1) but {why}")
    pytest.skip(f"no PostgreSQL here: {why}")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pg.Cluster]:
    """One throwaway PostgreSQL server for the session (per xdist worker)."""
    require_postgres()
    cluster = pg.Cluster()
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        raise
    yield cluster
    cluster.stop()


@pytest.fixture()
def pg_url(pg_cluster: pg.Cluster) -> Iterator[str]:
    """A new empty PostgreSQL database (over the Unix socket, a percent-escaped URL), dropped after."""
    name = pg_cluster.new_database()
    yield pg_cluster.socket_url(name)
    pg_cluster.drop_database(name)


@pytest.fixture()
def db_kind() -> str:
    return "sqlite"


@pytest.fixture()
def db_url(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if db_kind == "postgresql":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'lab.sqlite'}"


def sql(db_url: str, query: str, **params: object) -> list[tuple]:
    """The rows of ``query`` (named parameters ``:name``) on the database at ``db_url``, any kind."""
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as con:
            return [tuple(r) for r in con.execute(text(query), params)]
    finally:
        engine.dispose()


def head_revision() -> str:
    """The newest Alembic revision the lab ships (what a migrated database must say)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from dicelab.web.db import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return str(ScriptDirectory.from_config(cfg).get_current_head())


@pytest.fixture()
def admin() -> dict[str, str]:
    """The researcher's key header."""
    return dict(ADMIN)


SHED_TRIES = 10  # sends in all of a request the admission limit keeps turning away


class PoliteClient(TestClient):
    """The in-process client, sending a request again after ``Retry-After`` when the admission
    limit turned it away before any work (503 with ``X-Dicelab-Shed``), as the lab's pages do.

    Its app runs in this test process: a test's own threads and compiles can hold the interpreter
    for seconds, which the limit rightly reads as an event loop behind (once 2.4 s in a full run).
    The limit's own laws are tested on a bare loop (test_web_admission.py) and under load
    (test_web_bounded.py); a 503 without the mark is returned as is."""

    def request(self, method: str, url: Any, **kw: Any) -> httpx.Response:  # type: ignore[override]
        for _ in range(SHED_TRIES):
            r = super().request(method, url, **kw)
            if r.status_code != 503 or SHED_HEADER not in r.headers:
                return r
            time.sleep(float(r.headers.get("retry-after", "1")))
        return r



@pytest.fixture()
def client(db_url: str) -> Iterator[TestClient]:
    with PoliteClient(create_app(db_url, warm=False, admin_key=ADMIN_KEY)) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``dicelab serve`` in a child process (researcher key :data:`ADMIN_KEY`); ``start()`` waits until
    /healthz answers."""

    def __init__(self, db_url: str, log: Path, admin_key: str | None = ADMIN_KEY) -> None:
        self.db_url, self.log, self.admin_key = db_url, log, admin_key
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        env = {k: v for k, v in os.environ.items() if k != "DICELAB_ADMIN_KEY"}
        env["PYTHONUNBUFFERED"] = "1"
        if self.admin_key is not None:  # None: serve generates a key and prints it
            env["DICELAB_ADMIN_KEY"] = self.admin_key
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dicelab", "serve", "--port", str(self.port), "--db", self.db_url, "--no-warm"],
            stdout=self.log.open("ab"), stderr=subprocess.STDOUT, env=env,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture()
def server_factory(tmp_path: Path) -> Iterator:
    servers: list[Server] = []

    def make(db_url: str | None = None, admin_key: str | None = ADMIN_KEY) -> Server:
        s = Server(db_url or f"sqlite:///{tmp_path / 'server.sqlite'}", tmp_path / f"server{len(servers)}.log",
                   admin_key)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.stop()


# Browser tests drive Debian's Chromium through Playwright (``playwright install`` cannot download
# a browser here); these flags keep it off the network it would otherwise try to reach.
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (each test opens its own pages)."""
    if shutil.which(CHROMIUM) is None:
        pytest.fail("Chromium is missing: `make test` installs it with apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture()
def alone() -> Iterator[None]:
    """One load test at a time on this machine: the load tests (SQLite and PostgreSQL, the
    starvation test), on two test workers, would otherwise measure each other (a lock file the
    workers share)."""
    with (Path(tempfile.gettempdir()) / "dicelab-web-load-test.lock").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)

"""A throwaway PostgreSQL server for the web lab's tests (and ``benchmarks/bench_web.py --db postgresql``).

:class:`Cluster` runs Debian's (or any) PostgreSQL binaries: ``initdb`` in a new temporary folder,
then ``postgres`` listening on a Unix socket in that folder and on a free loopback port, stopped and
removed by :meth:`Cluster.stop`. ``initdb`` and ``postgres`` refuse to run as root, so as root they
run as the ``postgres`` user (made by Debian's package; else ``nobody``) through ``runuser``, with
the folder handed over to that user. Local (socket) connections are trusted; loopback TCP
connections need the password :data:`PASSWORD` (SCRAM), so the tests can try a wrong one.

The binaries are found in ``DICELAB_PG_BIN`` (when set, only there), on ``PATH`` or in
``/usr/lib/postgresql/<version>/bin`` (the newest). :func:`unavailable` says why no server can be started (no binaries, no psycopg), or
None.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

PASSWORD = "pg-test-secret-7"
SUPERUSER = "postgres"
# a test server: no fsync (the tests kill dicelab's server, never PostgreSQL; a lost page cache is
# not what they are about), small, quick to stop. The benchmark starts it with durable=True.
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
COMMON = ("max_connections=200", "shared_buffers=64MB", "log_min_messages=warning", "logging_collector=off")


def bin_dir() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    env = os.environ.get("DICELAB_PG_BIN")
    if env:  # given: that folder or none
        return Path(env) if all((Path(env) / n).is_file() for n in ("initdb", "pg_ctl", "postgres")) else None
    candidates: list[str] = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).parent))

    def version(p: str) -> tuple[int, ...]:
        part = Path(p).parent.name
        return tuple(int(x) for x in part.split(".") if x.isdigit()) or (0,)

    candidates += sorted((str(Path(p).parent) for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
                         key=lambda p: version(p), reverse=True)
    candidates += ["/usr/local/pgsql/bin"]
    for c in candidates:
        if c and all((Path(c) / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return Path(c)
    return None


def unavailable() -> str | None:
    """Why no PostgreSQL server can be started here, or None when one can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'dicelab[postgres]')"
    if bin_dir() is None:
        return ("no PostgreSQL server binaries (initdb, pg_ctl, postgres) in DICELAB_PG_BIN, on PATH or in "
                "/usr/lib/postgresql/*/bin (apt-get install postgresql; make test installs it)")
    if os.geteuid() == 0 and _run_as() is None:
        return "running as root and neither a 'postgres' nor a 'nobody' user exists to run the server as"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser to start the server as another user"
    return None


def _run_as() -> str | None:
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A PostgreSQL server in a temporary folder; :meth:`start`, :meth:`new_database`, :meth:`stop`."""

    def __init__(self, durable: bool = False, settings: tuple[str, ...] = ()) -> None:
        self.bin = bin_dir()
        if self.bin is None:
            raise RuntimeError(unavailable() or "no PostgreSQL binaries")
        self.durable, self.settings = durable, settings
        self.user = _run_as() if os.geteuid() == 0 else None
        # /tmp, not pytest's tmp_path: the server's user must reach the folder (pytest's is 0700 root)
        self.root = Path(tempfile.mkdtemp(prefix="dicelab-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root  # short: a socket path is limited to about 100 characters
        self.log = self.root / "server.log"
        self.port = free_port()
        self.started = False

    def _cmd(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def _run(self, *args: str, timeout: float = 120) -> None:
        r = subprocess.run(self._cmd(*args), capture_output=True, text=True, timeout=timeout, cwd=self.root,
                           check=False)
        if r.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.is_file() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed ({r.returncode}): {r.stderr.strip()[-2000:]}\n{log}")

    def start(self) -> Cluster:
        if self.user:
            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        self.root.chmod(0o700)
        pwfile = self.root / "pwfile"
        pwfile.write_text(PASSWORD + "\n")
        if self.user:
            os.chown(pwfile, pwd.getpwnam(self.user).pw_uid, -1)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--pwfile", str(pwfile),
                  "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
        pwfile.unlink()
        opts = [f"-c {o}" for o in (*COMMON, *(() if self.durable else FAST), *self.settings)]
        opts += [f"-k {self.socket_dir}", "-h 127.0.0.1", f"-p {self.port}"]
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                  "-o", " ".join(opts), "start")
        self.started = True
        # the socket folder is the cluster's own (0700): let the tests' user (root or not) reach it
        self.root.chmod(0o755)
        return self

    def stop(self) -> None:
        if self.started:
            try:
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "-t", "30", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pid_file = self.data / "postmaster.pid"
                if pid_file.is_file():
                    try:
                        os.kill(int(pid_file.read_text().split()[0]), 9)
                    except (OSError, ValueError):
                        pass
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)

    # ---------------------------------------------------------------- URLs and databases
    def socket_url(self, database: str = "postgres") -> str:
        """A URL over the Unix socket, percent-escaped as such a URL must be."""
        return (f"postgresql+psycopg://{SUPERUSER}@/{database}?host={quote(str(self.socket_dir), safe='')}"
                f"&port={self.port}")

    def tcp_url(self, database: str = "postgres", password: str = PASSWORD, port: int | None = None) -> str:
        """A URL over loopback TCP with the password."""
        return (f"postgresql+psycopg://{SUPERUSER}:{quote(password, safe='')}@127.0.0.1:{port or self.port}/"
                f"{database}")

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.socket_dir), port=self.port, user=SUPERUSER, dbname="postgres",
                             autocommit=True) as con:
            con.execute(sql)

    def new_database(self, prefix: str = "t") -> str:
        """A new empty database; its name."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.admin(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        for _ in range(3):
            try:
                self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                return
            except Exception:  # noqa: BLE001 - a connection still closing: try again
                time.sleep(0.2)

"""A full disk under the lab (issue 23, item 2): creates and moves answered 500 ("Internal error",
a traceback in the log) while ``/healthz`` said ok, and at start-up a full disk was reported as a
damaged database ("restore it from a backup"), the wrong advice. Now: 503 with ``Retry-After`` and
a line that says the disk is full, ``/healthz`` 503 ``disk-full`` until there is room, then the lab
goes on with nothing lost; at start-up one line that says the disk is full, exit 2.

The disk is a small tmpfs mounted for the test (root only): skipped, saying why, where it cannot be
mounted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from dicelab.web.app import create_app
from tests.web.conftest import PoliteClient, free_port

SIZE_MB = 4


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of :data:`SIZE_MB` MB."""
    where = tmp_path / "small"
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE_MB}m", "tmpfs", str(where)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({(r.stderr or r.stdout).strip()[:120] or 'mount failed'})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; the filler file (delete it to make room)."""
    filler = disk / f"filler-{uuid.uuid4().hex}"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (65536, 4096, 1):  # down to the last byte
            while True:
                try:
                    if os.write(fd, b"\0" * chunk) == 0:
                        break
                except OSError:
                    break
    finally:
        os.close(fd)
    return filler


def new_game(c: TestClient):
    return c.post("/api/games", json={"goal": 30, "opponent": "hold:10", "human_first": True})


def test_a_full_disk_under_a_running_lab_is_503_and_healthz_says_why(small_disk: Path) -> None:
    db = small_disk / "lab.sqlite"
    with PoliteClient(create_app(f"sqlite:///{db}", warm=False), raise_server_exceptions=False) as c:
        made = [new_game(c).json() for _ in range(3)]
        assert c.get("/healthz").json()["status"] == "ok"
        filler = fill(small_disk)
        codes: list[int] = []
        full = None
        for n in range(300):  # creates and moves until the disk refuses them
            if n % 2:
                r = new_game(c)
            else:
                g = made[n // 2 % len(made)]
                st = c.get(f"/api/games/{g['id']}", headers={"X-Game-Token": g["token"]})
                if st.status_code != 200:
                    r = st
                else:
                    r = c.post(f"/api/games/{g['id']}/moves", headers={"X-Game-Token": g["token"]},
                               json={"action": "roll", "expected_move": st.json()["version"]})
            codes.append(r.status_code)
            assert r.status_code in (200, 201, 409, 503), (r.status_code, r.text)
            if r.status_code == 503:
                full = r
                break
        assert full is not None, f"the disk never filled: {codes}"
        detail = full.json()["detail"]
        assert "full" in detail and "\n" not in detail and "restore" not in detail, detail
        assert int(full.headers["retry-after"]) > 0
        h = c.get("/healthz")
        assert h.status_code == 503 and h.json()["status"] == "disk-full" and "full" in h.json()["detail"], h.text
        assert int(h.headers["retry-after"]) > 0
        filler.unlink()  # room again: the lab goes on by itself
        assert c.get("/healthz").json()["status"] == "ok"
        r = new_game(c)
        assert r.status_code == 201, r.text
        for g in made:  # nothing acknowledged was lost
            assert c.get(f"/api/games/{g['id']}", headers={"X-Game-Token": g["token"]}).status_code == 200


def test_a_full_disk_at_start_up_says_so(small_disk: Path) -> None:
    # no database yet, no room to make one: one line that says the disk is full, not "damaged ...
    # restore it from a backup"
    db = small_disk / "lab.sqlite"
    fill(small_disk)
    res = subprocess.run([sys.executable, "-m", "dicelab", "serve", "--db", f"sqlite:///{db}", "--port",
                          str(free_port()), "--no-warm"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DICELAB_ADMIN_KEY": "test-researcher-key-0123"})
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr[-2000:]
    assert "disk" in lines[0] and "full" in lines[0], lines
    assert "damaged" not in lines[0] and "restore" not in lines[0] and "backup" not in lines[0], lines


def test_a_sound_database_on_a_full_disk_starts_and_says_the_disk_is_full(small_disk: Path, tmp_path: Path) -> None:
    db = small_disk / "lab.sqlite"
    with PoliteClient(create_app(f"sqlite:///{db}", warm=False)) as c:
        g = new_game(c).json()
    filler = fill(small_disk)
    log = tmp_path / "serve.log"
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "dicelab", "serve", "--db", f"sqlite:///{db}", "--port", str(port),
                             "--no-warm"], stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "DICELAB_ADMIN_KEY": "test-researcher-key-0123"})
    try:
        url = f"http://127.0.0.1:{port}"
        h = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                h = httpx.get(url + "/healthz", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert h is not None, log.read_text()[-2000:]
        assert h.status_code == 503 and h.json()["status"] == "disk-full", h.text
        assert "damaged" not in log.read_text() and "restore" not in log.read_text()
        r = httpx.get(f"{url}/api/games/{g['id']}", headers={"X-Game-Token": g["token"]}, timeout=30)
        assert r.status_code == 200, r.text  # reading needs no room
        filler.unlink()
        assert httpx.get(url + "/healthz", timeout=10).json()["status"] == "ok"
        assert httpx.post(url + "/api/games", json={"goal": 30, "opponent": "hold:10"}, timeout=30).status_code == 201
    finally:
        proc.terminate()
        proc.wait(20)

"""The web lab on PostgreSQL (issue 16), against the session's throwaway server (``tests/web/pg.py``).

* The same rows give the same answers: games played on SQLite are copied row by row into a
  PostgreSQL database; every game read, every export (CSV bytes, Parquet rows) and the analysis must
  be identical, and the games must then go on identically on both (same dice, same bot replies).
* A bad or unreachable URL stops ``dicelab serve`` with one line and exit 2, naming the host and
  what failed, never the password.
* A URL with percent-escapes (a Unix socket's folder, a password with ``%``) works.
* A PostgreSQL server that stops answering gives 503 with Retry-After, and the lab recovers when it
  answers again.

The API, race, SIGKILL, load, hidden-information and migration tests run on PostgreSQL too (marked
``both_databases``).
"""

from __future__ import annotations

import io
import subprocess
import sys
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from dicelab.web.app import create_app
from dicelab.web.db import Base, open_database
from tests.web.conftest import ADMIN, ADMIN_KEY, PoliteClient, pg, require_postgres, sql


@pytest.fixture(autouse=True)
def _postgres_here() -> None:
    require_postgres()  # skip without psycopg and a server (fail under DICELAB_REQUIRE_POSTGRES=1)

GAMES = [  # (create body, moves to make before the copy)
    ({"game": "pig", "goal": 20, "opponent": "optimal", "coach": True,
      "questionnaire": {"risk_preference": "loving", "q2": "b", "q3": "a", "consent": True}}, 400),
    ({"game": "pig", "goal": 30, "opponent": "hold:10", "coach": True,
      "questionnaire": {"risk_preference": "averse", "q2": "a", "q3": "a", "consent": True}}, 6),
    ({"game": "simpig", "rules": {"goal": 30, "players": 3}}, 3),
    ({"game": "liars", "rules": {"players": 3, "dice": 2}, "coach": True}, 2),
    ({"game": "supersix", "rules": {"sticks": 6}}, 1),
    ({"game": "hog", "rules": {"goal": 40, "max_dice": 4}, "opponent": "optimal", "coach": True}, 1),
]


def pick(st: dict, n: int) -> object:
    """A legal action, chosen by rote (the n-th, cycling; Pig: roll below 8, then hold)."""
    legal = st["legal_actions"]
    if "turn_total" in st and legal == ["roll", "hold"]:
        return "roll" if st["turn_total"] < 8 else "hold"
    return legal[n % len(legal)]


def step(c: TestClient, g: dict, n: int) -> dict:
    r = c.post(f"/api/games/{g['id']}/moves", json={"action": pick(g["st"], n), "expected_move": g["st"]["version"]},
               headers=g["h"])
    assert r.status_code == 200, r.text
    out = r.json()
    g["st"] = out["state"]
    return {k: v for k, v in out.items() if k != "bot_ms"}


def copy_rows(src_url: str, dst_url: str) -> None:
    """Every row of games, moves and turns from one lab database to another (at the same revision)."""
    src, dst = sa.create_engine(src_url), sa.create_engine(dst_url)
    with src.connect() as s, dst.begin() as d:
        for table in Base.metadata.sorted_tables:
            rows = [dict(r._mapping) for r in s.execute(sa.select(table))]
            if rows:
                d.execute(sa.insert(table), rows)
        for name in ("moves", "turns"):  # explicit ids: move the serials on past them
            d.exec_driver_sql(f"select setval(pg_get_serial_sequence('{name}', 'id'), "
                              f"(select coalesce(max(id), 1) from {name}))")
    src.dispose()
    dst.dispose()


def study_data(c: TestClient) -> dict:
    out = {"analysis": c.get("/api/analysis", headers=ADMIN).json()}
    for t in ("games", "moves", "turns"):
        csv = c.get(f"/export/{t}.csv", headers=ADMIN)
        assert csv.status_code == 200
        out[f"{t}.csv"] = csv.content
        out[f"{t}.parquet"] = pq.read_table(io.BytesIO(c.get(f"/export/{t}.parquet", headers=ADMIN).content)).to_pylist()
    return out


def test_the_same_rows_give_the_same_answers_on_both_databases(tmp_path, pg_url):
    lite_url = f"sqlite:///{tmp_path / 'lab.sqlite'}"
    games = []
    with PoliteClient(create_app(lite_url, warm=False, admin_key=ADMIN_KEY)) as lite:
        for body, moves in GAMES:
            r = lite.post("/api/games", json={"human_first": True, **body})
            assert r.status_code == 201, r.text
            j = r.json()
            g = {"id": j["id"], "h": {"X-Game-Token": j["token"]}, "st": j["state"]}
            for n in range(moves):
                if g["st"]["status"] != "playing" or not g["st"]["legal_actions"]:
                    break
                step(lite, g, n)
            games.append(g)
        assert games[0]["st"]["status"] == "finished"  # a finished game: its seed and summary are shown
        assert sum(g["st"]["status"] == "playing" for g in games) >= 3
        before = {g["id"]: lite.get(f"/api/games/{g['id']}", headers=g["h"]).json() for g in games}
        lite_data = study_data(lite)
    assert "%2F" in pg_url  # the Unix socket's folder, percent-escaped
    open_database(pg_url).dispose()  # the schema at head
    copy_rows(lite_url, pg_url)
    assert sql(pg_url, "select count(*) from moves") == sql(lite_url, "select count(*) from moves")

    with PoliteClient(create_app(pg_url, warm=False, admin_key=ADMIN_KEY)) as post, \
            PoliteClient(create_app(lite_url, warm=False, admin_key=ADMIN_KEY)) as lite:
        for g in games:
            assert post.get(f"/api/games/{g['id']}", headers=g["h"]).json() == before[g["id"]]
        post_data = study_data(post)
        for key in lite_data:
            assert post_data[key] == lite_data[key], key
        assert lite_data["analysis"]["games"] == 2 and lite_data["analysis"]["study_games"] == 2
        # the live games go on identically: the dice and the bots' choices come from the stored state
        moved, live = 0, sum(g["st"]["status"] == "playing" for g in games)
        for g in games:
            twin = dict(g)
            for n in range(4):
                if g["st"]["status"] != "playing" or not g["st"]["legal_actions"]:
                    break
                assert step(post, g, n) == step(lite, twin, n)
                twin["st"] = g["st"]
                moved += 1
        assert moved >= live >= 3  # every live game made at least one move on both
        for g in games:
            assert post.get(f"/api/games/{g['id']}", headers=g["h"]).json() == \
                lite.get(f"/api/games/{g['id']}", headers=g["h"]).json()


def serve_error(url: str) -> str:
    """``dicelab serve --db url``'s stderr; it must stop at once with exit 2 and one line."""
    r = subprocess.run([sys.executable, "-m", "dicelab", "serve", "--db", url, "--no-warm", "--port",
                        str(pg.free_port())], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2, r.stderr
    err = r.stderr.strip()
    assert err.startswith("error: cannot open database ") and "\n" not in err and "Traceback" not in err
    return err


def test_a_bad_or_unreachable_url_stops_serve_with_one_line(pg_cluster):
    closed = pg.free_port()
    err = serve_error(pg_cluster.tcp_url(port=closed))
    assert f'"127.0.0.1", port {closed}' in err and "Connection refused" in err
    err = serve_error(pg_cluster.tcp_url("no_such_db"))
    assert '"127.0.0.1"' in err and 'database "no_such_db" does not exist' in err and pg.PASSWORD not in err
    err = serve_error(pg_cluster.tcp_url(password="wrong-secret-42"))
    assert '"127.0.0.1"' in err and "password authentication failed" in err
    assert "wrong-secret-42" not in err and pg.PASSWORD not in err and "***" in err
    err = serve_error(pg_cluster.socket_url("no_such_db"))
    assert pg_cluster.socket_dir.name in err and "does not exist" in err


@pytest.mark.parametrize("url, words", [
    ("postgresql+psycopg://lab:s3cret-pw@db.example:notaport/dicelab", "not a database URL"),
    ("postgresql+psycopg://lab:s3cret-pw@no-such-host.invalid/dicelab", "no-such-host.invalid"),
    ("postgresql+nodriver://lab:s3cret-pw@localhost/dicelab", "postgresql"),
    ("postgresql+psycopg://lab@localhost/dicelab?password=s3cret-pw&sslmode=bogus", "sslmode"),
])
def test_a_bad_url_form_stops_serve_without_the_password(url, words):
    err = serve_error(url)
    assert words in err and "s3cret-pw" not in err


def test_a_password_with_percent_signs(pg_cluster, pg_url):
    name = make_url(pg_url).database
    pg_cluster.admin("CREATE ROLE pct_user LOGIN PASSWORD 'a%b%%c%41' SUPERUSER")
    try:
        url = pg_cluster.tcp_url(name).replace(f"postgres:{quote(pg.PASSWORD, safe='')}@",
                                               f"pct_user:{quote('a%b%%c%41', safe='')}@")
        assert "%25" in url
        with PoliteClient(create_app(url, warm=False, admin_key=ADMIN_KEY)) as c:
            assert c.get("/healthz").json()["status"] == "ok"
            assert c.post("/api/games", json={"goal": 20, "opponent": "hold:10"}).status_code == 201
    finally:
        pg_cluster.drop_database(name)  # with the tables pct_user owns
        pg_cluster.admin("DROP ROLE IF EXISTS pct_user")


def test_a_server_that_stops_answering_gives_503_then_recovers(pg_cluster, pg_url):
    name = make_url(pg_url).database
    url = pg_cluster.tcp_url(name)  # with the password: it must not show
    with PoliteClient(create_app(url, warm=False, admin_key=ADMIN_KEY)) as c:
        r = c.post("/api/games", json={"goal": 20, "opponent": "hold:10", "human_first": True})
        gid, h = r.json()["id"], {"X-Game-Token": r.json()["token"]}
        pg_cluster.admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        pg_cluster.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        try:
            for r in (c.get(f"/api/games/{gid}", headers=h), c.get("/healthz"),
                      c.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0}, headers=h)):
                assert r.status_code == 503, r.text
                assert "unavailable" in r.json()["detail"] and pg.PASSWORD not in r.text
                assert r.headers["retry-after"]
        finally:
            pg_cluster.admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert c.get("/healthz").json()["status"] == "ok"  # a new connection, no restart
        r = c.post(f"/api/games/{gid}/moves", json={"action": "roll", "expected_move": 0}, headers=h)
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("url, local", [
    ("sqlite:///lab.sqlite", True),
    ("postgresql+psycopg://lab@/dicelab?host=%2Fvar%2Frun%2Fpostgresql&port=5432", True),
    ("postgresql+psycopg://lab:pw@127.0.0.1:5432/dicelab", True),
    ("postgresql+psycopg://lab:pw@[::1]:5432/dicelab", True),
    ("postgresql+psycopg://lab:pw@db.example:5432/dicelab", False),
    ("postgresql+psycopg://lab@localhost/dicelab?host=/tmp,db.example", False),
])
def test_game_work_runs_in_the_event_loop_only_on_a_local_database(url, local):
    from dicelab.web.db import runs_locally

    assert runs_locally(make_url(url)) is local


def test_twenty_moves_racing_in_threads_one_commits(pg_url):
    """The compare-and-set itself under real concurrency: 20 threads read the game at version 0,
    wait for each other, and all commit a move; PostgreSQL's row lock lets exactly one through."""
    import threading

    import dicelab.web.service as service
    from dicelab.web.gamecore import Conflict

    app = create_app(pg_url, warm=False, admin_key=ADMIN_KEY)
    with PoliteClient(app) as c:
        r = c.post("/api/games", json={"goal": 20, "opponent": "hold:10", "human_first": True})
        gid, token = r.json()["id"], r.json()["token"]
        start = threading.Barrier(20)
        outcomes: list[str] = []

        def racer() -> None:
            with app.state.sessions() as db:
                g = service.load(db, gid, token)
                start.wait()
                try:
                    service.move(db, g, "roll", 0)
                    outcomes.append("won")
                except Conflict:
                    outcomes.append("409")

        threads = [threading.Thread(target=racer) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(outcomes) == ["409"] * 19 + ["won"]
        version = c.get(f"/api/games/{gid}", headers={"X-Game-Token": token}).json()["version"]
        assert version >= 1 and sql(pg_url, "select count(*) from moves where game_id = :g", g=gid) == [(version,)]

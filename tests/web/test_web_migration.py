"""Migration 0003 (game state as JSON per game) on a database written by the web lab before it.

``data/weblab_0002.sqlite`` was written by the lab at revision 0002 (the commit before this
migration, through its own HTTP API): a finished and a live game of Pig, simultaneous Pig, Super
Six and Liar's Dice. ``data/weblab_0002.json`` holds each game's id, token and the state that
version answered. The migrated lab must keep every row, show every game as it was, carry the live
Liar's Dice game on (its hands were dealt from the seed by the same engine), close the live games
whose dice it cannot replay, and work for new games. On PostgreSQL the same rows are loaded into a
database migrated to 0002 by the same migrations, and the lab must migrate it the same way.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from dicelab.web import create_app
from dicelab.web.db import MIGRATIONS_DIR
from tests.web.conftest import PoliteClient, head_revision, sql

DATA = Path(__file__).parent / "data"
KEY = {"X-Admin-Key": "migration-test-key"}


def load_0002(url: str, source: Path) -> None:
    """Migrate the database at ``url`` to 0002 and copy every row of the 0002 file ``source`` in."""
    engine = sa.create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    src = sa.create_engine(f"sqlite:///{source}")
    old_meta, new_meta = sa.MetaData(), sa.MetaData()
    old_meta.reflect(src)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        # SQLite kept the old lab's over-long results ("bidder lost" in VARCHAR(8)); PostgreSQL
        # refuses them, so the lab at 0002 could not record a Liar's Dice call there: widen the
        # column first, as 0003 does, to load the very same rows
        conn.exec_driver_sql("ALTER TABLE moves ALTER COLUMN result TYPE VARCHAR(16)")
    new_meta.reflect(engine)
    with src.connect() as s, engine.begin() as d:
        for name in ("games", "moves", "turns"):
            rows = [dict(r._mapping) for r in s.execute(sa.select(old_meta.tables[name]))]
            if rows:
                d.execute(sa.insert(new_meta.tables[name]), rows)
            if name != "games":  # explicit ids: move the serial on past them
                d.exec_driver_sql(f"select setval(pg_get_serial_sequence('{name}', 'id'), "
                                  f"(select coalesce(max(id), 1) from {name}))")
    src.dispose()
    engine.dispose()


@pytest.fixture()
def old(tmp_path: Path, db_url: str) -> tuple[str, dict]:
    """The 0002 database (a copy of the file, or its rows in PostgreSQL at 0002): (url, games)."""
    if db_url.startswith("sqlite"):
        shutil.copy(DATA / "weblab_0002.sqlite", db_url.split("///", 1)[1])
    else:
        load_0002(db_url, DATA / "weblab_0002.sqlite")
    return db_url, json.loads((DATA / "weblab_0002.json").read_text())


def counts(url: str) -> dict[str, int]:
    return {t: sql(url, f"select count(*) from {t}")[0][0] for t in ("games", "moves", "turns")}


def test_the_fixture_was_written_before_0003(old):
    url, games = old
    con = sqlite3.connect(url.split("///", 1)[1])
    assert con.execute("select version_num from alembic_version").fetchone()[0] == "0002"
    cols = {r[1] for r in con.execute("pragma table_info(games)")}
    assert "state_json" not in cols and {"goal", "variant", "scores_json"} <= cols
    assert {g for g, in con.execute("select distinct game from games")} == {"pig", "simpig", "supersix", "liars"}
    assert len(games) == 8


@pytest.mark.both_databases
def test_migration_carries_every_game_over(old):
    db, games = old
    before = counts(db)
    assert before["games"] == 8 and before["moves"] > 0
    app = create_app(db, warm=False, admin_key=KEY["X-Admin-Key"])
    with PoliteClient(app) as c:
        after = counts(db)
        assert after == before  # no row lost
        assert sql(db, "select version_num from alembic_version") == [(head_revision(),)]
        assert sql(db, "select count(*) from games where state_json is null or rules_json is null") == [(0,)]
        assert sql(db, "select count(*) from moves where action_json is null") == [(0,)]
        rules = dict(sql(db, "select id, rules_json from games"))
        seeds = dict(sql(db, "select id, seed from games"))
        assert json.loads(rules[games["pig_finished"]["id"]]) == {"variant": "standard", "goal": 20, "sides": 6}
        assert json.loads(rules[games["supersix_live"]["id"]]) == {"sticks": 4, "players": 2}
        assert json.loads(rules[games["liars_live"]["id"]]) == {"players": 3, "dice": 3, "faces": 6, "wild": "ones"}
        assert json.loads(rules[games["simpig_live"]["id"]]) == {"goal": 60, "players": 3}

        def read(name):
            r = c.get(f"/api/games/{games[name]['id']}", headers={"X-Game-Token": games[name]["token"]})
            assert r.status_code == 200, r.text
            return r.json()

        for name, g in games.items():
            st, was = read(name), g["state"]
            assert st["version"] == was["version"] and st["game"] == was["game"]
            if was["status"] == "finished":
                assert st["status"] == "finished" and st["seed"] == was["seed"] == seeds[g["id"]]
                if "winner" in was:
                    assert st["winner"] == was["winner"]
                else:  # simultaneous Pig answered each seat's share of the win
                    assert st["returns"] == was["result"]
        # the live games whose dice cannot be replayed: closed, shown as they were, no more moves
        for name, keys in (("pig_live", ("scores", "turn_total")), ("simpig_live", ("scores",)),
                           ("supersix_live", ("pits", "counts"))):
            st, was = read(name), games[name]["state"]
            assert st["status"] == "closed" and "seed" not in st
            assert {k: st[k] for k in keys} == {k: was[k] for k in keys}
            r = c.post(f"/api/games/{games[name]['id']}/moves", json={"action": "hold", "expected_move": st["version"]},
                       headers={"X-Game-Token": games[name]["token"]})
            assert r.status_code == 409 and "older version" in r.json()["detail"]
        # the live Liar's Dice game goes on: the same hand, bids and counts as before, then a move
        st, was = read("liars_live"), games["liars_live"]["state"]
        assert st["status"] == "playing" and "seed" not in st
        assert st["hand"] == was["hand"] and st["dice_counts"] == was["dice_counts"]
        assert st["bid"] == was["current_bid"] and st["actions"] == was["this_round"]
        r = c.post(f"/api/games/{games['liars_live']['id']}/moves", json={"action": "call", "expected_move": st["version"]},
                   headers={"X-Game-Token": games["liars_live"]["token"]})
        assert r.status_code == 200, r.text
        call = r.json()["events"][0]["events"][0]
        assert call["action"] == "call" and call["hands"][0] == was["hand"]  # dealt as before the migration
        # the study's data and new games
        for table in ("games", "moves", "turns"):
            for fmt in ("csv", "parquet"):
                assert c.get(f"/export/{table}.{fmt}", headers=KEY).status_code == 200
        a = c.get("/api/analysis", headers=KEY).json()
        assert a["study_games"] == 1 and a["games"] == 2  # the two Pig games; one answered the questionnaire
        r = c.post("/api/games", json={"game": "pig", "goal": 20, "opponent": "hold:10"})
        assert r.status_code == 201
        assert c.get("/healthz").json()["status"] == "ok"

"""The human-play study (seed 002, section 2.4): export and analysis of the recorded games.

Seed 002's authors gave 30 players a paper *tracker form*: three questions (stated risk
preference; a guaranteed £10 or a 50/50 gamble for £20; a guaranteed £1 million or a 50/50 gamble
for £2 million), then, per turn, the number of rolls and the bank score. They plotted each
player's total score at each turn by stated preference (their figures 7-9), the average score at
each turn with a trend line (figures 10-12; slopes 4.76 averse, 4.75 neutral, 4.85 seeking) and
games where a player behind changed behaviour (figures 13-14).

The web lab records the same things exactly, and more: every decision with the optimal action and
the win probability it gave away (from the exact solution), and the time taken. This module turns
the ``games``, ``moves`` and ``turns`` tables into

* exports: CSV and Parquet (pyarrow), one file per table, showing only what is public (a live
  game's seed and a live Liar's Dice round's hands are blanked by the games' own rules); text cells a
  spreadsheet would run as a formula are prefixed with ``'`` in CSV;
* :func:`analysis`: the numbers behind the plots: per-player score trajectories by stated risk
  preference, the average score at each turn with its least-squares slope, behaviour by score
  difference (behind / level / ahead: rolls per turn, points banked, share of turns lost to a 1),
  decision quality by stated preference, and stated preference against the two gamble answers;
* :func:`plot`: the figures, as PNG.
"""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.errors import DicelabError, require
from dicelab.web.db import Game, Move, Turn
from dicelab.web.gamecore import public_seed

TABLES = ("games", "moves", "turns")
FORMATS = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}
PREFS = ("averse", "neutral", "loving")
PREF_LABEL = {"averse": "risk averse", "neutral": "risk neutral", "loving": "risk loving (seeking)",
              "not asked": "no questionnaire"}
DIFF_BINS = (("far behind (<= -20)", -10**9, -20), ("behind (-19..-1)", -19, -1), ("level (0)", 0, 0),
             ("ahead (1..19)", 1, 19), ("far ahead (>= 20)", 20, 10**9))
PLOTS = ("trajectories", "average", "behind-ahead", "quality")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # OWASP: CSV injection
STUDY_GAME = "pig"  # seed 002's study is of Pig: the analysis reads its games only
# a moves row's coach columns: computed from what the human's seat sees, which may be hidden from
# others (a Liar's Dice hand), so the researcher sees them once the game is over
COACH_COLUMNS = ("i", "j", "k", "optimal_action", "p_roll", "p_hold", "p_lost")

_GAME_COLS = ["id", "game", "rules_json", "opponent", "human_seat", "coach", "status", "score0", "score1",
              "winner", "version", "participant", "risk_preference", "q2", "q3", "created_at", "finished_at",
              "seed", "players", "scores_json", "result_json", "variant", "goal", "sides"]
_MOVE_COLS = ["game_id", "seq", "turn_no", "player", "actor", "action", "action_json", "events_json", "i", "j",
              "k", "faces", "result", "optimal_action", "p_roll", "p_hold", "p_lost", "think_ms", "created_at"]
_TURN_COLS = ["game_id", "turn_no", "player", "actor", "n_rolls", "banked", "score_before", "score_after",
              "opponent_score", "ended"]


# Rows are put in order here, in Python (ids by code point), not by the database: a PostgreSQL
# database's collation may sort ids otherwise than SQLite does, and every export and analysis must
# be the same on both.
def _rows(db: Session, table: str) -> tuple[list[str], list[dict[str, Any]]]:
    if table == "games":
        out = []
        for g in sorted(db.scalars(select(Game)), key=lambda g: (g.created_at, g.id)):
            out.append({**{c: getattr(g, c) for c in _GAME_COLS}, "seed": public_seed(g)})
        return _GAME_COLS, out
    if table == "moves":
        return _MOVE_COLS, _public_moves(db)
    turns = sorted(db.scalars(select(Turn)), key=lambda t: (t.game_id, t.turn_no, t.player))
    return _TURN_COLS, [{c: getattr(t, c) for c in _TURN_COLS} for t in turns]


def _public_moves(db: Session) -> list[dict[str, Any]]:
    """Every ``moves`` row as the researcher may see it: the action and its public events always,
    the :data:`COACH_COLUMNS` once the game is no longer being played."""
    live = {gid for gid, status in db.execute(select(Game.id, Game.status)) if status == "playing"}
    out: list[dict[str, Any]] = []
    for m in sorted(db.scalars(select(Move)), key=lambda m: (m.game_id, m.seq)):
        row = {c: getattr(m, c) for c in _MOVE_COLS}
        out.append({**row, **dict.fromkeys(COACH_COLUMNS)} if m.game_id in live else row)
    return out


_TYPES = {"seed": pa.int64(), "winner": pa.int64(), "p_roll": pa.float64(), "p_hold": pa.float64(),
          "p_lost": pa.float64(), "think_ms": pa.int64(), "finished_at": pa.timestamp("us"),
          "created_at": pa.timestamp("us"), "faces": pa.string(), "optimal_action": pa.string(),
          "i": pa.int64(), "j": pa.int64(), "k": pa.int64(), "action_json": pa.string(), "events_json": pa.string(),
          "rules_json": pa.string(), "variant": pa.string(), "goal": pa.int64(), "sides": pa.int64(),
          "score0": pa.int64(), "score1": pa.int64(),
          "participant": pa.string(), "risk_preference": pa.string(), "q2": pa.string(), "q3": pa.string(),
          "scores_json": pa.string(), "result_json": pa.string()}


def table(db: Session, name: str) -> pa.Table:
    """One study table as an Arrow table (columns typed even when the table is empty)."""
    require(name in TABLES, f"unknown table {name!r}; choose one of {', '.join(TABLES)}")
    cols, rows = _rows(db, name)
    arrays = {}
    for c in cols:
        values = [r[c] for r in rows]
        arrays[c] = pa.array(values, type=_TYPES.get(c)) if (c in _TYPES or not values) else pa.array(values)
        if not values and c not in _TYPES:
            arrays[c] = pa.array([], type=pa.int64() if c not in ("id", "game_id") else pa.string())
    return pa.table(arrays)


def export(db: Session, name: str, fmt: str) -> tuple[bytes, str, str]:
    """``(bytes, media type, file name)`` of table ``name`` as ``csv`` or ``parquet``."""
    require(fmt in FORMATS, f"unknown format {fmt!r}; choose csv or parquet")
    t = table(db, name)
    buf = io.BytesIO()
    if fmt == "csv":
        pacsv.write_csv(_defuse_formulas(t), buf)
    else:
        pq.write_table(t, buf)
    return buf.getvalue(), FORMATS[fmt], f"dicelab-{name}.{fmt}"


def _defuse(value: str | None) -> str | None:
    return "'" + value if value is not None and value.startswith(FORMULA_START) else value


def _defuse_formulas(t: pa.Table) -> pa.Table:
    """``t`` with every text cell that starts like a formula (:data:`FORMULA_START`) prefixed with
    ``'``, so a spreadsheet shows it as text; numbers stay numbers."""
    for n, field in enumerate(t.schema):
        if pa.types.is_string(field.type):
            t = t.set_column(n, field, pa.array([_defuse(v) for v in t.column(n).to_pylist()], type=pa.string()))
    return t


def _slope(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or np.ptp(x) == 0:
        return None
    return float(np.polyfit(x, y, 1)[0])


def analysis(db: Session) -> dict[str, Any]:
    """The numbers behind the study plots, from every human turn and decision in the database."""
    games = {g.id: g for g in sorted(db.scalars(select(Game).where(Game.game == STUDY_GAME)), key=lambda g: g.id)}
    pref_of = {gid: (g.risk_preference or "not asked") for gid, g in games.items()}
    # trajectories: (game, human seat) -> list of scores after each of the human's turns
    traj: dict[str, list[int]] = defaultdict(list)
    bins: dict[str, list[Turn]] = defaultdict(list)
    for t in sorted(db.scalars(select(Turn).where(Turn.actor == "human")), key=lambda t: (t.game_id, t.turn_no, t.player)):
        if t.game_id not in games:
            continue
        traj[t.game_id].append(t.score_after)
        diff = t.score_before - t.opponent_score
        for label, lo, hi in DIFF_BINS:
            if lo <= diff <= hi:
                bins[label].append(t)
    by_pref: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for gid, scores in traj.items():
        by_pref[pref_of[gid]].append({"game": gid, "scores": scores})
    average = {}
    for pref, players in by_pref.items():
        n = max(len(p["scores"]) for p in players)
        means, counts = [], []
        for t in range(n):
            vals = [p["scores"][t] for p in players if len(p["scores"]) > t]
            means.append(float(np.mean(vals)))
            counts.append(len(vals))
        x = np.arange(1, n + 1, dtype=float)
        average[pref] = {"turn": x.astype(int).tolist(), "mean_score": means, "players": counts,
                         "slope": _slope(x, np.array(means))}
    behaviour = []
    for label, _, _ in DIFF_BINS:
        ts = bins.get(label, [])
        behaviour.append({
            "bin": label, "turns": len(ts),
            "mean_rolls": float(np.mean([t.n_rolls for t in ts])) if ts else None,
            "mean_banked": float(np.mean([t.banked for t in ts])) if ts else None,
            "bust_share": float(np.mean([t.ended in ("bust", "reset") for t in ts])) if ts else None,
        })
    quality: dict[str, dict[str, Any]] = {}
    lost: dict[str, list[float]] = defaultdict(list)
    optimal: dict[str, list[bool]] = defaultdict(list)
    think: dict[str, list[int]] = defaultdict(list)
    for m in sorted(db.scalars(select(Move).where(Move.actor == "human")), key=lambda m: (m.game_id, m.seq)):
        if m.p_lost is None or m.game_id not in games:
            continue
        p = pref_of.get(m.game_id, "not asked")
        lost[p].append(m.p_lost)
        optimal[p].append(m.action == m.optimal_action)
        if m.think_ms is not None:
            think[p].append(m.think_ms)
    for p in lost:
        quality[p] = {"decisions": len(lost[p]), "mean_lost": float(np.mean(lost[p])),
                      "total_lost": float(np.sum(lost[p])), "optimal_share": float(np.mean(optimal[p])),
                      "median_think_ms": float(np.median(think[p])) if think[p] else None}
    answers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for g in games.values():
        if g.risk_preference:
            answers[g.risk_preference][f"{g.q2}{g.q3}"] += 1
    return {
        "games": len(games),
        "study_games": sum(1 for g in games.values() if g.risk_preference),
        "finished": sum(1 for g in games.values() if g.status == "finished"),
        "trajectories": dict(by_pref),
        "average": average,
        "behaviour": behaviour,
        "quality": quality,
        "answers": {k: dict(v) for k, v in answers.items()},
        "seed_002_slopes": {"averse": 4.76, "neutral": 4.75, "loving": 4.85},
    }


def _order(keys: Any) -> list[str]:
    return [p for p in (*PREFS, "not asked") if p in keys]


def plot(db: Session, name: str) -> bytes:
    """One study figure as PNG: ``trajectories``, ``average``, ``behind-ahead`` or ``quality``."""
    if name not in PLOTS:
        raise DicelabError(f"unknown plot {name!r}; choose one of {', '.join(PLOTS)}")
    from matplotlib.figure import Figure

    import dicelab.core.plotting  # noqa: F401  (sets the Agg backend)

    a = analysis(db)
    fig = Figure(figsize=(9, 4.2), dpi=90)
    colors = {"averse": "tab:blue", "neutral": "tab:green", "loving": "tab:red", "not asked": "tab:gray"}
    if name == "trajectories":
        prefs = _order(a["trajectories"]) or ["not asked"]
        axes = fig.subplots(1, len(prefs), sharey=True, squeeze=False)[0]
        for ax, p in zip(axes, prefs, strict=True):
            for player in a["trajectories"].get(p, []):
                ax.plot(range(1, len(player["scores"]) + 1), player["scores"], marker=".", color=colors[p], alpha=0.6)
            ax.set_title(f"Score at each turn: {PREF_LABEL[p]}", fontsize=9)
            ax.set_xlabel("turn number")
        axes[0].set_ylabel("total score")
    elif name == "average":
        ax = fig.subplots()
        for p in _order(a["average"]):
            av = a["average"][p]
            ax.plot(av["turn"], av["mean_score"], marker="o", color=colors[p],
                    label=f"{PREF_LABEL[p]} (slope {av['slope']:.2f})" if av["slope"] is not None else PREF_LABEL[p])
            if av["slope"] is not None:
                x = np.array(av["turn"], dtype=float)
                c = np.polyfit(x, av["mean_score"], 1)
                ax.plot(x, np.polyval(c, x), ls="--", color=colors[p], lw=1)
        ax.set_xlabel("turn number")
        ax.set_ylabel("average total score")
        ax.set_title("Average score at each turn by stated risk preference (seed 002: 4.76 / 4.75 / 4.85)",
                     fontsize=9)
        if a["average"]:
            ax.legend(fontsize=8)
    elif name == "behind-ahead":
        ax1, ax2 = fig.subplots(1, 2)
        labels = [b["bin"] for b in a["behaviour"]]
        ax1.bar(range(len(labels)), [b["mean_rolls"] or 0 for b in a["behaviour"]], color="tab:purple")
        ax1.set_title("Rolls per turn by score difference", fontsize=9)
        ax2.bar(range(len(labels)), [b["bust_share"] or 0 for b in a["behaviour"]], color="tab:orange")
        ax2.set_title("Share of turns lost to a 1", fontsize=9)
        for ax in (ax1, ax2):
            ax.set_xticks(range(len(labels)), labels, rotation=25, fontsize=7, ha="right")
        fig.subplots_adjust(bottom=0.3)
    else:
        ax = fig.subplots()
        prefs = _order(a["quality"])
        ax.bar(range(len(prefs)), [a["quality"][p]["mean_lost"] for p in prefs], color=[colors[p] for p in prefs])
        ax.set_xticks(range(len(prefs)), [PREF_LABEL[p] for p in prefs], fontsize=8)
        ax.set_ylabel("mean win probability lost per decision")
        ax.set_title("Decision quality by stated risk preference", fontsize=9)
    if a["games"] == 0:
        fig.text(0.5, 0.5, "no games recorded yet", ha="center", va="center", fontsize=14, color="gray")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()

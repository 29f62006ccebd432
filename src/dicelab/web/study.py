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
* :func:`analysis`: the numbers behind the plots, from the games of the study's participants only
  (who answered the questionnaire with consent; other games are recorded but never in a figure): per-player score trajectories by stated risk
  preference, the average score at each turn with its least-squares slope, behaviour by score
  difference (behind / level / ahead: rolls per turn, points banked, share of turns lost to a 1),
  decision quality by stated preference, and stated preference against the two gamble answers;
  always for ONE game and ONE goal (figures of games to 30 and to 100 are not comparable),
  optionally one participant, with a warning on every figure that rests on fewer than
  :data:`MIN_TURNS` turns;
* :func:`plot`: the figures, as PNG (turn axes in whole numbers).
"""

from __future__ import annotations

import io
import json
import unicodedata
from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core import registry
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
MIN_TURNS = 30  # a figure resting on fewer human turns carries a warning
ANSWER_LABEL = {"aa": "sure £10, sure £1m", "ab": "sure £10, gamble for £2m", "ba": "gamble for £20, sure £1m",
                "bb": "gamble for £20, gamble for £2m"}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")  # OWASP: CSV injection (and a line feed)
FORMULA_SIGNS = "=+-@\u2212"  # after NFKC (full-width and small forms become these), with the minus sign
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


def formula_like(value: str) -> bool:
    """Whether a spreadsheet could read the text cell ``value`` as a formula: it starts with one of
    :data:`FORMULA_START`, or its first visible character is a formula sign (``= + - @`` or the
    minus sign, in any width: ``＝1+1`` is one in a Japanese spreadsheet) after any blanks, line
    breaks, control and invisible format characters (zero-width spaces, byte-order marks, bidi
    marks), which spreadsheets may trim before they parse the cell."""
    if value.startswith(FORMULA_START):
        return True
    for ch in value:
        if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            continue
        return any(c in FORMULA_SIGNS for c in unicodedata.normalize("NFKC", ch)[:1])
    return False


def _defuse(value: str | None) -> str | None:
    return "'" + value if value is not None and formula_like(value) else value


def _defuse_formulas(t: pa.Table) -> pa.Table:
    """``t`` with every text cell that a spreadsheet could read as a formula (:func:`formula_like`)
    prefixed with ``'``, so a spreadsheet shows it as text; numbers stay numbers."""
    for n, field in enumerate(t.schema):
        if pa.types.is_string(field.type):
            t = t.set_column(n, field, pa.array([_defuse(v) for v in t.column(n).to_pylist()], type=pa.string()))
    return t


def _slope(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2 or np.ptp(x) == 0:
        return None
    return float(np.polyfit(x, y, 1)[0])


def goal_of(g: Game) -> int | None:
    """A recorded game's goal: its rules' ``goal`` (None for a game without one, e.g. Liar's Dice)."""
    try:
        rules = json.loads(g.rules_json) if g.rules_json else {}
    except ValueError:
        rules = {}
    goal = rules.get("goal") if isinstance(rules, dict) else None
    return goal if isinstance(goal, int) else g.goal


def _title(game: str) -> str:
    try:
        return registry.get(game).title
    except DicelabError:
        return game


def options(db: Session) -> dict[str, Any]:
    """What the analysis can be filtered by: every game the study's participants played, each with
    its goals and their numbers of games and of human turns (most turns first), and the
    participants' names."""
    goal_of_game = {g.id: (g.game, goal_of(g)) for g in db.scalars(select(Game)) if g.risk_preference}
    counts: dict[str, dict[int | None, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for game, goal in goal_of_game.values():
        counts[game][goal][0] += 1
    for (gid,) in db.execute(select(Turn.game_id).where(Turn.actor == "human")):
        if gid in goal_of_game:
            game, goal = goal_of_game[gid]
            counts[game][goal][1] += 1
    games = [{"key": k, "title": _title(k), "turns": sum(n for _, n in v.values()),
              "goals": [{"goal": goal, "games": n[0], "turns": n[1]}
                        for goal, n in sorted(v.items(), key=lambda x: (-x[1][1], -x[1][0], x[0] or 0))]}
             for k, v in sorted(counts.items())]
    participants = sorted({p for (p,) in db.execute(select(Game.participant).where(Game.risk_preference.is_not(None))) if p})
    return {"games": games, "participants": participants}


def choose(db: Session, game: str | None = None, goal: int | None = None,
           participant: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The filter the analysis uses (``game``, ``goal``, ``participant``) and the :func:`options`.

    No game given: Pig, the study's game (even with no records yet: a figure never changes its game
    because another game was played).
    No goal given: the goal with the most human turns in that game. A game the lab does not know is
    refused (422); a known game or goal without records gives an empty analysis."""
    opts = options(db)
    known = {g["key"]: g for g in opts["games"]}
    if game is None:
        game = STUDY_GAME
    else:
        names = [e.name for e in registry.games()]
        require(game in names, f"There is no game called {game[:40]!r} in the lab; choose one of: "
                               f"{', '.join(names)}.")
    goals = [x["goal"] for x in known[game]["goals"]] if game in known else []
    if goal is None and goals:
        goal = goals[0]
    return {"game": game, "title": _title(game), "goal": goal, "participant": participant or None}, opts


def _warning(n: int, what: str = "turns") -> str | None:
    if n >= MIN_TURNS:
        return None
    return (f"This figure rests on {n} {what}, fewer than {MIN_TURNS}: read it as an anecdote, "
            "not as evidence.")


def analysis(db: Session, game: str | None = None, goal: int | None = None,
             participant: str | None = None) -> dict[str, Any]:
    """The numbers behind the study plots, from the human turns and decisions of ONE game and ONE
    goal (see :func:`choose` for the defaults), optionally of one participant only."""
    chosen, opts = choose(db, game, goal, participant)
    every = sorted(db.scalars(select(Game).where(Game.game == chosen["game"])), key=lambda g: g.id)
    # only the study's participants (who answered the questionnaire, with consent): a game played
    # without joining the study is recorded but never in the figures
    games = {g.id: g for g in every if g.risk_preference
             and goal_of(g) == chosen["goal"] and (chosen["participant"] is None or g.participant == chosen["participant"])}
    pref_of = {gid: (g.risk_preference or "not asked") for gid, g in games.items()}
    # trajectories: (game, human seat) -> list of scores after each of the human's turns
    traj: dict[str, list[int]] = defaultdict(list)
    bins: dict[str, list[Turn]] = defaultdict(list)
    n_turns = 0
    for t in sorted(db.scalars(select(Turn).where(Turn.actor == "human")), key=lambda t: (t.game_id, t.turn_no, t.player)):
        if t.game_id not in games:
            continue
        n_turns += 1
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
        turns = sum(counts)
        average[pref] = {"turn": x.astype(int).tolist(), "mean_score": means, "players": counts,
                         "slope": _slope(x, np.array(means)), "turns": turns, "few_turns": turns < MIN_TURNS}
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
    for p, ls in lost.items():
        quality[p] = {"decisions": len(ls), "mean_lost": float(np.mean(ls)),
                      "total_lost": float(np.sum(ls)), "optimal_share": float(np.mean(optimal[p])),
                      "median_think_ms": float(np.median(think[p])) if think[p] else None}
    answers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for g in games.values():
        if g.risk_preference:
            answers[g.risk_preference][f"{g.q2}{g.q3}"] += 1
    decisions = sum(q["decisions"] for q in quality.values())
    return {
        "filter": chosen,
        "options": opts,
        # every recorded game of the chosen game (all goals, all participants) ...
        "games": len(every),
        "study_games": sum(1 for g in every if g.risk_preference),
        "finished": sum(1 for g in every if g.status == "finished"),
        # ... and the selection behind the figures
        "selection": {"games": len(games), "study_games": sum(1 for g in games.values() if g.risk_preference),
                      "finished": sum(1 for g in games.values() if g.status == "finished"), "turns": n_turns},
        "turns": n_turns,
        "min_turns": MIN_TURNS,
        "warnings": {"trajectories": _warning(n_turns), "average": _warning(n_turns),
                     "behind-ahead": _warning(n_turns), "quality": _warning(n_turns) or (
                         _warning(decisions, "rated decisions") if decisions < MIN_TURNS else None)},
        "trajectories": dict(by_pref),
        "average": average,
        "behaviour": behaviour,
        "quality": quality,
        "answers": {k: dict(v) for k, v in answers.items()},
        "seed_002_slopes": {"averse": 4.76, "neutral": 4.75, "loving": 4.85},
    }


def setting(a: dict[str, Any]) -> str:
    """The analysed selection in words: "Pig to 100, all participants"."""
    f = a["filter"]
    who = f"participant {f['participant']}" if f["participant"] else "all participants"
    goal = f" to {f['goal']}" if f["goal"] is not None else ""
    return f"{f['title']}{goal}, {who}"


def _order(keys: Any) -> list[str]:
    return [p for p in (*PREFS, "not asked") if p in keys]


def plot(db: Session, name: str, game: str | None = None, goal: int | None = None,
         participant: str | None = None) -> bytes:
    """One study figure (:func:`figure`) as PNG."""
    buf = io.BytesIO()
    figure(db, name, game, goal, participant).savefig(buf, format="png")
    return buf.getvalue()


def figure(db: Session, name: str, game: str | None = None, goal: int | None = None,
           participant: str | None = None) -> Any:
    """One study figure (a matplotlib Figure): ``trajectories``, ``average``, ``behind-ahead`` or
    ``quality``, of the selection :func:`analysis` makes; turn numbers on whole-number ticks."""
    if name not in PLOTS:
        raise DicelabError(f"There is no study figure called {name[:40]!r}; choose one of: {', '.join(PLOTS)}.")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    import dicelab.core.plotting  # noqa: F401  (sets the Agg backend)

    a = analysis(db, game, goal, participant)
    where = setting(a)
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
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.suptitle(where, fontsize=9)
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
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("average total score")
        ax.set_title(f"Average score at each turn, {where} (the Exeter study's slopes: 4.76 / 4.75 / 4.85)",
                     fontsize=9)
        if a["average"]:
            ax.legend(fontsize=8)
    elif name == "behind-ahead":
        ax1, ax2 = fig.subplots(1, 2)
        labels = [b["bin"] for b in a["behaviour"]]
        ax1.bar(range(len(labels)), [b["mean_rolls"] or 0 for b in a["behaviour"]], color="tab:purple")
        ax1.set_title(f"Rolls per turn by score difference ({where})", fontsize=9)
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
        ax.set_title(f"Decision quality by stated risk preference, {where}", fontsize=9)
    if a["selection"]["games"] == 0:
        fig.text(0.5, 0.5, "no games recorded here yet", ha="center", va="center", fontsize=14, color="gray")
    elif a["warnings"][name]:
        fig.text(0.01, 0.01, f"Few turns: {a['turns']} (fewer than {MIN_TURNS})", ha="left", va="bottom",
                 fontsize=9, color="#8d1a2e")
    return fig

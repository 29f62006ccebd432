"""The review of a game (issue 14, item 3) and its read-only share link (item 5), for every game.

The stored game is replayed from its record (the rules, the seed and every seat's action in
``moves``) through the game's own state interface; at each decision the game's coach
(``Play.coach(state, seat)``) is asked for the seat to move. Nothing here knows a game's rules.

* The graph's point at a decision state is the human's chance to win: at the human's decisions the
  coach's value of the best action; at a bot's decision in a two-player game 1 - the bot's best
  value (the games are zero-sum: one seat's win is the other's loss); with three or more players
  only the human's own decisions have a point (one seat's loss is not one other seat's gain). The
  last point is the game's result (1 a win, 0 a loss, a share for a tie).
* Numbers are used only where the coach's ``kind`` is ``"win probability"`` or, for a game of
  rounds whose coach values the round (Liar's Dice duels), ``"chance to win the round"`` (then
  ``measure`` is ``"round"`` and the page says so). A decision where the coach gives something
  else has no point and no label (the answer's ``why`` says so); a game whose coach never gives a
  chance to win has the move list without graph or labels, and the answer says why.
* Each of the human's decisions is labelled by what it gave away (best value - chosen value), and
  the game gets an accuracy, as chess players know it: :mod:`dicelab.core.accuracy` (its
  ``THRESHOLDS``, the one source of the labels). The worst decisions (mistakes and blunders) get a
  sentence of advice: the game's optional ``Play.advice(state, seat, action)`` hook, else one made
  from the coach's values.

Hidden information: a finished game is public (its seed is too). While a game is live the review
shows only the public events of each action: no position (an observation may hold a hand) and no
coach number (the coach reads the mover's hand). A share id is ``<game id>.<signature>``, an HMAC
of the game id keyed by the game's token hash: unguessable, distinct from the move token, and it
opens nothing but this read-only view.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from dicelab.core.accuracy import THRESHOLDS, label_of, span_of
from dicelab.core.accuracy import summary as accuracy_summary
from dicelab.core.errors import DicelabError
from dicelab.core.levels import ranks
from dicelab.web.gamecore import GAMES, Conflict, LiveGame, NotFound, public_seed
from dicelab.web.service import (
    actor_for,
    check_ready,
    coach_of,
    entry_of,
    game_specs,
    is_legacy,
    moves_of,
    play_of,
    players_of,
    rules_of,
    same_json,
    seats_view,
    share_id,
    verdict,
    viewer,
)

WIN = "win probability"
ROUND = "chance to win the round"  # a game of rounds whose coach values the round (Liar's Dice)
GRAPHED = {WIN, ROUND}
ADVISED = ("blunder", "mistake")  # the labels that get a sentence of advice


# ------------------------------------------------------------------------------ share ids
def load_shared(db: Session, sid: str) -> LiveGame:
    """The game a share id opens; 404 (one line) for anything else."""
    missing = NotFound("no such shared game: check the share link")
    if not sid or len(sid) > 80 or "." not in sid:
        raise missing
    game_id = sid.rsplit(".", 1)[0]
    row = db.execute(select(GAMES).where(GAMES.c.id == game_id)).mappings().first()
    if row is None:
        raise missing
    g = LiveGame(**row)
    if not hmac.compare_digest(share_id(g).encode(), sid.encode()):
        raise missing
    return g


# ------------------------------------------------------------------------------ words and numbers
def pct(p: float) -> str:
    """One format for every coach number: a percentage with one decimal (``54.3%``)."""
    return f"{100 * p:.1f}%"


def action_words(action: Any) -> str:
    """An action as people read it: ``roll``, ``target 25``, ``bid 3 × 5``."""
    if isinstance(action, str):
        return action
    if isinstance(action, dict):
        return ", ".join(f"{k} {' × '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in action.items())
    return json.dumps(action)


def generic_advice(c: dict[str, Any], action: Any, chosen: float, best: float) -> str:
    """Advice from the coach's own numbers, for a game without an ``advice`` hook."""
    return (f"The best move here was {action_words(c.get('best'))} ({pct(best)} to win); "
            f"you chose {action_words(action)} ({pct(chosen)}), giving away {pct(best - chosen)}.")


def advice_of(play: Any, state: Any, seat: int, action: Any, c: dict[str, Any], chosen: float,
              best: float) -> str:
    """The game's own ``advice`` hook (optional in the Play protocol), else :func:`generic_advice`."""
    hook = getattr(play, "advice", None)
    if hook is not None:
        try:
            text = hook(state, seat, action)
        except (ImportError, DicelabError):
            text = None
        if text:
            return str(text)
    return generic_advice(c, action, chosen, best)


# ------------------------------------------------------------------------------ the review
def _rows_by_step(state: Any, rows: list[Any], start: int) -> list[Any]:
    """The recorded rows of the next step (one per seat to move, in seat order, as the service
    wrote them); a 409 when the record does not fit the replay."""
    seats = sorted(state.to_move())
    group = rows[start:start + len(seats)]
    if [m.player for m in group] != seats:
        raise Conflict("this game's record does not replay (it was changed outside the lab); it has no review")
    return group


def review(db: Session, g: LiveGame, shared: bool = False) -> dict[str, Any]:
    """The review of ``g`` for the reader's seat (``g.viewer``; in a game between people each has
    their own): the moves, the positions (finished games), that seat's chance to win at every
    decision, the labels and the advice; see the module docstring. Actors as the reader sees them
    (``human``: the reader, ``friend``: another person, ``bot``)."""
    entry = entry_of(g)
    if is_legacy(g):
        raise Conflict("this game was started by an older version of the lab whose dice cannot be replayed; "
                       "it has no review")
    params = json.loads(g.rules_json or "{}")
    specs = game_specs(g)
    check_ready(entry, specs, params)  # the coach's tables, built off the event loop when missing
    play = play_of(entry)
    rules = rules_of(entry, params)
    state = entry.new_game(rules, g.seed)
    players = players_of(state)
    human = viewer(g)  # the reader's seat (a shared review: the creator's)
    finished = g.status == "finished"
    rows = moves_of(db, g)
    steps: list[dict[str, Any]] = []
    kinds: set[str] = set()
    at = 0
    seat_chances = False  # the coach gives every seat's chance (Pig for three or four players)
    while at < len(rows) and not state.is_over:
        group = _rows_by_step(state, rows, at)
        at += len(group)
        # the turn it belongs to (the lab's turn count: a new turn when the seat to move changes)
        step: dict[str, Any] = {"n": len(steps), "turn": group[0].turn_no, "moves": [], "win": None}
        if finished:
            step["position"] = state.observe(human)
        actions = {m.player: json.loads(m.action_json) if m.action_json else m.action for m in group}
        for m in group:
            actor = actor_for(m.actor, m.player, human)
            is_human = actor == "human"
            mv: dict[str, Any] = {"seat": m.player, "actor": actor, "action": actions[m.player],
                                  "hinted": is_human and '"hint": true' in (m.events_json or "")}
            # a bot's decision has a point only in a two-player game (one minus its own chance); with
            # more players the coach is asked there too once it gives every seat's chance ("chances")
            asking = finished and (is_human or players == 2 or seat_chances)
            # the human's coach as the game page asks it (a coach taking ``against`` is told the first
            # bot); a bot seat's own view without ``against``
            c = coach_of(play, state, m.player, specs if is_human else []) if asking else None
            if c and c.get("values"):
                kinds.add(str(c.get("kind")))
            if c and isinstance(c.get("chances"), list):
                step["chances"], seat_chances = c["chances"], True
            if c and c.get("kind") in GRAPHED and c.get("values"):
                v = verdict(c, actions[m.player])
                best, chosen = v["best_value"], v["value"]
                if is_human:
                    mv.update({"values": c["values"], "best": c.get("best"), "best_value": best, "value": chosen})
                    if c.get("equal"):  # an equilibrium's mix: moves worth the same, none "the best"
                        mv["equal"] = c["equal"]
                    if best is not None and chosen is not None:
                        loss = max(0.0, best - chosen)
                        span = span_of([float(x["value"]) for x in c["values"] if isinstance(x.get("value"), (int, float))])
                        mv.update({"loss": loss, "span": span, "label": label_of(loss)})
                        if mv["label"] in ADVISED:
                            mv["advice"] = advice_of(play, state, m.player, actions[m.player], c, chosen, best)
                    step["win"] = best
                elif players == 2 and step["win"] is None and best is not None:
                    step["win"] = 1.0 - best
                    mv["best_value"] = best
            step["moves"].append(mv)
        joint = actions[group[0].player] if len(group) == 1 else {str(s): a for s, a in actions.items()}
        events = state.apply(joint)
        for n, mv in enumerate(step["moves"]):  # as the service records them: common events with the last seat
            last = n == len(step["moves"]) - 1
            mv["events"] = [e for e in events if e.get("seat") == mv["seat"] or ("seat" not in e and last)]
        steps.append(step)
    if at != len(rows) or not same_json(state.to_json(), json.loads(g.state_json or "{}")):
        raise Conflict("this game's record does not replay (it was changed outside the lab); it has no review")
    graph = finished and bool(kinds & GRAPHED)
    if not graph:
        for s in steps:
            s["win"] = None
            s.pop("chances", None)
            for mv in s["moves"]:
                for k in ("values", "best", "best_value", "value", "loss", "span", "label", "advice", "equal"):
                    mv.pop(k, None)
    final: dict[str, Any] = {"n": len(steps)}
    if finished:
        final["position"] = state.observe(human)
        final["win"] = float(state.returns()[human]) if graph else None
    if not finished:
        why = ("The game is still being played: the review shows each move's public events; the positions, "
               "the graph and the labels appear when it is over.")
    elif graph and kinds <= GRAPHED:
        why = None
    elif graph:
        why = (f"At some decisions this game's coach gives \u201c{min(kinds - GRAPHED)}\u201d, not a chance to "
               "win (with more players, or more dice than its trained duels cover): those have no point or label.")
    elif not kinds:
        why = ("The coach gives no win probabilities for " + ("games of more than two players" if players > 2 else
               "this game") + ", so the review shows the moves without a graph or labels.")
    else:
        why = (f"This game's coach gives \u201c{min(kinds - GRAPHED or kinds)}\u201d, not a chance to win, "
               "so the review shows the moves without a graph or labels.")
    names = {b.spec: b.name for b in play.bots(rules)}
    ranked = ranks(play)
    if ranked is not None:
        names.update({lv.spec: lv.name for lv in ranked.levels(rules)})
    mine = [mv for s in steps for mv in s["moves"] if mv["actor"] == "human" and mv.get("loss") is not None]
    out: dict[str, Any] = {
        "id": g.id, "game": g.game, "title": entry.title, "rules": params, "opponents": specs,
        "opponent_names": [names.get(s, "Bot") for s in specs],
        "human_seat": human, "players": players, "coach": bool(g.coach), "status": g.status, "winner": g.winner,
        "returns": json.loads(g.result_json) if finished and g.result_json else None,
        "thresholds": {name: over for name, over in THRESHOLDS}, "graph": graph, "why": why,
        "measure": "round" if graph and ROUND in kinds else "game",
        "steps": steps, "final": final,
        "summary": {"decisions": len(mine), "labels": {name: sum(1 for mv in mine if mv.get("label") == name)
                                                       for name, _ in THRESHOLDS},
                    "total_lost": sum(mv["loss"] for mv in mine),
                    **accuracy_summary([mv["loss"] for mv in mine], [mv["span"] for mv in mine])} if graph else None,
        "multiplayer_note": ("With more than two players one seat's loss is not one other seat's gain, so the graph "
                             "has a point only at your own decisions.") if graph and players > 2 else None,
    }
    seats = seats_view(g, human, specs)
    if seats is not None:  # a game between people: who sat where, from the reader's seat
        out["seats"] = seats
    if public_seed(g) is not None:
        out["seed"] = public_seed(g)
    if not shared:
        out["share_id"] = share_id(g)
    return out

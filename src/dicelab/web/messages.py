"""Refusals in plain words: the request checks' findings (pydantic's) as sentences a player reads.

The web lab answers bad input with 4xx and ``{"detail": "<one line of sentences>"}``; for a
request that fails its checks the findings also come as data (``"errors"``: where and what kind).
"""

from __future__ import annotations

from typing import Any

# what a request field is, in words (anything else: its name with spaces)
FIELDS = {"quantity": "the number of dice in your bid", "face": "the face of your bid", "k": "the target (or turn total)",
          "goal": "the goal", "sides": "the number of sides", "sticks": "the number of sticks",
          "players": "the number of players", "dice": "the number of dice", "expected_move": "the move number",
          "game": "the game", "i": "your score", "j": "the opponent's score",
          "lo": "the first N", "hi": "the last N", "a": "strategy A", "b": "strategy B", "specs": "the strategies",
          "variant": "the variant", "action": "the move", "opponent": "the opponent", "coach": "the coach setting",
          "human_first": "who starts", "faces": "the number of faces", "wild": "the wild rule"}
WHERE = {"body", "query", "path", "header", "cookie"}


def _field(loc: tuple[Any, ...]) -> str:
    names = [str(x) for x in loc if str(x) not in WHERE and not isinstance(x, int)]
    if not names:
        return "the request"
    name = names[-1]
    return FIELDS.get(name, "the value of " + name.replace("_", " ").replace("-", " "))


def as_sentence(s: str) -> str:
    """``s`` as a sentence: a capital first letter (unless the first word is a name, such as
    ``hold:N`` or ``max_dice``) and a full stop at the end."""
    s = s.strip()
    first = s.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        s = s[:1].upper() + s[1:]
    return s if s.endswith((".", "!", "?")) else s + "."


_cap = as_sentence


def illegal_move(message: str, action: object, shown: tuple[str, ...]) -> str:
    """A game's refusal of a move, reworded so that it does not repeat the move: the games write
    "illegal <game> action <the move>[: why | (why)]; legal: <what is>"; the answer is "That move
    is not allowed here[: why]; allowed: <what is>." (a bid repeated could read as game data)."""
    for form in shown:
        i = message.find(form) if form else -1
        if i >= 0:
            rest = message[i + len(form):].lstrip(" :;")
            break
    else:
        return as_sentence(message)
    reason, _, legal = rest.partition("legal:")
    reason = reason.strip(" ;:").removeprefix("(").removesuffix(")").strip()
    out = "That move is not allowed here" + (f": {reason}" if reason else "")
    return as_sentence(out + (f"; allowed: {legal.strip()}" if legal.strip() else ""))


def sentence(error: dict[str, Any]) -> str:
    """One pydantic finding as a sentence: "The goal must be at least 2." """
    kind, ctx = str(error.get("type", "")), error.get("ctx") or {}
    what = _field(tuple(error.get("loc", ())))
    if what == "the number of dice in your bid" and kind == "greater_than_equal" and ctx.get("ge") == 1:
        return "Bid at least one die."
    if kind == "missing":
        return _cap(f"{what} is missing")
    if kind in ("greater_than_equal", "greater_than"):
        return _cap(f"{what} must be at least {ctx.get('ge', ctx.get('gt'))}")
    if kind in ("less_than_equal", "less_than"):
        return _cap(f"{what} must be at most {ctx.get('le', ctx.get('lt'))}")
    if kind.startswith("int_"):
        return _cap(f"{what} must be a whole number")
    if kind.startswith(("float_", "finite_")):
        return _cap(f"{what} must be a number")
    if kind.startswith("bool_"):
        return _cap(f"{what} must be true or false")
    if kind.startswith("string_") and "max_length" in ctx:
        return _cap(f"{what} must be at most {ctx['max_length']} characters")
    if kind.startswith("string_"):
        return _cap(f"{what} must be text")
    if kind == "literal_error":
        return _cap(f"{what} must be {ctx.get('expected', 'one of the allowed values')}")
    if kind == "extra_forbidden":
        return _cap(f"{what} is not something this request takes")
    if kind in ("json_invalid", "json_type"):
        return "The request is not valid JSON."
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return _cap(f"{what} must be a JSON object")
    if kind in ("list_type", "tuple_type"):
        return _cap(f"{what} must be a list")
    msg = str(error.get("msg", "is not valid")).replace("Input should be", "should be")
    return _cap(f"{what}: {msg}")


def sentences(errors: list[dict[str, Any]], most: int = 3) -> str:
    """The first ``most`` distinct findings as one line of sentences."""
    out: list[str] = []
    for e in errors:
        s = sentence(e)
        if s not in out:
            out.append(s)
    extra = len(out) - most
    line = " ".join(out[:most])
    return line + (f" ({extra} more.)" if extra > 0 else "")

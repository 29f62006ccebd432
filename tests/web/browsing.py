"""Waiting on the web lab in a browser test: the board after Start, with the reason when it never comes."""

from __future__ import annotations

from pathlib import Path

# A game's first bots on a cold cache (servers started with --no-warm) are built while Start waits:
# seconds alone, but once over 60 s in CI with both cores busy (the Liar's Dice duels at 2 dice,
# on a fresh clone, in tests/web/test_web_ux.py).
FIRST_BUILD_MS = 240_000


def board_after_start(page, log: Path | None = None) -> None:
    """Wait for the board after Start. Fail at once with the page's own sentence when the start was
    refused, and with the tail of the server's ``log`` (when given) when the board never came."""
    try:
        page.wait_for_selector("#board:not([hidden]), #setup-error:not(:empty)", timeout=FIRST_BUILD_MS)
    except Exception as exc:
        tail = log.read_text(errors="replace")[-3000:] if log is not None and log.exists() else "(no server log)"
        raise AssertionError(f"no board {FIRST_BUILD_MS // 1000} s after Start; the server's log ends:\n{tail}") from exc
    refused = page.inner_text("#setup-error").strip() if page.query_selector("#setup-error") else ""
    assert not refused, f"the start was refused: {refused}"

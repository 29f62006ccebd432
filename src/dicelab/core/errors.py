"""The one exception type users see.

Every validation failure raises :class:`DicelabError` with a single line that says what is wrong
and what is allowed. The CLI prints that line and exits with code 2; the web server answers 4xx.
"""

from __future__ import annotations


class DicelabError(ValueError):
    """Bad input: the message is one line, meant for a person, and names what is allowed."""

    def __init__(self, message: str) -> None:
        if "\n" in message:
            raise AssertionError("DicelabError messages must be one line")
        super().__init__(message)


def require(condition: bool, message: str) -> None:
    """Raise :class:`DicelabError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise DicelabError(message)

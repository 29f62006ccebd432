"""Griffe extension for the docs build: reads dicelab's reST-flavoured docstrings as Markdown.

dicelab's docstrings are prose written for ``help()`` and doctest: ``code`` spans, Sphinx roles
such as :func:`dicelab.pig.solve`, ``::`` literal blocks and bare ``>>>`` examples. This turns,
for the site only (the source is untouched):

* a role naming a full ``dicelab.`` path into a cross-reference, which the strict build checks;
  any other role (a short or outside name) into a code span;
* a doctest block (``>>>`` lines and their output) into a fenced ``pycon`` block;
* a paragraph ending in ``::`` into one ending in ``:`` (the indented block after it is code);
* a reST heading underline (``-----``) into a Markdown heading;
* "seed 002" (one of the source texts) into a link to its entry on the references page.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const):`(~?)([^`]+)`")
_UNDERLINE = re.compile(r"^(-{3,}|={3,}|~{3,})\s*$")
_SEED = re.compile(r"(?<![\w`\[])seed (\d{3})\b")


def _seeds(lines: list[str]) -> list[str]:
    """Link every "seed NNN" outside code blocks and code spans to the references page."""
    out: list[str] = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced:
            parts = line.split("`")
            parts[::2] = [_SEED.sub(r"[seed \1][seed-\1]", p) for p in parts[::2]]
            line = "`".join(parts)
        out.append(line)
    return out


def _role(match: re.Match[str]) -> str:
    tilde, target = match.group(1), match.group(2).strip()
    shown = target.rsplit(".", 1)[-1] if tilde else target
    if target.startswith("dicelab."):
        return f"[`{shown}`][{target}]"
    return f"`{shown}`"


def _doctests(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(">>>"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            block: list[str] = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
        else:
            out.append(lines[i])
            i += 1
    return out


def rst_to_markdown(text: str) -> str:
    """The Markdown form of one docstring (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _UNDERLINE.match(line) and out and out[-1].strip():
            out[-1] = "**" + out[-1].strip() + "**"
            continue
        if line.rstrip().endswith("::") and not line.strip() == "::" and not nxt.strip():
            line = line.rstrip()[:-1]
        out.append(line)
    out = _seeds(_doctests(out))
    return _ROLE.sub(_role, "\n".join(out))


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring once, as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and not getattr(obj.docstring, "_md", False):
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
            obj.docstring._md = True  # type: ignore[attr-defined]

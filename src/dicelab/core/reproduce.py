"""Reproductions of the source documents: the paper's printed value, dicelab's, and why they differ.

A game package that implements a source document (``/work/shared/seeds``: 000 Zhu & Ma, 001
Höhle, 002 Exeter, 003 the lecture notes, 004 Oehm) offers its reproductions through the
registry: its :class:`~dicelab.core.registry.GameEntry` names, in ``reproductions_name``, a public
tuple of :class:`Reproduction` objects. Each holds the document's parts; a part recomputes one
table or figure with the game's own public verbs and returns a :class:`Section`: a few
:class:`Check` rows (what the paper printed, where, what dicelab computes, and, where they differ,
why, with the evidence) and the figures it drew. The paper's printed values live with the game's
reproduction code, quoted with their table or page; this module only compares and writes.

:func:`run` writes ``DIR/<doc>.md`` (a Markdown report with the figures as PNG files in
``DIR/<doc>/``) and ``DIR/index.md``; ``dicelab reproduce`` is its command line.

A printed value is compared to the precision it was printed with: ``"0.5231"`` agrees with any
value that rounds to it (half a unit in the last place), ``"35.90%"`` likewise in percent:

>>> Check("best response to hold:25", "Fig. 1", "0.5231", 0.523139).agrees
True
>>> Check("cyclic states", "p. 6", 141, 149).agrees
False
>>> Check("P(X_100 = 0)", "Table 2", "0.9898", 0.98975).difference
-5e-05
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from dicelab.core import registry
from dicelab.core.errors import DicelabError, require
from dicelab.core.progress import progress_bar

_NUMBER = re.compile(r"^\s*([+-]?\d+(?:\.(\d*))?(?:[eE]([+-]?\d+))?)\s*(%?)\s*$")


def printed(text: str) -> tuple[float, float]:
    """A number as a paper printed it -> ``(value, tolerance)``: half a unit in its last digit.

    >>> printed("0.5231")
    (0.5231, 5e-05)
    >>> printed("35.90%")
    (0.359, 5e-05)
    >>> printed("3.346e-7")
    (3.346e-07, 5e-11)
    """
    m = _NUMBER.match(text)
    require(m is not None, f"not a printed number: {text!r}")
    assert m is not None
    digits = len(m.group(2) or "")
    exponent = int(m.group(3) or 0)
    scale = 0.01 if m.group(4) else 1.0
    value = float(m.group(1)) * scale
    tol = 0.5 * 10.0 ** (exponent - digits) * scale
    return round(value, 15), float(f"{tol:.3g}")


@dataclass
class Check:
    """One printed value beside dicelab's.

    ``paper`` is what the document printed: a string for a decimal (compared to its printed
    precision, see :func:`printed`), a whole number or a fraction (compared exactly), or any other
    text (compared as text). ``tol`` overrides the printed precision. ``why`` says, where the two
    differ, what causes it and what shows it (an independent check, the paper's own ambiguity);
    ``reduced`` says what smaller size a ``--quick`` run used instead (then nothing is compared)."""

    what: str
    where: str
    paper: Any
    ours: Any
    why: str = ""
    tol: float | None = None
    reduced: str | None = None

    def _numbers(self) -> tuple[float, float, float] | None:
        if isinstance(self.ours, bool) or isinstance(self.paper, bool):
            return None
        try:
            ours = float(self.ours)
        except (TypeError, ValueError):
            return None
        if isinstance(self.paper, str):
            if _NUMBER.match(self.paper) is None:
                return None
            value, tol = printed(self.paper)
        elif isinstance(self.paper, (int, float, Fraction)):
            value, tol = float(self.paper), 0.0
        else:
            return None
        return value, ours, tol if self.tol is None else self.tol

    @property
    def compared(self) -> bool:
        """Whether the value was compared: the paper printed one, dicelab computed one, at full size."""
        return self.reduced is None and self.paper is not None and self.ours is not None

    @property
    def difference(self) -> float | None:
        """dicelab's value minus the paper's, for numbers (rounded to 12 significant digits)."""
        nums = self._numbers()
        if nums is None or not self.compared:
            return None
        return float(f"{nums[1] - nums[0]:.10g}")

    @property
    def agrees(self) -> bool:
        """True when dicelab's value matches the printed one (to its printed precision)."""
        if not self.compared:
            return False
        nums = self._numbers()
        if nums is not None:
            value, ours, tol = nums
            return abs(ours - value) <= tol * (1 + 1e-9) + 1e-15
        return str(self.ours) == str(self.paper)

    @property
    def verdict(self) -> str:
        if self.reduced is not None:
            return "not compared (quick run)"
        if self.paper is None:
            return "no printed value"
        if self.ours is None:
            return "not reproducible"
        return "agrees" if self.agrees else "differs"

    def to_dict(self) -> dict[str, Any]:
        return {"what": self.what, "where": self.where, "paper": _plain(self.paper), "dicelab": _plain(self.ours),
                "difference": self.difference, "verdict": self.verdict, "why": self.why or None,
                "reduced": self.reduced}


@dataclass
class Figure:
    """A figure a part drew: ``file`` is relative to the document's folder (``DIR/<doc>/``)."""

    file: str
    caption: str


@dataclass
class Section:
    """One table or figure of the document, recomputed."""

    title: str
    text: str = ""
    checks: list[Check] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Context:
    """What a part gets: where to draw its figures, and whether this is a ``--quick`` run."""

    folder: Path
    quick: bool

    def figure(self, name: str) -> Path:
        """The path for the figure file ``name`` (the folder is made on first use)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / name


Part = Callable[[Context], Section]


@dataclass(frozen=True)
class Reproduction:
    """A game's reproduction of (part of) one source document ``doc`` ("000" .. "004")."""

    doc: str
    title: str
    source: str
    parts: tuple[Part, ...]
    game: str = ""


@dataclass
class Report:
    """One document, recomputed: every part's section, in order."""

    doc: str
    title: str
    source: str
    sections: list[Section]
    quick: bool
    seconds: float

    @property
    def checks(self) -> list[Check]:
        return [c for s in self.sections for c in s.checks]

    def counts(self) -> dict[str, int]:
        out = {"checks": 0, "agree": 0, "differ": 0, "not_compared": 0}
        for c in self.checks:
            out["checks"] += 1
            key = "agree" if c.agrees else "differ" if c.compared else "not_compared"
            out[key] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"doc": self.doc, "title": self.title, "source": self.source, "quick": self.quick,
                "seconds": round(self.seconds, 2), **self.counts(),
                "sections": [{"title": s.title, "checks": [c.to_dict() for c in s.checks],
                              "figures": [f"{self.doc}/{f.file}" for f in s.figures]} for s in self.sections]}

    def to_markdown(self) -> str:
        n = self.counts()
        lines = [f"# {self.doc}: {self.title}", "",
                 f"Source: {self.source}. Recomputed by `dicelab reproduce {self.doc}"
                 f"{' --quick' if self.quick else ''}` in {self.seconds:.0f} s: {n['checks']} printed values, "
                 f"{n['agree']} agree, {n['differ']} differ"
                 + (f", {n['not_compared']} not compared (reduced sizes, or no data to recompute them from)."
                    if n["not_compared"] else "."), ""]
        if self.quick:
            lines += ["!!! note \"Quick run\"", "    Some parts ran at reduced sizes; their values are not "
                      "compared with the paper. Run without `--quick` for the full report.", ""]
        for s in self.sections:
            lines += [f"## {s.title}", ""]
            if s.text:
                lines += [s.text.strip(), ""]
            if s.checks:
                lines += ["| value | where | paper | dicelab | difference | |", "|---|---|---|---|---|---|"]
                notes = []
                for c in s.checks:
                    mark = {"agrees": "agrees", "differs": "**differs**"}.get(c.verdict, c.verdict)
                    if c.why and c.verdict == "differs":
                        notes.append(c)
                        mark += f" ({len(notes)})"
                    lines.append(f"| {_cell(c.what)} | {_cell(c.where)} | {_show(c.paper)} | "
                                 f"{_show(c.ours, c.paper)} | {_diff(c)} | {mark} |")
                lines.append("")
                for k, c in enumerate(notes, 1):
                    lines += [f"({k}) **{c.what}.** {c.why.strip()}", ""]
                for c in s.checks:
                    if c.why and c.verdict != "differs":
                        lines += [f"*{c.what}:* {c.why.strip()}", ""]
            for f in s.figures:
                lines += [f"![{_cell(f.caption)}]({self.doc}/{f.file})", "", f"*{f.caption}*", ""]
        return "\n".join(lines).rstrip() + "\n"


def _plain(x: Any) -> Any:
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "item"):
        return x.item()
    return x


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _show(x: Any, like: Any = None) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        if isinstance(like, str) and _NUMBER.match(like):
            digits = len((_NUMBER.match(like).group(2) or ""))  # type: ignore[union-attr]
            if like.strip().endswith("%"):
                return f"{100 * x:.{digits + 2}f}%"
            if "e" in like.lower():
                return f"{x:.4g}"
            return f"{x:.{max(digits + 2, 4)}f}"
        return f"{x:.6g}"
    return _cell(str(x))


def _diff(c: Check) -> str:
    d = c.difference
    if d is None:
        return "" if c.agrees or not c.compared else "—"
    return "0" if d == 0 else f"{d:+.3g}"


# ------------------------------------------------------------------------------------------------
# the registry hook and the runner


def reproductions() -> dict[str, list[Reproduction]]:
    """Every registered game's reproductions, by document (a document may have several games')."""
    out: dict[str, list[Reproduction]] = {}
    for game in registry.games():
        name = getattr(game, "reproductions_name", None)
        if name is None:
            continue
        for r in game.load(name):
            out.setdefault(r.doc, []).append(r if r.game else Reproduction(r.doc, r.title, r.source, r.parts,
                                                                            game.name))
    return dict(sorted(out.items()))


def documents() -> list[str]:
    """The documents some game reproduces, in order ("000", "001", ...)."""
    return list(reproductions())


def _run_doc(doc: str, parts: list[Reproduction], out: Path, quick: bool, progress: bool) -> Report:
    t0 = time.perf_counter()
    ctx = Context(out / doc, quick)
    sections: list[Section] = []
    steps = [p for r in parts for p in r.parts]
    with progress_bar(f"reproducing {doc}", total=len(steps), enabled=progress) as bar:
        for part in steps:
            t1 = time.perf_counter()
            section = part(ctx)
            section.seconds = time.perf_counter() - t1
            sections.append(section)
            bar.advance()
    first = parts[0]
    return Report(doc, first.title, first.source, sections, quick, time.perf_counter() - t0)


def run(docs: Iterable[str], out: str | Path, quick: bool = False, progress: bool = False) -> list[Report]:
    """Recompute the documents ``docs`` (ids, or ``"all"``) and write their reports into ``out``:
    ``<doc>.md``, the figures in ``<doc>/``, and ``index.md`` for the documents run."""
    known = reproductions()
    wanted: list[str] = []
    for d in docs:
        if d == "all":
            wanted += [k for k in known if k not in wanted]
        elif d in known:
            if d not in wanted:
                wanted.append(d)
        else:
            raise DicelabError(f"no reproduction of document {str(d)[:20]!r}; documents: {', '.join(known)} or all")
    require(bool(wanted), f"name a document to reproduce: {', '.join(known)} or all")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    reports = [_run_doc(d, known[d], folder, quick, progress) for d in wanted]
    for r in reports:
        (folder / f"{r.doc}.md").write_text(r.to_markdown(), encoding="utf-8")
    (folder / "index.md").write_text(index_markdown(reports), encoding="utf-8")
    return reports


def index_markdown(reports: list[Report]) -> str:
    """The overview page: one row per document with its counts."""
    lines = ["# Reproductions", "",
             "Every table and figure of the source documents, recomputed by dicelab and set beside the "
             "values the documents printed. Where a value differs, the report says why, with the "
             "evidence. Made by `dicelab reproduce all --out DIR`"
             + (" --quick (reduced sizes)" if any(r.quick for r in reports) else "") + ".", "",
             "| document | printed values | agree | differ | time |", "|---|---|---|---|---|"]
    for r in reports:
        n = r.counts()
        lines.append(f"| [{r.doc}: {_cell(r.title)}]({r.doc}.md) | {n['checks']} | {n['agree']} | {n['differ']} "
                     f"| {r.seconds:.0f} s |")
    return "\n".join(lines) + "\n"


__all__ = ["Check", "Context", "Figure", "Report", "Reproduction", "Section", "documents", "printed",
           "reproductions", "run"]

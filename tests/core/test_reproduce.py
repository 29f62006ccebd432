"""`dicelab reproduce`: the comparison rules, and a quick run of every document through the CLI with
the papers' printed values and the known, explained differences checked in the reports."""

from __future__ import annotations

import json

import pytest

from dicelab.cli.main import main
from dicelab.core.reproduce import Check, documents, printed


def test_printed_precision():
    assert printed("0.5231") == (0.5231, 5e-05)
    assert printed("35.90%") == (0.359, 5e-05)
    assert printed("1537") == (1537.0, 0.5)
    # a value agrees when it rounds to what was printed, and not otherwise
    assert Check("x", "p", "0.5231", 0.52314999).agrees
    assert not Check("x", "p", "0.5231", 0.52316).agrees
    assert Check("x", "p", "6/7", "6/7").agrees and not Check("x", "p", "6/7", "5/7").agrees
    assert Check("x", "p", 141, 149).difference == 8
    assert Check("x", "p", "0.5", 0.9, reduced="quick").verdict == "not compared (quick run)"


def test_every_source_document_has_a_reproduction():
    assert documents() == ["000", "001", "002", "003", "004"]


def _run(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def _row(text: str, what: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(f"| {what} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_reproduce_all_quick(tmp_path, capsys):
    code, out, _ = _run(["reproduce", "all", "--quick", "--out", str(tmp_path), "--json"], capsys)
    assert code == 0
    data = json.loads(out)  # exactly one JSON object
    assert [d["doc"] for d in data["documents"]] == ["000", "001", "002", "003", "004"]
    for d in data["documents"]:
        assert (tmp_path / f"{d['doc']}.md").exists()
        assert d["checks"] == d["agree"] + d["differ"] + d["not_compared"] > 0
    index = (tmp_path / "index.md").read_text()
    assert all(f"{d}.md" in index for d in ("000", "001", "002", "003", "004"))
    r000 = (tmp_path / "000.md").read_text()
    # the paper's printed values, and the explained differences (issue 24)
    assert _row(r000, "best response's win probability against hold at 25")[2:6:3] == ["0.5231", "agrees"]
    row = _row(r000, "states whose target cycles")
    assert row[2] == "141" and row[3] == "149" and row[5].startswith("**differs**")
    assert _row(r000, "best response against two hold at 25")[5] == "agrees"  # 35.90%
    r001 = (tmp_path / "001.md").read_text()
    assert _row(r001, "start player's win probability, 4 sticks each")[2:6:3] == ["0.602", "agrees"]
    assert "differs" not in r001  # Höhle's table is matched to all seven printed digits
    r002 = (tmp_path / "002.md").read_text()
    assert _row(r002, "hold:20 v hold:21: A first")[5] == "agrees"
    assert _row(r002, "games for +-0.025 at 95% (p = 1/2)")[5] == "agrees"  # n = 1537
    assert _row(r002, "turtle first against roll to win")[5] == "agrees"
    r004 = (tmp_path / "004.md").read_text()
    assert _row(r004, "states of the blog's table, rebuilt")[5] == "agrees"  # 2772
    for doc in ("000", "001", "002", "003", "004"):  # every figure the reports name was drawn
        text = (tmp_path / f"{doc}.md").read_text()
        for line in text.splitlines():
            if line.startswith("!["):
                assert (tmp_path / line[line.index("](") + 2:-1]).stat().st_size > 1000


def test_reproduce_refuses_bad_input(tmp_path, capsys):
    code, _, err = _run(["reproduce", "005", "--out", str(tmp_path / "x")], capsys)
    assert code == 2 and err.count("\n") == 1 and "documents: 000" in err
    assert not (tmp_path / "x").exists() or not any((tmp_path / "x").iterdir())
    (tmp_path / "file").write_text("")
    code, _, err = _run(["reproduce", "001", "--out", str(tmp_path / "file")], capsys)
    assert code == 2 and err.startswith("error:")

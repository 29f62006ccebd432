"""The study's data behind the researcher key, CSV cells that cannot run as formulas, consent before
the questionnaire, security headers on every answer, the Host check on loopback, and the answer codes
the README states."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicelab.web.app import create_app
from tests.web.conftest import PoliteClient, free_port

STUDY_URLS = ("/export/games.csv", "/export/moves.parquet", "/export/turns.csv", "/api/analysis",
              "/analysis/plot/average.png", "/analysis")
TEMPLATES = Path(__file__).parents[2] / "src" / "dicelab" / "web" / "templates"
QUESTIONS = {"risk_preference": "neutral", "q2": "a", "q3": "b"}


def n_games(db_url: str) -> int:
    con = sqlite3.connect(db_url.split("///", 1)[1])
    (n,) = con.execute("select count(*) from games").fetchone()
    con.close()
    return n


@pytest.mark.parametrize("url", STUDY_URLS)
def test_the_study_data_need_the_researcher_key(client, admin, url):
    client.post("/api/games", json={"goal": 20, "opponent": "hold:10",
                                    "questionnaire": {**QUESTIONS, "participant": "p-17", "consent": True}})
    missing = client.get(url)
    wrong = client.get(url, headers={"X-Admin-Key": admin["X-Admin-Key"] + "x"})
    near = client.get(url, headers={"X-Admin-Key": admin["X-Admin-Key"][:-1]})
    right = client.get(url, headers=admin)
    # the page without a key is the form that asks for it (200: no failed request in a visitor's console)
    assert (missing.status_code, wrong.status_code, near.status_code, right.status_code) == (
        200 if url == "/analysis" else 401, 403, 403, 200)
    for r in (missing, wrong):
        assert "p-17" not in r.text and "neutral" not in r.text  # no study data without the key
        if url != "/analysis":  # the page answers with the form that asks for the key
            assert set(r.json()) == {"detail"} and "\n" not in r.json()["detail"] and "X-Admin-Key" in r.json()["detail"]
    if url == "/analysis":
        assert 'id="admin-key"' in missing.text and 'id="counts"' not in missing.text
        assert 'id="counts"' in right.text and "1 with the questionnaire" in right.text


def test_an_app_without_a_key_keeps_the_study_closed(db_url):
    with PoliteClient(create_app(db_url, warm=False)) as c:
        assert c.get("/export/games.csv").status_code == 401
        assert c.get("/export/games.csv", headers={"X-Admin-Key": ""}).status_code == 401
        assert c.get("/export/games.csv", headers={"X-Admin-Key": "None"}).status_code == 403


LABELS = ['=HYPERLINK("http://x")', "@SUM(1)", "+1+1", "-2+3", "\tTAB", "\rCR",
          # issue 23, item 8: what a spreadsheet may still evaluate past the six ASCII leaders
          " =1+1", "\n=1+1", "＝1+1", "＋1", "－1", "＠SUM(1)", "\u00a0=1", "\u200b=1", "\ufeff@x", "﹦1", "\u22121",
          "plain label", "a=b", " plain", "１+1"]
SAFE = 4  # the last four are text


def test_csv_export_neutralises_formula_cells(client, admin):
    for label in LABELS:
        r = client.post("/api/games", json={"goal": 20, "opponent": "hold:10",
                                            "questionnaire": {**QUESTIONS, "participant": label, "consent": True}})
        assert r.status_code == 201, r.text
    text = client.get("/export/games.csv", headers=admin).text
    rows = list(csv.DictReader(io.StringIO(text)))
    shown = sorted(r["participant"] for r in rows)
    # OWASP: a text cell that starts with = + - @ tab or CR gets a leading single quote
    expected = sorted(["'" + lab for lab in LABELS[:-SAFE]] + LABELS[-SAFE:])
    assert shown == expected
    assert text.count(',"[""hold:10""]",0,false,"playing",0,0,,0,') == len(LABELS)  # numbers stay bare numbers
    # Parquet is data, not a spreadsheet: the labels as typed
    pq_rows = pq.read_table(io.BytesIO(client.get("/export/games.parquet", headers=admin).content)).to_pylist()
    assert sorted(r["participant"] for r in pq_rows) == sorted(LABELS)


@pytest.mark.parametrize("consent", [None, False, "true", 1])
def test_the_questionnaire_records_nothing_without_consent(client, db_url, consent):
    q = dict(QUESTIONS) if consent is None else {**QUESTIONS, "consent": consent}
    before = n_games(db_url)
    r = client.post("/api/games", json={"goal": 20, "opponent": "hold:10", "questionnaire": q})
    assert r.status_code == 422
    assert "consent" in json.dumps(r.json())
    if consent in (None, False):  # our own one-line reason
        assert isinstance(r.json()["detail"], str) and "\n" not in r.json()["detail"]
    assert n_games(db_url) == before
    ok = client.post("/api/games", json={"goal": 20, "opponent": "hold:10", "questionnaire": {**q, "consent": True}})
    assert ok.status_code == 201 and n_games(db_url) == before + 1


def test_the_pig_page_shows_the_consent_text_before_the_questions(client):
    html = client.get("/play/pig").text
    consent = html.index('id="consent-text"')
    assert consent < html.index('name="risk_preference"')
    text = re.sub(r"<[^>]+>", " ", html[consent:html.index('name="risk_preference"')])
    for words in ("answers", "every move", "how long", "anonymous", "participant label", "researcher key"):
        assert words in " ".join(text.split()), words
    assert 'type="checkbox" id="consent"' in html
    js = client.get("/static/pig.js").text
    assert '$("consent").checked' in js and "consent: true" in js


HEADERS = {"x-frame-options": "DENY", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}


def test_security_headers_on_every_answer(client, admin):
    big = json.dumps({"pad": "x" * 20000})
    answers = [client.get("/"), client.get("/play/liars"), client.get("/static/common.js"), client.get("/healthz"),
               client.get("/api/games/nope"), client.get("/no/such/page"), client.get("/analysis"),
               client.get("/export/games.csv"), client.get("/export/games.csv", headers=admin),
               client.post("/api/games", content=big, headers={"Content-Type": "application/json"}),
               client.post("/api/games", json={"goal": 0})]
    assert sorted({r.status_code for r in answers}) == [200, 401, 404, 413, 422]
    for r in answers:
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (r.url, name)
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_templates_have_no_inline_script_or_handlers():
    # the CSP allows scripts only from /static: an inline script or onclick= would be blocked
    for path in TEMPLATES.glob("*.html"):
        html = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert re.search(r'\bsrc="/static/[\w.-]+\.js"', tag), (path.name, tag)
        assert not re.search(r"<script\b[^>]*>\s*[^<\s]", html), path.name
        assert not re.search(r"\son[a-z]+\s*=", html, re.I), path.name
        assert not re.search(r"\sstyle\s*=", html, re.I), path.name
        assert "javascript:" not in html.lower(), path.name


@pytest.mark.parametrize("bind, allow, host, code", [
    ("127.0.0.1", None, "127.0.0.1:8000", 200),
    ("127.0.0.1", None, "localhost", 200),
    ("127.0.0.1", None, "LOCALHOST:1", 200),
    ("127.0.0.1", None, "127.8.9.10:8000", 200),
    ("127.0.0.1", None, "[::1]:8000", 200),
    ("localhost", None, "127.0.0.1", 200),
    ("::1", None, "[::1]", 200),
    ("127.0.0.1", None, "evil.example", 400),
    ("127.0.0.1", None, "evil.example:8000", 400),
    ("127.0.0.1", None, "localhost.evil.example", 400),
    ("127.0.0.1", None, "127.0.0.1.nip.io", 400),
    ("127.0.0.1", None, "10.0.0.1", 400),
    ("::1", None, "[::2]:80", 400),
    ("0.0.0.0", ["lab.example"], "lab.example:8000", 200),  # on the network: the names allowed
    ("0.0.0.0", ["lab.example"], "LAB.example", 200),
    ("0.0.0.0", ["lab.example"], "localhost", 200),
    ("0.0.0.0", ["lab.example"], "evil.example", 400),
    ("0.0.0.0", ["lab.example"], "", 400),
    ("192.0.2.7", None, "192.0.2.7:8000", 200),  # a bound address names itself
    ("192.0.2.7", None, "evil.example", 400),
    ("0.0.0.0", ["*"], "evil.example", 200),  # explicitly any Host (behind a checking proxy)
    (None, None, "testserver", 200),           # the in-process test client
])
def test_host_header_check(db_url, bind, allow, host, code):
    with PoliteClient(create_app(db_url, warm=False, bind_host=bind, allow_hosts=allow)) as c:
        r = c.get("/healthz", headers={"Host": host})
    assert r.status_code == code, r.text
    if code == 400:
        assert set(r.json()) == {"detail"} and "\n" not in r.json()["detail"] and "Host" in r.json()["detail"]
        assert r.headers["x-frame-options"] == "DENY"


def test_answer_codes_stated_in_the_readme(client):
    gid = client.post("/api/games", json={"goal": 20, "opponent": "hold:10"}).json()["id"]
    nested = client.post("/api/games", content="[" * 4000 + "]" * 4000, headers={"Content-Type": "application/json"})
    assert nested.status_code == 400 and set(nested.json()) == {"detail"}
    long_token = client.get(f"/api/games/{gid}", headers={"X-Game-Token": "x" * 201})
    assert long_token.status_code == 422 and "X-Game-Token" in json.dumps(long_token.json())
    assert client.get(f"/api/games/{gid}", headers={"X-Game-Token": "x" * 200}).status_code == 403
    assert client.post("/api/games", content=b"{bad", headers={"Content-Type": "application/json"}).status_code == 422
    assert client.get("/api/games/" + "x" * 41, headers={"X-Game-Token": "t"}).status_code == 404


def test_serve_generates_and_prints_a_key_and_guards_the_host(server_factory):
    server = server_factory(admin_key=None)
    server.start()
    lines = server.log.read_text().splitlines()
    address = next(n for n, line in enumerate(lines) if "web lab: http://127.0.0.1:" in line)
    assert "researcher key" in lines[address + 1]  # one line, right after the address
    key = lines[address + 1].rsplit(" ", 1)[1]
    assert len(key) >= 24
    assert httpx.get(server.url + "/api/analysis", headers={"X-Admin-Key": key}).status_code == 200
    assert httpx.get(server.url + "/api/analysis", headers={"X-Admin-Key": "x" + key}).status_code == 403
    assert httpx.get(server.url + "/api/analysis").status_code == 401
    rebound = httpx.get(server.url + "/healthz", headers={"Host": f"evil.example:{server.port}"})
    assert rebound.status_code == 400 and "Host" in rebound.json()["detail"]
    assert httpx.get(f"http://localhost:{server.port}/healthz").status_code == 200


@pytest.mark.parametrize("how", ["option", "env", "generated"])
def test_serve_passes_the_key_and_the_bind_address(how, monkeypatch, capsys, db_url):
    from dicelab.cli import serve
    from dicelab.cli.main import main

    started = {}

    def run_server(app, sock, port):
        started.update(app=app, address=sock.getsockname(), port=port)
        sock.close()

    monkeypatch.setattr(serve, "run_server", run_server)
    monkeypatch.delenv("DICELAB_ADMIN_KEY", raising=False)
    port = free_port()
    args = ["serve", "--db", db_url, "--no-warm", "--port", str(port)]
    if how == "option":
        args += ["--admin-key", "given-by-option-1"]
    elif how == "env":
        monkeypatch.setenv("DICELAB_ADMIN_KEY", "given-by-env-123")
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 0
    assert started["address"] == ("127.0.0.1", port) and started["port"] == port
    key = started["app"].state.admin_key
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and f"http://127.0.0.1:{port}/" in err[0] and "researcher key" in err[1]
    if how == "generated":
        assert err[1].endswith(" " + key) and len(key) >= 24
    else:
        assert key == {"option": "given-by-option-1", "env": "given-by-env-123"}[how] and key not in err[1]
    with PoliteClient(started["app"]) as c:  # bound to 127.0.0.1: only loopback Host names
        assert c.get("/healthz", headers={"Host": "evil.example"}).status_code == 400
        assert c.get("/api/analysis", headers={"Host": f"localhost:{port}", "X-Admin-Key": key}).status_code == 200


@pytest.mark.parametrize("key", ["", "short", "has space inside", "x" * 201])
def test_serve_rejects_a_bad_admin_key(key, capsys):
    from dicelab.cli.main import main

    with pytest.raises(SystemExit) as e:
        main(["serve", "--admin-key", key, "--no-warm"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "researcher key" in err and "\n" not in err


def _evaluated_by_a_spreadsheet(cell: str) -> bool:
    """The reference, written out slowly: a spreadsheet trims blanks, line breaks, control and
    invisible characters, folds full-width and small forms to ASCII (NFKC), and then reads a cell
    that starts with = + - @ (or the minus sign) as a formula; a tab, CR or LF first is a leader of
    its own (OWASP)."""
    import unicodedata

    if cell[:1] in ("\t", "\r", "\n"):
        return True
    rest = cell
    while rest and (rest[0].isspace() or unicodedata.category(rest[0]) in ("Cc", "Cf", "Zs", "Zl", "Zp")):
        rest = rest[1:]
    first = unicodedata.normalize("NFKC", rest[:1])[:1]
    return first in ("=", "+", "-", "@", "\u2212") and first != ""


@settings(max_examples=2000, deadline=None)
@given(cell=st.text(alphabet=st.one_of(
    st.sampled_from(list("=+-@\t\r\n \u00a0\u200b\ufeff\u202e\u3000＝＋－＠﹦﹢﹣﹫\u2212'\"a1,")),
    st.characters()), max_size=8))
def test_csv_defusing_is_exactly_what_a_spreadsheet_would_evaluate(cell):
    from dicelab.web.study import _defuse

    out = _defuse(cell)
    if _evaluated_by_a_spreadsheet(cell):
        assert out == "'" + cell  # prefixed: shown as text, nothing lost
    else:
        assert out == cell  # left as typed

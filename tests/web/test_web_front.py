"""The front door (issue 23 item 3): static files from memory with gzip, ETag and 304, and a kept
ok health answer, with the same security headers and Host check as every other answer."""

from __future__ import annotations

from pathlib import Path


from dicelab.web.app import HERE, create_app
from tests.web.conftest import PoliteClient


def test_static_files_from_memory_with_gzip_etag_and_304(tmp_path: Path) -> None:
    with PoliteClient(create_app(f"sqlite:///{tmp_path / 'f.sqlite'}", warm=False)) as c:
        on_disk = (HERE / "static" / "play.js").read_bytes()
        r = c.get("/static/play.js", headers={"accept-encoding": "gzip"})
        assert r.status_code == 200 and r.content == on_disk  # httpx undoes the gzip
        assert r.headers["content-encoding"] == "gzip" and int(r.headers["content-length"]) < len(on_disk)
        assert r.headers["content-type"].startswith(("text/javascript", "application/javascript"))
        assert r.headers["x-content-type-options"] == "nosniff" and "default-src 'self'" in r.headers[
            "content-security-policy"]
        plain = c.get("/static/play.js", headers={"accept-encoding": "identity"})
        assert plain.content == on_disk and "content-encoding" not in plain.headers
        again = c.get("/static/play.js", headers={"if-none-match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert c.get("/static/lab.css", headers={"if-none-match": r.headers["etag"]}).status_code == 200
        head = c.head("/static/lab.css")
        assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) > 0
        for bad in ("/static/nope.js", "/static/../app.py", "/static/%2e%2e/app.py", "/static/"):
            assert c.get(bad).status_code == 404, bad


def test_a_kept_health_answer_still_says_at_once_what_a_request_met(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'h.sqlite'}", warm=False)
    with PoliteClient(app) as c:
        first = c.get("/healthz")
        assert first.status_code == 200 and first.json()["status"] == "ok"
        assert c.get("/healthz").json() == first.json()  # kept for a moment
        app.state.damaged = "the database file is damaged (test)"
        h = c.get("/healthz")
        assert h.status_code == 503 and h.json()["status"] == "damaged"


def test_the_host_check_comes_before_the_front_door(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'g.sqlite'}", warm=False, bind_host="127.0.0.1")
    with PoliteClient(app, base_url="http://evil.example") as c:
        assert c.get("/static/play.js").status_code == 400
        assert c.get("/healthz").status_code == 400

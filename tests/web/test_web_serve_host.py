"""``dicelab serve --host`` (issue 23, item 4): the empty value bound every interface and checked no
Host header; a bad address or odd characters ended in uvicorn's three lines and exit 3; of two
Host headers only the last was checked. Now: a bad ``--host`` is one line and exit 2 before any
work; a non-loopback bind keeps the Host check with an explicit allow-list (``--allow-host``); two
Host headers are refused (400) whatever the bind."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from dicelab.cli import serve
from dicelab.cli.main import main
from dicelab.web.app import create_app
from tests.web.conftest import PoliteClient, free_port


@pytest.fixture()
def started(monkeypatch):
    """``dicelab serve`` up to the point where uvicorn would start: the app and its socket."""
    out: dict = {}

    def run_server(app, sock, port):
        out.update(app=app, address=sock.getsockname(), family=sock.family)
        sock.close()

    monkeypatch.setattr(serve, "run_server", run_server)
    return out


def run(args: list[str], capsys) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--no-warm", *args])
    return done.value.code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("host, words", [
    ("", "empty"), (" ", "empty"), ("256.1.1.1", "neither"), ("1.2.3", "neither"), ("😀", "neither"),
    ("lab example", "neither"), ("-lab", "neither"), ("lab..example", "neither"), ("a" * 300, "neither"),
    ("lab.example/x", "neither"), ("[::1]", "neither"), ("127.0.0.1:80", "neither"), ("\x7f", "neither"),
    ("0.0.0.0", "--allow-host"), ("::", "--allow-host"),
    ("no-such-host.invalid", "cannot find"), ("192.0.2.1", "cannot listen"),  # TEST-NET: not this machine's
])
def test_a_bad_host_is_one_line_and_exit_2(host, words, started, capsys, db_url):
    code, err = run(["--host", host, "--db", db_url], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and words in err[0], err
    assert not started  # nothing was served


def test_a_bad_allow_host_is_one_line(started, capsys, db_url):
    code, err = run(["--host", "0.0.0.0", "--allow-host", "evil example", "--db", db_url], capsys)
    assert code == 2 and len(err) == 1 and "--allow-host" in err[0] and not started


def test_a_taken_port_is_one_line(started, capsys, db_url):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code, err = run(["--port", str(taken.getsockname()[1]), "--db", db_url], capsys)
    assert code == 2 and len(err) == 1 and "cannot listen" in err[0] and not started


def test_every_interface_with_an_allow_list_keeps_the_host_check(started, capsys, db_url):
    port = free_port()
    code, _ = run(["--host", "0.0.0.0", "--port", str(port), "--allow-host", "Lab.Example", "--db", db_url],
                  capsys)
    assert code == 0 and started["address"] == ("0.0.0.0", port)
    with PoliteClient(started["app"]) as c:
        for host, want in (("lab.example", 200), (f"lab.example:{port}", 200), ("localhost", 200),
                           ("evil.example", 400), (f"evil.example:{port}", 400), ("0.0.0.0", 400)):
            assert c.get("/healthz", headers={"Host": host}).status_code == want, host


@pytest.mark.parametrize("bind, allow", [(None, None), ("127.0.0.1", None), ("0.0.0.0", ["*"])])
def test_two_host_headers_are_refused(db_url, bind, allow):
    with PoliteClient(create_app(db_url, warm=False, bind_host=bind, allow_hosts=allow)) as c:
        for pair in (("localhost", "evil.example"), ("evil.example", "localhost"), ("localhost", "localhost")):
            r = c.get("/healthz", headers=[("Host", pair[0]), ("Host", pair[1])])
            assert r.status_code == 400 and "more than one Host" in r.json()["detail"], pair
        assert c.get("/healthz", headers={"Host": "localhost"}).status_code == 200


def test_a_real_server_refuses_two_host_headers(server_factory):
    server = server_factory()
    server.start()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_an_idle_connection_outlasts_the_clients_keep_alive(server_factory):
    """The server keeps an idle connection open longer than an httpx client keeps it (5 s), so the
    client closes first. With both at 5 s a request sent as the server dropped the connection failed
    (CI: one game creation in 200 ended in a ReadError); here a request 5.5 s after the last, on the
    same connection, must be answered."""
    expiry = httpx.Limits().keepalive_expiry  # httpx's own default, 5 s
    assert expiry is not None
    server = server_factory()
    server.start()
    with socket.create_connection(("127.0.0.1", server.port), timeout=expiry + 5) as s:
        for wait in (expiry + 0.5, 0.0):
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            answer = b""
            while not (b"\r\n\r\n" in answer and answer.rstrip().endswith(b"}")):
                chunk = s.recv(4096)
                assert chunk, "the server closed an idle connection that a client still counts as open"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
            time.sleep(wait)

"""Make the README's screenshots of the web lab: ``.venv/bin/python docs/screenshots.py``.

Starts the lab on a free loopback port with a throwaway database, plays a few moves of Pig with
the coach on, and saves ``docs/img/pig.png`` (desktop) and ``docs/img/liars-phone.png`` (a 390 px
phone) with Debian's Chromium through Playwright (``apt-get install chromium``).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

OUT = Path(__file__).parent / "img"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY = "#roll[aria-disabled=false], #status[data-state=finished]"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    OUT.mkdir(exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "dicelab", "serve", "--port", str(port), "--db", f"sqlite:///{tmp}/lab.sqlite"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.goto(f"{url}/play/pig?reveal=0")
                page.check("#coach")
                page.click("#start")
                for key in ("r", "r", "r", "h", "r", "r"):  # a few rolls and a hold, bot replies at once
                    page.wait_for_selector(READY)
                    if page.locator("#status[data-state=finished]").count():
                        break
                    page.keyboard.press(key)
                page.wait_for_selector(READY)
                page.screenshot(path=str(OUT / "pig.png"))
                phone = browser.new_page(viewport={"width": 390, "height": 800})
                phone.goto(f"{url}/play/liars?reveal=0")
                phone.click("#start")
                phone.wait_for_timeout(500)
                phone.screenshot(path=str(OUT / "liars-phone.png"))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"wrote {OUT / 'pig.png'} and {OUT / 'liars-phone.png'}")


if __name__ == "__main__":
    main()

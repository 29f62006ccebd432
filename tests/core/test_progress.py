"""Progress bars never write to stdout, and stay silent when stderr is not a terminal."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
from dicelab.core.progress import progress_bar
try:
    with progress_bar("work", total=2) as bar:
        bar.advance()
        raise ValueError("boom")
except ValueError:
    pass
with progress_bar("work", total=1) as bar:
    bar.advance()
"""


def test_piped_progress_is_silent():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert out.stdout == "" and out.stderr == ""

"""Starvation (issue 23 item 3): floods outside a game's own routes must not slow the games.

Against one ``dicelab serve``, two players make cheap moves (Pig to 20 against hold:10, 50 ms
between moves): first alone, then while a separate client process floods the server with four
loops that never wait: health checks, static files, explorer evaluations of ever new strategies,
and public games against ``best-response:best-response:hold:20`` at odd goals and sides (every one
a bot table to build). The flooding client and the players are ``benchmarks/probe_starvation.py``'s
(run it for the full figures, one flood at a time; the flooding client runs at nice 5, as
if on another machine).

The audit saw the cheap move's p95 go from 9 ms to 388 ms under a health-check flood. Held here:

* on a quiet machine (``DICELAB_LOAD_STRICT=1``): the moves' round-trip p95 under the flood is
  under 50 ms;
* always (beside other tests on 2 cores, where a few descheduled moments make a p95 of 20-odd
  moves, and the machine's load swings the median by 3x between two phases with no flood at all):
  the median stays within ``5 x`` the same run's no-flood median ``+ 100 ms``, the players
  keep at least a third of their no-flood pace (a move shed with 503 is retried), and the flood was
  served (answers of each kind or a build still running, no 5xx but 503, no timeout).

Figures are printed, and appended to ``DICELAB_LOAD_REPORT`` when set.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("probe_starvation", ROOT / "benchmarks" / "probe_starvation.py")
probe = importlib.util.module_from_spec(spec)
assert spec.loader is not None
spec.loader.exec_module(probe)

QUIET_S = 2.5
FLOOD_S = 4.0
STRICT_P95_MS = 50.0


def test_cheap_moves_keep_their_pace_while_clients_flood_other_routes(alone, server_factory):
    server = server_factory()
    server.start()
    assert httpx.post(server.url + "/api/games", json={"goal": 20, "opponent": "hold:10"}, timeout=60).status_code == 201

    quiet = asyncio.run(probe.moves_while(server.url, QUIET_S))
    flooder = probe.start_flood(server.url, probe.kinds_of("mixed"), FLOOD_S)
    flooded = asyncio.run(probe.moves_while(server.url, FLOOD_S))
    flood = probe.flood_result(flooder)
    server.kill()  # at once: no graceful wait for the builds and evaluations the flood left running
    report = {"quiet": quiet, "flooded": flooded, "flood": flood, "load_average": round(os.getloadavg()[0], 1)}
    print("starvation:", json.dumps(report))
    if os.environ.get("DICELAB_LOAD_REPORT"):
        with open(os.environ["DICELAB_LOAD_REPORT"], "a") as f:
            f.write(json.dumps({"test": "starvation", **report}) + "\n")

    codes = flood["codes"]
    for kind in ("healthz", "static", "explorer", "create"):  # the flood ran (a build may outlast it), no timeout
        assert codes.get(f"{kind} sent", 0) > 0, report
        assert f"{kind} timeout" not in codes, report
    assert not [c for c in codes if c[-3:].startswith("5") and not c.endswith("503")], report  # no 500
    assert flooded["move_codes"].get("200", 0) >= quiet["moves"] * FLOOD_S / QUIET_S / 3, report  # pace kept
    assert flooded["rtt_p50"] <= 5 * quiet["rtt_p50"] + 100.0, report
    if os.environ.get("DICELAB_LOAD_STRICT") == "1":  # the speed target: on a quiet machine only
        assert flooded["rtt_p95"] < STRICT_P95_MS, report


@pytest.mark.parametrize("module", ["dicelab.pig.solver", "dicelab.pig.levels", "dicelab.pig.evaluation",
                                    "dicelab.hog.solver", "dicelab.hog.levels", "dicelab.supersix.solver",
                                    "dicelab.simpig.solver"])
def test_the_solvers_a_light_build_runs_release_the_gil(module):
    """A light bot build runs in a thread of the server (``dicelab.web.builds``): a compiled kernel
    that kept the GIL would stop every request for the length of the solve (issue 23: Pig's solver
    did). Every numba kernel of these modules is compiled with ``nogil``."""
    import importlib

    from numba.core.registry import CPUDispatcher

    mod = importlib.import_module(module)
    kernels = {name: f for name, f in vars(mod).items() if isinstance(f, CPUDispatcher) and f.__module__ == module}
    assert kernels, f"{module} has no numba kernels"
    kept = sorted(name for name, f in kernels.items() if not f.targetoptions.get("nogil"))
    assert not kept, f"{module}: {kept} keep the GIL"

"""``dicelab pig`` commands of the strategy lab: eval, best-response, simulate, tournament.

They are added to the same ``pig`` command group as ``solve``, ``query`` and ``plot``.
"""

from __future__ import annotations

from dicelab.cli.pig import app  # noqa: F401  (commands below register on this group)

"""Game rules as frozen dataclasses, outcome distributions and engines: one module per game.

Nothing in this package imports from :mod:`dicelab.solvers`.
"""

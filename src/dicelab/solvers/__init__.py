"""Exact algorithms, one module per game: optimal play, evaluation, best responses, equilibria.

Solvers import rules from :mod:`dicelab.games`; nothing here imports the CLI or the web app.
"""

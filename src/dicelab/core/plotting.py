"""Figures (matplotlib with the Agg backend, so they render without a screen)."""

import sys

import matplotlib

if "matplotlib.pyplot" not in sys.modules:  # a notebook that already shows figures keeps its backend
    matplotlib.use("Agg")

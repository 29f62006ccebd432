"""Figures (matplotlib with the Agg backend, so they render without a screen)."""

import matplotlib

matplotlib.use("Agg")

"""Model-free learning agents (Q-learning) for games too large or too hidden to solve exactly."""

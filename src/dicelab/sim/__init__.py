"""Monte Carlo simulation, statistics and tournaments."""

"""Scoring: small pure functions, each taking time as an argument (never reading a clock).
Each docstring states its formula, its source seed and which clock it uses."""

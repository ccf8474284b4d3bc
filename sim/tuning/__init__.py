"""Tuning a strategy's parameters by self-play (SPSA): the search, one iteration, and a whole tuning run."""

"""Reading finished runs: the notebook API (:mod:`~canasta_sim.analysis.notebook`) and the report's sections
(:mod:`~canasta_sim.analysis.sections`).

Typical use, with the directory of a finished run::

    from canasta_sim.analysis import load_run, summarize

    run = load_run("results/example")
    summarize(run)
"""

from canasta_sim.analysis.notebook import (
    LoadedRun,
    cross_table,
    entrants_of,
    label_teams,
    load_run,
    matchmaking,
    paired_results,
    ratings,
    strategy_names,
    summarize,
    summary_rows,
    with_strategy_names,
)

__all__ = [
    "LoadedRun", "cross_table", "entrants_of", "label_teams", "load_run", "matchmaking", "paired_results", "ratings",
    "strategy_names", "summarize", "summary_rows", "with_strategy_names",
]

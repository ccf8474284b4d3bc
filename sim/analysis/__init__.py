"""Reading finished runs: the notebook API (:mod:`~canasta_sim.analysis.notebook`) and the report's sections
(:mod:`~canasta_sim.analysis.sections`).

Typical use, with the directory of a finished run::

    from canasta_sim.analysis import load_run, summarize

    run = load_run("results/example")
    summarize(run)
"""

# The package's surface is the notebook API, imported whole: its names are listed once, in notebook's __all__.
from canasta_sim.analysis import notebook
from canasta_sim.analysis.notebook import *  # noqa: F403

__all__ = list(notebook.__all__)

"""The rules of one game and the loop that plays it: the only folder that is compiled.

Installing compiles the modules of the game's hot loop with Cython from these same ``.py`` files;
:mod:`canasta_sim.core._compiled.accelerator` keeps their sources as the fallback, so the first thing
this package does is tell it where they are.
"""

from canasta_sim.core._compiled.accelerator import use_sources_where_needed

use_sources_where_needed(__name__, __path__[0])

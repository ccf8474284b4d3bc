"""The command-line commands, one module each; :mod:`sim.cli` assembles them."""

"""The command-line commands, one module each; :mod:`canasta_sim.cli` assembles them."""

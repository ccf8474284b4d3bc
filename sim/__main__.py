"""``python -m canasta_sim`` runs the ``canasta-sim`` command line."""

from canasta_sim.cli import main

if __name__ == "__main__":
    main()

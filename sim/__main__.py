"""``python -m sim`` runs the ``canasta-sim`` command line."""

from sim.cli import main

if __name__ == "__main__":
    main()

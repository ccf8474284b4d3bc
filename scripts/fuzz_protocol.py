"""Fuzz the bot protocol's readers with many more generated inputs than the suite tries.

``python scripts/fuzz_protocol.py [--examples 5000] [--property NAME ...] [--seed 0]`` (about seven minutes at the
default on a busy machine; the server, move-text and dispatch properties take most of it) runs each property of
``tests/protocol_fuzzing.py`` with hypothesis, ``--examples`` inputs each:

* ``move-text``: the compiled move-text reader and the general one agree on any text, and what parses round-trips;
* ``record-text``: the text of any record the readers can make reads back as that record;
* ``reply-line``: the arbiter reads any line a bot writes as a message or a ``ProtocolError``, an answer or a
  ``ProtocolError``, and answers a ``check`` with a message it can write;
* ``dispatch``: a shared bot process hands any line to its game or charges it as ``malformed``, never raising;
* ``server``: the bot server answers any line it reads (an ``error`` for one it cannot read) and goes on.

The inputs are drawn from ``--seed``, so a campaign is rerun exactly by its seed (a new seed tries new inputs).  It
prints each property's examples and seconds, and exits 1 with the falsifying input of the first property broken
(hypothesis shrinks it first), else 0.  The suite runs the same properties with a bounded number of examples
(``tests/plugins/test_protocol_properties.py``).  Set ``CANASTA_SIM_PURE_PYTHON=1`` to fuzz the plain-Python build.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from tests.protocol_fuzzing import PROPERTIES, with_examples  # noqa: E402


def fuzz(name: str, examples: int, campaign_seed: int) -> float:
    """Run property ``name`` on ``examples`` inputs drawn from ``campaign_seed``; the seconds it took.

    :raises AssertionError: (or what the property raised) for the first input that broke it, shrunk.
    """
    check, arguments, _ = PROPERTIES[name]
    run = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                   suppress_health_check=list(HealthCheck))(seed(campaign_seed)(with_examples(name, given(*arguments)(
                       check))))
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Entry point: fuzz the properties asked for (all by default); 1 when one breaks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000, help="inputs per property (default 5000)")
    parser.add_argument("--property", action="append", choices=sorted(PROPERTIES), dest="properties",
                        help="a property to fuzz (repeatable; default: all)")
    parser.add_argument("--seed", type=int, default=0, help="the campaign's seed (default 0)")
    options = parser.parse_args(argv)
    if options.examples < 1:
        parser.error(f"--examples must be at least 1; got {options.examples}")
    for name in options.properties or sorted(PROPERTIES):
        try:
            seconds = fuzz(name, options.examples, options.seed)
        except Exception as error:  # noqa: BLE001 - what broke the property is the report
            print(f"{name}: broken (seed {options.seed}): {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        print(f"{name}: held on {options.examples} inputs in {seconds:.1f} s (seed {options.seed})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

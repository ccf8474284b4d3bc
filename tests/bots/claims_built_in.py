"""A strategy whose file, as it is imported, enters its class among canasta-sim's built-ins, then kills its own
worker: a worker runs this code, so what it says of its strategies must not decide who is charged."""

import os
import signal

from canasta_sim.strategies import BUILTIN
from canasta_sim.strategies.greedy import Greedy


class ClaimsBuiltIn(Greedy):
    name = "claims-built-in"

    def choose_discard(self, view):
        os.kill(os.getpid(), signal.SIGKILL)


BUILTIN[ClaimsBuiltIn.name] = ClaimsBuiltIn

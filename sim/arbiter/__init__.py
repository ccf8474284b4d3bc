"""The arbiter's instruments: what the engine needs to judge untrusted strategy code, and nothing of the game loop.

* :mod:`~canasta_sim.arbiter.clock`: the decision clock and strategies' tracebacks;
* :mod:`~canasta_sim.arbiter.monitor`: the shared-memory record of the call under way, for the supervisor;
* :mod:`~canasta_sim.arbiter.fingerprint`: the code watch (monkeypatching) and which strategies are trusted
  (the game's fingerprint, which finds tampering with the game's objects, reads the hand state: it is the
  core's, :mod:`canasta_sim.core.fingerprint`);
* :mod:`~canasta_sim.arbiter.interpreter`: the watch over the interpreter's settings (the recursion limit, trace and
  profile functions, signal handlers, ``builtins``...) that strategy code could change for every later call.

The engine (:mod:`canasta_sim.core.engine`) calls strategy code, which is untrusted: whatever it raises,
however long it runs and whatever it changes is the seat's failure.
"""

from canasta_sim.arbiter.clock import (
    MAX_TIME_LIMIT,
    STARTUP_ALLOWANCE,
    TRACEBACK_LIMIT,
    ArbiterSignal,
    DecisionClock,
    DecisionTimeout,
    strategy_traceback,
    users_interrupt_passes,
)
from canasta_sim.arbiter.fingerprint import (
    CodeWatch,
    defined_in,
    is_trusted,
    is_trusted_class,
    trust_builtin_strategies,
)
from canasta_sim.arbiter.interpreter import InterpreterWatch
from canasta_sim.arbiter.monitor import (
    CALL_CODES,
    DECISIONS,
    MONITOR_CALL,
    MONITOR_GAME,
    MONITOR_SIZE,
    MONITOR_START,
    decode_call,
    overrun,
)

__all__ = [
    "CALL_CODES",
    "DECISIONS",
    "MONITOR_CALL",
    "MONITOR_GAME",
    "MONITOR_SIZE",
    "MONITOR_START",
    "MAX_TIME_LIMIT",
    "STARTUP_ALLOWANCE",
    "TRACEBACK_LIMIT",
    "ArbiterSignal",
    "CodeWatch",
    "DecisionClock",
    "DecisionTimeout",
    "InterpreterWatch",
    "decode_call",
    "defined_in",
    "is_trusted",
    "is_trusted_class",
    "overrun",
    "strategy_traceback",
    "trust_builtin_strategies",
    "users_interrupt_passes",
]

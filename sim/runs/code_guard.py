"""The check after every game that strategy code rebound none of canasta-sim's or a strategy's code.

``run`` (:class:`canasta_sim.runs.runner.ChunkPlayer`), ``compare`` and ``tune`` play their games in worker
processes that play many games each, so a strategy that monkeypatches the engine, or its opponent's
class, would change every later game of its worker.  :class:`CodeGuard` is the one piece all three use:
after each game it asks a :class:`~canasta_sim.arbiter.CodeWatch` what was rebound (which puts the
originals back) and, if anything was, turns the game's outcome into a failure of reason ``tampering``,
charged to the strategy whose file defined the replacement (docs/fairness.md).  A game ended by the machine
refusing a bot seat's process, or by a built-in's call running out of memory, is no seat's failure: the guard raises
the refusal, which stops the command.

The other checks against tampering (the game's fingerprint, compared before every move the engine
applies and after every hook) are the engine's own: :func:`canasta_sim.core.engine.play_game` makes them
wherever a game is played, whatever command plays it.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence

from canasta_sim.arbiter import CodeWatch, defined_in, is_trusted_class
from canasta_sim.core.engine import GameResult, first_dealer
from canasta_sim.errors import MachineRefusal, StrategyError
from canasta_sim.plugins.loader import LoadedStrategy, machines_doing
from canasta_sim.plugins.specs import machine_refusal

__all__ = ["CodeGuard", "tampering_failure"]

NAMES_SHOWN = 5
"""Rebound names the one-line message lists."""


class CodeGuard:
    """Checks after each game that no code was rebound during it, putting back what was.

    :param strategies: the strategies whose classes (and their bases) are watched, with canasta-sim's
        engine modules; more can be added with :meth:`add` before the games that play them.
    """

    def __init__(self, strategies: Iterable[LoadedStrategy] = ()) -> None:
        self.watch: CodeWatch | None = None
        """``None`` while every strategy watched is one of canasta-sim's built-ins: no code but the project's has run,
        so nothing can have been rebound, and the check costs nothing (as the fingerprint skips their calls)."""
        self._classes: dict[type, None] = {}
        self.add(strategies)

    def add(self, strategies: Iterable[LoadedStrategy]) -> None:
        """Watch these strategies' classes too (a no-op for classes already watched)."""
        new = [strategy.cls for strategy in strategies if strategy.cls not in self._classes]
        if not new:
            return
        self._classes.update(dict.fromkeys(new))
        if self.watch is not None:
            self.watch.add(new)
        elif not all(map(is_trusted_class, self._classes)):
            # The first strategy not built in: watch from now on, built-ins' classes too (it may rebind them).
            self.watch = CodeWatch(list(self._classes))

    def checked(self, outcome: GameResult | StrategyError, sides: Sequence[LoadedStrategy],
                game_seed: int) -> GameResult | StrategyError:
        """The game's ``outcome``, or its ``tampering`` failure when code was rebound during it (now put back).

        :param sides: the strategies of side A (seats 0 and 2) and side B (seats 1 and 3).
        :raises MachineRefusal: when the failure is the machine refusing a bot seat's process (a low ``ulimit -u``
            or ``ulimit -n``), or a built-in's call running out of memory: no seat's failure to record, so the command
            stops instead.
        """
        refusal = machine_refusal(outcome)
        if refusal is not None:
            raise refusal
        changed = () if self.watch is None else self.watch.check()
        if changed:
            return tampering_failure(sides, game_seed, changed)
        if isinstance(outcome, StrategyError) and outcome.reason == "exception":
            out_of_memory = machines_doing(outcome)
            if out_of_memory is not None:
                # A built-in keeps little: out of memory, it met the worker's limit, perhaps because a strategy in
                # the same process holds the memory, which a forfeit of the built-in's side would reward.
                raise MachineRefusal(f"{out_of_memory} (--memory-limit, where given, is the worker's)")
        return outcome


def tampering_failure(sides: Sequence[LoadedStrategy], game_seed: int,
                      changed: Sequence[tuple[str, object]]) -> StrategyError:
    """The failure of a game during which strategy code rebound the ``changed`` names (``CodeWatch.check``).

    It is charged to the side whose strategy's file defined a replacement; when no replacement names its
    file (a lambda from elsewhere, a built-in), to the first strategy not built in, saying so.  The seat
    is that side's first (0 or 1): the watch runs between games and cannot tell which call did it.
    """
    specs = (sides[0].spec, sides[1].spec)
    classes = {strategy.spec: strategy.cls for strategy in sides}
    suspects = [spec for spec in dict.fromkeys(specs) if not is_trusted_class(classes[spec])]
    files = {spec: inspect.getsourcefile(classes[spec]) for spec in suspects}
    culprit = next((spec for _, value in changed for spec in suspects if defined_in(value) == files[spec]), None)
    note = ""
    if culprit is None:
        culprit = suspects[0] if suspects else specs[0]
        if len(suspects) != 1:
            note = " (which strategy did it cannot be told in-process; charged to the first not built in)"
    names = ", ".join(name for name, _ in changed[:NAMES_SHOWN])
    error = StrategyError(
        f"changed canasta-sim's or a strategy's code during the game ({names}), put back as it was{note}",
        spec=culprit, seat=specs.index(culprit), game_seed=game_seed, decision="game", reason="tampering",
    )
    # The first dealer is drawn first from the deck generator (engine.play_game, R2.2).
    error.first_dealer = first_dealer(game_seed)
    return error

"""A game a person played with ``canasta-sim play``, as a strategy that plays it again: the ``played:`` spec form.

A game is a pure function of its rules, seed and strategies, and a person is no function: what makes a played game
one again is the person's decisions, recorded in order.  ``canasta-sim play --save DIR`` writes the game as a run of
one game whose side A plays the spec ``played:PARTNER:moves=MOVES`` (:func:`played_spec`): in South's seat it makes
the person's decisions one after another, in North's it is the partner's own strategy, built with North's own
generator, so that it decides as it did.  ``canasta-sim replay DIR 0`` then plays the game again, narrated, and
checks that it ends at the scores recorded.

``MOVES`` holds one token per decision, ``/`` between them, in a form a spec can carry (no ``:`` or ``,``): a move in
the notation of :mod:`canasta_sim.core.moves` with its verb as a letter (``d`` draw, ``t`` take, ``m`` meld, ``x``
discard, ``s`` stop), ``.`` for a space and ``+`` for a colon (``m.K.K.K;8.8.2``, ``x.4``); ``-`` for no more melds;
``y`` and ``n`` for the answers to "ask your partner?" and "may I go out?".  ``PARTNER`` is the partner's spec with
``%``-escapes for the characters a spec reserves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote, unquote

from canasta_sim.core.moves import Discard, Draw, Meld, Move, Stop, TakePile, parse_move
from canasta_sim.core.strategy import Strategy
from canasta_sim.errors import MoveParseError, StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.specs import file_spec_parts

__all__ = ["PERSON_SEAT", "PlayedBack", "decision_token", "played_spec", "played_strategy_class", "seat_label",
           "spec_shown"]

PERSON_SEAT = 0
"""The seat the person plays in ``canasta-sim play``: South."""

_VERBS = {"draw": "d", "take": "t", "meld": "m", "discard": "x", "stop": "s"}
_WORDS = {letter: verb for verb, letter in _VERBS.items()}
_ANSWERS = {True: "y", False: "n"}


def decision_token(decision: Move | bool | None) -> str:
    """One decision as ``MOVES`` records it: a move, an answer (``True``/``False``) or no more melds (``None``)."""
    if decision is None:
        return "-"
    if isinstance(decision, bool):
        return _ANSWERS[decision]
    verb, _, rest = str(decision).partition(" ")
    text = _VERBS[verb] + ("." + rest if rest else "")
    return text.replace("; ", ";").replace(" ", ".").replace(":", "+")


def played_spec(partner: str, decisions: Sequence[str]) -> str:
    """The spec of side A of a played game: ``partner``'s spec and the person's decision tokens.

    A partner loaded from a file named relative to the working directory is named by its absolute path, so that
    the game replays from any directory (as a run records a file spec's path)."""
    partner = partner.strip()
    parts = file_spec_parts(partner)
    if parts is not None and not Path(parts[0]).expanduser().is_absolute():
        partner = partner.replace(parts[0], str(Path(parts[0]).expanduser().resolve()), 1)
    return f"played:{quote(partner, safe='')}:moves={'/'.join(decisions)}"


def _decision(token: str) -> Move | bool | None:
    if token == "-":
        return None
    if token in ("y", "n"):
        return token == "y"
    verb = _WORDS.get(token[:1])
    if verb is None or token[1:2] not in ("", "."):
        raise StrategyLoadError(f"played game: {token!r} is no recorded decision; see canasta_sim.terminal.played")
    text = verb + " " + token[2:].replace("+", ":").replace(";", "; ").replace(".", " ")
    try:
        return parse_move(text)
    except MoveParseError as error:
        raise StrategyLoadError(f"played game: decision {token!r}: {error}") from None


class PlayedBack(Strategy):
    """The person's seat of a played game: each decision is the next one recorded (:data:`decisions`)."""

    name = "played"
    version = 1
    description = "A game a person played at the terminal, played again decision by decision."
    decisions: tuple = ()
    """The recorded decisions, in order, as :func:`_decision` reads them from the spec."""
    seat_labels: dict = {}
    """Who plays each seat of side A, for a narration's header (:func:`seat_label`)."""

    def __init__(self, rng: random.Random, **parameters) -> None:
        super().__init__(rng, **parameters)
        self._next = 0

    def _take(self, kinds: tuple[type, ...], what: str):
        if self._next >= len(self.decisions):
            raise ValueError(f"the recorded game has no more decisions; the engine asks for {what}")
        decision = self.decisions[self._next]
        self._next += 1
        if not isinstance(decision, kinds):
            raise ValueError(f"decision {self._next} of the recorded game is {decision!r}, but the engine asks for "
                             f"{what}: the game was recorded under other rules or by another engine")
        return decision

    def choose_acquire(self, view) -> Move:
        """The recorded draw, take or stop."""
        return self._take((Draw, TakePile, Stop), "a draw or a take")

    def choose_ask(self, view) -> bool:
        """The recorded choice to ask the partner first, or not."""
        return self._take((bool,), "whether to ask the partner")

    def answer_go_out(self, view) -> bool:
        """The recorded answer to the partner's question."""
        return self._take((bool,), "an answer to the partner")

    def choose_meld(self, view) -> Meld | None:
        """The recorded meld, or the end of melding."""
        return self._take((Meld, type(None)), "a meld or the end of melding")

    def choose_discard(self, view) -> Discard:
        """The recorded discard."""
        return self._take((Discard,), "a discard")


def played_strategy_class(target: str, parameters: tuple[tuple[str, str], ...] = ()) -> type[Strategy]:
    """Resolve the part of a ``played:`` spec after ``played:`` (the partner's escaped spec) and its ``moves``.

    The class built answers for both seats of side A: in South's seat (or with a plain generator, which names no
    seat) a :class:`PlayedBack`; in North's it returns the partner's own strategy, built with North's generator.

    :raises StrategyLoadError: for a partner that does not load, or a ``moves`` that is not a recorded game.
    """
    extra = sorted(key for key, _ in parameters if key != "moves")
    if not target or extra or len(parameters) != 1:
        raise StrategyLoadError("a played game's spec is played:PARTNER:moves=MOVES, written by canasta-sim play "
                                "--save" + (f"; it has no parameter {extra[0]!r}" if extra else ""))
    partner = load_strategy(unquote(target))
    moves = parameters[0][1]
    decisions = tuple(_decision(token) for token in moves.split("/")) if moves else ()

    class Played(PlayedBack):
        # Named after both seats, so that a replay's header says who sat North.
        name = f"you+{partner.cls.name}"
        version = partner.cls.version

        def __new__(cls, rng: random.Random, **parameters):
            if getattr(rng, "seat", None) not in (None, PERSON_SEAT):
                return partner(rng)  # not an instance of cls: Python then calls no __init__ on it
            return super().__new__(cls)

    Played.decisions = decisions
    Played.seat_labels = {PERSON_SEAT: "you (played back)", PERSON_SEAT + 2: partner.label}
    Played.__qualname__ = "PlayedBack"
    return Played


def seat_label(loaded, seat: int) -> str:
    """Who sat in ``seat`` for a narration's header: a played game's person or partner, else the strategy's
    ``name@version``.  ``loaded`` is a :class:`~canasta_sim.plugins.loader.LoadedStrategy`."""
    return getattr(loaded.cls, "seat_labels", {}).get(seat, loaded.label)


def spec_shown(spec: str) -> str:
    """A spec as a line of text shows it: a played game's without its decisions, which fill a screen."""
    if not spec.startswith("played:") or ":moves=" not in spec:
        return spec
    partner, _, moves = spec.removeprefix("played:").partition(":moves=")
    return f"played:{partner}:moves=... ({len(moves.split('/')) if moves else 0} decisions)"

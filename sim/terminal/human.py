"""A person at the terminal, as a strategy: the screen, the prompts and the reading of what they type.

:class:`TerminalPlayer` reads through :func:`click.prompt` and writes through
:func:`click.echo`, so ``canasta-sim play`` works in a terminal and tests can
drive it with scripted standard input.  Each prompt lists the legal choices;
a choice may be typed by its number (the discard prompt lists cards, and a
number typed there is a card's rank) or in the move notation of
:mod:`canasta_sim.core.moves` (``draw``, ``take 7 7``, ``K K K; 8 8 2``, ``discard 4``).
Input that is not understood or not legal gets a message naming what is
accepted, and the prompt again.  End of input, Ctrl-C or ``quit`` raise
:class:`PlayerQuit`.
"""

from __future__ import annotations

import errno
import itertools
import os
import random
import select
import sys
from collections.abc import Callable, Sequence

import click

from canasta_sim.arbiter import trust_builtin_strategies
from canasta_sim.core.cards import KIND_COUNT, counts_text
from canasta_sim.core.melds import CANASTA_SIZE, is_canasta, meld_value
from canasta_sim.core.moves import Discard, Draw, Meld, Move, Stop, TakePile, parse_move
from canasta_sim.core.scoring import HandResult
from canasta_sim.core.state import HandState
from canasta_sim.core.strategy import Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import IllegalMoveError, MoveParseError, UserInterrupt
from canasta_sim.terminal.narrate import SEAT_NAMES, Narrator, cards_text
from canasta_sim.terminal.played import decision_token

__all__ = ["PausingNarrator", "PlayerQuit", "TerminalPlayer", "screen_lines"]

_RULE = "-" * 72
_MELD_CHOICES = 9
_COMMON_HELP = "Also: 'show' shows the table again, 'help' lists what is accepted, 'quit' ends the game."
_YES = ("y", "yes")
_NO = ("n", "no")


class PlayerQuit(UserInterrupt):
    """The person ended the game: end of input, Ctrl-C or ``quit``.

    A :class:`~canasta_sim.errors.UserInterrupt`, the one exception the engine's plugin boundary lets
    through (it turns everything else, ``KeyboardInterrupt`` included, into the seat's
    :class:`~canasta_sim.errors.StrategyError`), so it reaches the command.
    """


class TerminalPlayer(Strategy):
    """Asks the person at the terminal for every decision of one seat.

    :param rng: unused (a person needs no generator), kept for the strategy interface.
    :param narrator: the game's narrator, whose card ids give the screen its suits; without one
        the screen shows ranks only.
    """

    name = "human"
    version = 1
    description = "A person playing at the terminal."
    keeps_own_clock = True
    """Not timed by the engine: ``play --time-limit`` binds the bots at the table, never the person at a prompt."""

    def __init__(self, rng: random.Random, *, narrator: Narrator | None = None, **parameters) -> None:
        super().__init__(rng, **parameters)
        self.narrator = narrator
        self._shown_turn: tuple[int, int] | None = None
        self._shown_lines: list[str] = []
        self.decisions: list[str] = []
        """Every decision made so far, in order, as tokens of a played game's spec
        (:func:`~canasta_sim.terminal.played.played_spec`): what ``play --save`` saves."""

    # ------------------------------------------------------------ decisions

    def choose_acquire(self, view: SeatView) -> Move:
        """Show the table and ask how to begin the turn: draw, take the pile or (empty stock) stop."""
        self._show(view)
        options = list(view.legal_acquires())
        accepted = "'draw' or 'take' with the cards to meld with the top card (e.g. 'take 7 7')"
        if view.can(Stop()):  # only with an empty stock: offered where it is a choice, and said what it does
            accepted = ("'take' with the cards to meld with the top card (e.g. 'take 7 7'), or 'stop' to leave the "
                        "pile, which ends the hand (the stock is empty, R13.3)")
        return self._noted(self._choose(view, "Begin your turn", options, parse_move, (Draw, TakePile, Stop), accepted))

    def choose_ask(self, view: SeatView) -> bool:
        """When going out is possible, offer to ask the partner first (R12.5)."""
        if not view.can_go_out():
            return self._noted(False)
        partner = SEAT_NAMES[view.partner]
        self._show(view)
        click.echo(f'You can go out this turn. Ask {partner} "May I go out?" first (R12.5)?')
        if view.rules.ask_partner == "mandatory":
            click.echo("Under ask_partner=mandatory you may go out only after a yes.")
        return self._noted(self._yes_no(view, "Ask your partner? (yes/no)"))

    def answer_go_out(self, view: SeatView) -> bool:
        """The partner asks to go out: yes obliges them to go out now, no forbids it this turn (R12.5)."""
        self._show(view, force=True)
        partner = SEAT_NAMES[view.partner]
        click.echo(f'{partner} asks you: "May I go out?" A yes obliges {partner} to go out now; a no forbids it '
                   "this turn (R12.5).")
        return self._noted(self._yes_no(view, "Your answer (yes/no)"))

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Offer melds until the person types ``done``."""
        self._show(view)
        options = _meld_suggestions(view)
        if not options:
            click.echo("No meld is possible now.")
            return self._noted(None)
        accepted = ("groups of cards separated by ';' (e.g. 'K K K; 8 8 2'; '7:JK' adds a joker to "
                    "your sevens), or 'done' to stop melding")
        while True:
            move = self._choose(view, "Meld, or type 'done'", options, _parse_meld, (Meld,), accepted, allow_done=True)
            if move is not None:
                return self._noted(move)
            if any(True for _ in view.legal_discards()) or view.can(Stop()):
                return self._noted(None)
            click.echo("You cannot stop melding yet: no discard would be legal. After your partner's yes you "
                       "must go out this turn (R12.5); meld until at most one card is left.")

    def choose_discard(self, view: SeatView) -> Discard:
        """Ask which card to discard (R6.1)."""
        options = list(view.legal_discards())
        accepted = "the card (e.g. '4', 'K', '10', 'JK', '3b'; suits do not matter)"
        # Listed by card, not numbered: a number typed here is a card's rank ('4' is a four, as 'discard 4'), which
        # a numbered list would read as a choice and discard another card.
        return self._noted(
            self._choose(view, "Discard a card", options, _parse_discard, (Discard,), accepted, numbered=False))

    def _noted(self, decision):
        self.decisions.append(decision_token(decision))
        return decision

    # ------------------------------------------------------------ input

    def _choose(
        self,
        view: SeatView,
        prompt: str,
        options: Sequence[Move],
        parse: Callable[[str], Move],
        types: tuple[type, ...],
        accepted: str,
        *,
        allow_done: bool = False,
        numbered: bool = True,
    ) -> Move | None:
        if numbered:
            accepted = "a number or " + accepted
        self._list_choices(prompt, options, accepted, numbered=numbered)
        while True:
            text = self._line().strip()
            lowered = text.lower()
            if not text:
                click.echo(f"Please type {accepted}.")
                continue
            handled = self._handled(view, lowered, accepted)
            if handled:
                if handled == "show":  # the table again, then what may be typed now, not only far above it
                    self._list_choices(prompt, options, accepted, numbered=numbered)
                continue
            if lowered == "done":
                if allow_done:
                    return None
                # Typed at the discard prompt once melding is over (or skipped: "No meld is possible now"), it read
                # "move 'discard done': 'done' is not a card", a move nobody typed.
                click.echo(f"'done' ends melding, and melding is not what is asked now. Type {accepted}.")
                continue
            if lowered == "ask":  # the notation's move (rules.md §16), which this screen asks about by itself
                click.echo("'ask' is not a choice now: right after you draw or take the pile, when you can go out, "
                           f"you are asked whether to ask your partner (R12.5). Type {accepted}.")
                continue
            if numbered and lowered.isdigit():
                number = int(lowered)
                if 1 <= number <= len(options):
                    return options[number - 1]
                numbers = "1" if len(options) == 1 else f"a number from 1 to {len(options)}"  # not "from 1 to 1"
                click.echo(f"There is no choice {number}; type {numbers} or {accepted.removeprefix('a number or ')}.")
                continue
            try:
                move = parse(text)
            except MoveParseError as error:
                # A text that is no move at all gets the forms this prompt takes, not the notation's every form
                # (ask, answer, meld ... at a prompt where none of them is a choice); a bad card keeps its reason.
                reason = f"{text!r}" if f"move {text!r} is not understood" in str(error) else str(error)
                click.echo(f"Not understood: {reason}. Type {accepted}.")
                continue
            if not isinstance(move, types):
                click.echo(f"'{move}' is not a choice now. Type {accepted}.")
                continue
            try:
                view.verify(move)
            except IllegalMoveError as error:
                click.echo(f"Not allowed: {error.rule}: {error.reason}.")
                continue
            return move

    @staticmethod
    def _list_choices(prompt: str, options: Sequence[Move], accepted: str, *, numbered: bool) -> None:
        click.echo(f"{prompt}. Type {accepted}:")
        if numbered:
            for number, move in enumerate(options, 1):
                click.echo(f"  {number}. {move}")
        else:  # each choice by what is typed for it: 'discard 10' is listed as '10'
            click.echo("  " + ", ".join(str(move).split(" ", 1)[-1] for move in options))

    def _yes_no(self, view: SeatView, prompt: str) -> bool:
        click.echo(prompt + ":")
        while True:
            lowered = self._line().strip().lower()
            handled = self._handled(view, lowered, "yes or no")
            if handled == "show":
                click.echo(prompt + ":")
            if handled:
                continue
            if lowered in _YES:
                return True
            if lowered in _NO:
                return False
            click.echo("Please type yes or no (y/n).")

    def _handled(self, view: SeatView, lowered: str, accepted: str) -> str:
        # Words that work at every prompt: the one handled ('help' or 'show'), or '' for anything else.
        if lowered in ("quit", "exit"):
            raise PlayerQuit
        if lowered in ("help", "?"):
            click.echo(f"Type {accepted}. {_COMMON_HELP}")
            return "help"
        if lowered in ("show", "table"):
            self._show(view, force=True)
            return "show"
        return ""

    def _line(self) -> str:
        # The person's Ctrl-C is theirs, not a strategy's failure: the engine lets only PlayerQuit through.
        try:
            return self._read()
        except KeyboardInterrupt:
            raise PlayerQuit from None

    @staticmethod
    def _read() -> str:
        try:
            return click.prompt("", default="", show_default=False, prompt_suffix=prompted_while_waiting("> "))
        except click.Abort:  # click turns end of input and Ctrl-C into Abort
            raise PlayerQuit from None

    def _show(self, view: SeatView, *, force: bool = False) -> None:
        # The whole screen once a turn (or on request); after that only the lines that changed: the hand and the
        # stock after a draw, the pile after a take, a side's melds with its points on the table after a meld.
        turn = (view.hand_number, view.turn_count)
        lines = screen_lines(view, self.narrator)
        if force or turn != self._shown_turn:
            self._shown_turn = turn
            shown = lines
        else:
            shown = [line for line, before in zip(lines, self._shown_lines, strict=True) if line != before]
        self._shown_lines = lines
        for line in shown:
            click.echo(line)


def prompted_while_waiting(prompt: str) -> str:
    """Write ``prompt`` and wait, without polling on a timer, until the person at the terminal has typed a line or
    the reader of standard output has gone (``canasta-sim play | head -3``), where the read alone waited for one more
    answer, the closed pipe seen only at the next write; return what is left to prompt (``""``, or ``prompt`` where
    standard input is no terminal of this process's, and the read is left to wait).

    :raises BrokenPipeError: when the reader has gone, as the next write would, so that the command ends as quietly.
    """
    # A terminal hands over one line per read, so that no line typed waits in sys.stdin's buffer, unseen by poll:
    # only the process's own terminal is waited on.
    try:
        typing, output = sys.stdin.fileno(), sys.stdout.fileno()
        terminal = sys.stdin is sys.__stdin__ and sys.stdout is sys.__stdout__ and os.isatty(typing)
    except (AttributeError, OSError, ValueError):  # no standard input or output at all, or one of a test's
        return prompt
    if not terminal or not hasattr(select, "poll"):  # (not POSIX: there the closed pipe is seen at the next write)
        return prompt
    click.echo(prompt, nl=False)
    poller = select.poll()
    poller.register(typing, select.POLLIN)
    poller.register(output, 0)  # errors only: a pipe's write end reports POLLERR once its reader has closed it
    if dict(poller.poll()).get(output, 0) & (select.POLLERR | select.POLLHUP):
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
    return ""


# canasta-sim's own player: the engine believes its keeps_own_clock, as it believes no strategy of a user's.
trust_builtin_strategies([TerminalPlayer])


class PausingNarrator(Narrator):
    """The narrator of ``canasta-sim play``: as :class:`~canasta_sim.terminal.narrate.Narrator`, and at each hand's end
    it waits for Enter, so that the person reads the hand's score table before the next deal and the bots' turns
    scroll it off the screen.  ``quit``, Ctrl-C or end of input there raise :class:`PlayerQuit`."""

    def on_hand_end(self, state: HandState, result: HandResult) -> None:
        """Narrate the hand's end and its scores, then wait for Enter."""
        super().on_hand_end(state, result)
        click.echo("The hand is over: press Enter to go on, or type 'quit'.")
        while True:
            try:
                typed = TerminalPlayer._read().strip().lower()
            except KeyboardInterrupt:
                raise PlayerQuit from None
            if typed in ("quit", "exit"):
                raise PlayerQuit
            if typed not in ("help", "?"):  # 'help' works at every prompt, as the docs say: here it went on
                return
            click.echo("Press Enter to go on to the next hand (or the game's end), or type 'quit' to end the game.")


def screen_lines(view: SeatView, narrator: Narrator | None = None) -> list[str]:
    """Return the screen: scores, both sides' melds and red 3s, the pile, the stock and the hand."""
    seat = view.seat
    cards = narrator.cards if narrator is not None else None
    a, b = view.scores
    lines = [
        _RULE,
        f"Hand {view.hand_number}, turn {view.turn_count}. Game score before this hand: A (South & North) {a}, "
        f"B (West & East) {b}; target {view.rules.target_score}.",
    ]
    for side in (0, 1):
        who = " & ".join(SEAT_NAMES[member] for member in (side, side + 2)) + (", yours" if side == view.side else "")
        melds = view.melds(side)
        if melds:
            parts = []
            for rank in sorted(melds, reverse=True):
                shown = cards_text(cards.melds[side][rank]) if cards is not None else counts_text(
                    _counts(rank, melds[rank]))
                naturals, jokers, deuces = melds[rank]
                if naturals + jokers + deuces >= CANASTA_SIZE:  # the kind decides the bonus, 500 or 300 (R11.2)
                    shown += " (mixed canasta)" if jokers + deuces else " (natural canasta)"
                parts.append(shown)
            meld_text = " | ".join(parts)
        else:
            meld_text = f"no meld yet (initial meld needs {view.initial_requirement(side)})"
        reds = view.red_threes[side] + view.red_threes[side + 2]
        if cards is not None:
            red_text = cards_text(cards.red_threes[side] + cards.red_threes[side + 2]) if reds else "-"
        else:
            red_text = str(reds)
        lines.append(f"Side {'AB'[side]} ({who}): {meld_text}. Red 3s: {red_text}.{_table_points(view, side)}")
    lines.append(_pile_line(view, cards))
    others = ", ".join(f"{SEAT_NAMES[other]} {view.hand_sizes[other]}" for other in range(4) if other != seat)
    lines.append(f"Stock: {view.stock_count}. Cards held: {others}.")
    hand = cards_text(cards.hands[seat]) if cards is not None else counts_text(view.hand)
    lines.append(f"Your hand ({sum(view.hand)}): {hand}")
    return lines


def _table_points(view: SeatView, side: int) -> str:
    """What the side's melds count so far this hand (R14.1a, R14.1b): card points and canasta bonuses, or nothing
    before it melds."""
    melds = view.melds(side)
    if not melds:
        return ""
    points = sum(meld_value(rank, *meld) for rank, meld in melds.items())
    rules = view.rules
    bonus = sum(rules.mixed_canasta_bonus if jokers + deuces else rules.natural_canasta_bonus
                for naturals, jokers, deuces in melds.values() if is_canasta(naturals, jokers, deuces))
    return f" On the table: {points + bonus} points (melds {points}, canastas {bonus})."


def _pile_line(view: SeatView, cards) -> str:
    if not view.pile_size:
        return "Pile: empty."
    top = cards_text(cards.pile[-1:]) if cards is not None else counts_text(_counts(view.pile_top, (1, 0, 0)))
    states = []
    if view.is_pile_blocked:
        states.append("blocked while that card is on top (R8.1a, R5.2)")
    if view.is_pile_frozen:
        states.append("frozen: taking it needs a natural pair (R8.1b)")
    elif view.is_pile_frozen_for(view.side):
        states.append("frozen for your side until it melds: taking it needs a natural pair (R8.1c)")
    state_text = "; " + "; ".join(states) if states else ""
    return f"Pile: {top} on top, {view.pile_size} card{'s' * (view.pile_size != 1)}{state_text}."


def _counts(rank: int, meld: Sequence[int]) -> list[int]:
    counts = [0] * KIND_COUNT
    counts[rank] += meld[0]
    counts[0] += meld[1]
    counts[1] += meld[2]
    return counts


def _meld_suggestions(view: SeatView) -> list[Meld]:
    """A few legal melds to pick by number: the way to go out first if there is one, then the largest."""
    suggestions: list[Meld] = []
    plan = view.going_out_plan()
    if plan is not None and plan[0] and view.partner_answer is not False:
        going_out = Meld(plan[0])
        if view.can(going_out):
            suggestions.append(going_out)
    found = list(itertools.islice(view.legal_melds(), 200))
    found.sort(key=lambda move: (-sum(len(group.cards) for group in move.groups), str(move)))
    for move in found:
        if len(suggestions) >= _MELD_CHOICES:
            break
        if move not in suggestions:
            suggestions.append(move)
    return suggestions


def _parse_meld(text: str) -> Move:
    return parse_move(text if text.lower().startswith("meld") else "meld " + text)


def _parse_discard(text: str) -> Move:
    return parse_move(text if text.lower().startswith("discard") else "discard " + text)


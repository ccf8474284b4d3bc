"""``pimc``: Perfect Information Monte Carlo search over expert play-outs.

At the decisions where the choice matters it samples the cards it cannot see, consistently with
everything its seat has seen (:func:`canasta_sim.core.search.sample_world`), plays every candidate out to
the end of the hand in each sampled world with a fast policy (:func:`canasta_sim.core.search.playout`), and
plays expert's own choice unless another candidate beats it with confidence.  Every candidate is
scored on the same sampled worlds and the same play-out generators (common random numbers), so the
paired differences between candidates are far less noisy than each average: another candidate is
played only when its mean difference to expert's choice exceeds ``confidence`` standard errors.

Decisions searched:

* **acquire**, when the pile can be taken: draw, expert's choice, and the legal takes laying the
  fewest hand cards, up to ``width`` candidates;
* **discard**: expert's ``width`` cheapest discards (its danger-plus-worth order);
* **melds** (with ``melds=1``, the default): expert's meld against laying nothing more this turn, when
  the turn does not go out: holding cards back keeps pairs for the pile and hides the hand, melding
  them saves their points from the penalty if an opponent goes out;
* **going out** (:meth:`Pimc.wants_to_go_out`, asked once a turn when the hand can be melded out):
  go out now, or play the turn on without going out;
* **answering** the partner's ask: yes or no, in worlds where the asker can go out (R12.5: with
  ``ask_partner_yes_forces_out`` the ask itself says so); should no sampled world fit, it answers as
  expert does.

Which melds to lay, the initial meld's cards and whether to ask follow expert's rules (this class extends
:class:`~canasta_sim.strategies.expert.Expert`, whose memory it keeps too).

**Evaluation.** A play-out lasts the rest of the searched turn and ``horizon`` more turns (default
12), or to the hand's end when that comes first or ``horizon`` is 0; the hand's score (R14), or at a
cut the static estimate of both sides' final scores
(:func:`canasta_sim.strategies.hand_estimate.estimate_scores`), gives both sides' running totals
after it.  The value of those totals for this seat's side is an estimated chance of winning the game:
1 or 0 when the hand reaches the target (R15.1) with a leader, 0.5 for a tie there, otherwise
``1 / (1 + exp(-1.7 * lead / spread))`` where ``lead`` is the side's lead in points less
``REQUIREMENT_WEIGHT`` times the difference of the sides' next initial minimums (R10.2: a higher
minimum costs tempo next hand), and ``spread = HAND_SPREAD * sqrt(hands_left)`` with ``hands_left =
1 + (target - leader's total) / POINTS_PER_HAND``.  Early in a game this is nearly linear in the
hand's point difference; near the target it values reaching it first above points.

**Play-outs.** With the default expert policy every seat of a play-out starts from the table's
memory of the hand (:class:`_PlayoutExpert`): expert remembers only public events, so the real
opponents remember exactly what the searcher's own expert memory holds, and the searched move itself
is fed to that memory as the table sees it.  A fresh expert would forget the discards and declined
piles its discard safety rests on, and play the world out unlike the real opponents.

**Screening.** Most decisions are not close: after the first ``screen`` worlds (default 24) no
candidate leads expert's choice at all.  Only when one leads it by more than :data:`SCREEN_LEAD`
(half a) standard error are the rest of the ``samples`` worlds (default 96) sampled, and the choice
is made on all of them; so the close decisions get four times the worlds.

**Sampling.** Worlds are weighted by what the other seats revealed (``avoid``, default 0.25): a seat
that discarded a natural rank, or drew while its side could have taken the pile with a pair of the
top card, since it last took the pile, is dealt a pair of that rank beyond its known cards in only
that fraction of the worlds (see :func:`canasta_sim.core.search.sample_world`).  Expert opponents keep
pairs and throw singles, so uniform worlds hand them pairs they seldom hold and make such ranks look
dangerous to discard; ``avoid=1`` is the uniform deal of pimc@1.

Parameters (``pimc:samples=32,policy=greedy``): ``samples`` the most sampled worlds per decision
(default 96); ``screen`` the worlds sampled first (default 24; 0, or ``screen >= samples``, samples all
of them at once); ``policy`` the play-out policy, ``expert``, ``greedy`` or ``random``; ``width`` the
most candidates searched at one decision (default 4); ``budget`` seconds per searched decision, 0 for none (the
default): when positive, worlds are sampled and played out until the budget is spent (at least one), ``samples`` and
``screen`` are ignored, and play then depends on the machine's speed, so a game is reproducible from
its seed only with ``budget=0``; ``confidence`` (0 to 4, default 1.0) how many standard errors a candidate
must lead expert's choice by to replace it (0: the best mean wins); ``avoid`` (0 to 1, default 0.25)
the weight of worlds in which a seat holds a pair of a rank it avoids (1: uniform); ``horizon`` the
turns a play-out lasts after the searched turn (default 12), 0 for the whole hand: a play-out cut
short is valued by the static estimate of the hand's end in
:mod:`canasta_sim.strategies.hand_estimate` (both sides' final scores from the melds, canastas, red
3s, the hands and the pile at the cut), so each world costs a fraction of a whole play-out and
more of them fit the same time; ``melds`` 1 to search the meld decisions, 0 to lay expert's melds.
Expert's parameters apply to its rules for melds and asking.  ``confidence`` and ``avoid`` declare ranges, so
``canasta-sim tune pimc --params confidence,avoid`` tunes them (as it tunes expert's own ranged parameters).

Versions: pimc@1 sampled uniformly with 8 worlds; pimc@2 samples 12 worlds weighted by ``avoid``;
pimc@3 plays out with experts that remember the hand, and screens: 8 worlds, up to 24; pimc@4 cuts its
play-outs 12 turns after the searched one (``horizon=12``) and searches 24 worlds, up to 96, of 4
candidates; pimc@5 also searches its meld decisions (``melds=1``); pimc@6 plays on where pimc@5 raised
OverflowError and forfeited, at a lead of hundreds of thousands of points (going out worth -100,000, say), its games
otherwise pimc@5's, every game under the default rules included.  pimc@4 is ``pimc:melds=0``, pimc@3
``pimc:melds=0,horizon=0,samples=24,screen=8,width=3``.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from canasta_sim import (
    Answer,
    Ask,
    Discard,
    Draw,
    Meld,
    Move,
    Parameter,
    PublicEvent,
    SeatView,
    Stop,
    Strategy,
    StrategyLoadError,
)
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.search import PublicMemory, playout, sample_world
from canasta_sim.core.state import HandState
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.hand_estimate import estimate_scores
from canasta_sim.strategies.random_play import RandomPlay

__all__ = ["Pimc", "match_value"]

POLICIES = {"expert": Expert, "greedy": Greedy, "random": RandomPlay}
"""The play-out policies by name."""

HAND_SPREAD = 830.0
"""Standard deviation of one hand's point difference between the sides in expert self-play (829 over
the 265 hands of seeds 0-39 of ``play_game([Expert] * 4, seed=s)``)."""
POINTS_PER_HAND = 1000.0
"""Points the better side of a hand scores on average in expert self-play (1033 over the same hands)."""
REQUIREMENT_WEIGHT = 2.0
"""Points of lead one point of a higher next initial minimum (R10.2) is taken to cost."""
_LARGEST_EXPONENT = 709.0
"""About the largest argument math.exp takes (709.78) without an OverflowError."""
SCREEN_LEAD = 0.5
"""Standard errors by which a candidate must lead expert's choice after the first ``screen`` worlds for
the search to sample the rest of its ``samples`` worlds (see :meth:`Pimc._score`)."""

_DRAW = Draw()
_STOP = Stop()
_ASK = Ask()
_YES = Answer(True)
_NO = Answer(False)


def match_value(totals: tuple[int, int], side: int, rules) -> float:
    """The estimated chance that ``side`` wins the game from running totals ``totals`` (see the module)."""
    ours, theirs = totals[side], totals[1 - side]
    target = rules.target_score
    leader = max(ours, theirs)
    if leader >= target:  # R15.1: the game ends after this hand, unless the totals are equal (R15.3)
        if ours == theirs:
            return 0.5
        return 1.0 if ours > theirs else 0.0
    lead = ours - theirs
    lead -= REQUIREMENT_WEIGHT * (rules.initial_requirement(ours) - rules.initial_requirement(theirs))
    spread = HAND_SPREAD * math.sqrt(1.0 + (target - leader) / POINTS_PER_HAND)
    exponent = -1.7 * lead / spread
    if exponent > _LARGEST_EXPONENT:
        # A lead of hundreds of thousands of points, which only rules far from the defaults give (red 3s or canastas
        # worth -100,000: R14.1d, R11.2), overflowed exp; the chance is then below 1e-308, nothing a comparison sees.
        return 0.0
    return 1.0 / (1.0 + math.exp(exponent))


class _PlayoutExpert(Expert):
    """Expert in a play-out: it starts with the table's memory of the hand so far, and it may be told
    not to go out during one turn.

    Expert remembers only public events, so every seat at the table remembers the same; the real
    opponents' memory is therefore the searcher's own, and a play-out expert given a copy of it plays
    as they would in that world (a fresh one would forget the discards and declined piles it bases
    its discard safety on).
    """

    def __init__(self, rng, memory) -> None:
        super().__init__(rng)
        self.start = memory
        self.hold_turn = -1
        self.hold_melds_turn = -1

    def on_hand_start(self, view: SeatView) -> None:
        """Remember the hand so far, from the searcher's memory."""
        self._memory = self.start.copy()
        self._decided = None

    def wants_to_go_out(self, view: SeatView) -> bool:
        """Not during the held turn; as expert otherwise."""
        return False if view.turn_count == self.hold_turn else super().wants_to_go_out(view)

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Nothing during the turn it holds its melds back; as expert otherwise."""
        return None if view.turn_count == self.hold_melds_turn else super().choose_meld(view)


class _HoldBack(Strategy):
    """Any policy, except that during one given turn it does not go out: a meld that would go out
    gives way to the first legal meld that keeps two cards, and it does not ask.  With ``melds`` it
    lays no meld at all that turn."""

    def __init__(self, inner: Strategy, turn: int, *, melds: bool = False) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.turn = turn
        self.melds = melds

    def choose_acquire(self, view: SeatView) -> Move:
        return self.inner.choose_acquire(view)

    def choose_ask(self, view: SeatView) -> bool:
        return False if view.turn_count == self.turn else self.inner.choose_ask(view)

    def answer_go_out(self, view: SeatView) -> bool:
        return self.inner.answer_go_out(view)

    def choose_meld(self, view: SeatView) -> Meld | None:
        if self.melds and view.turn_count == self.turn:
            return None
        move = self.inner.choose_meld(view)
        if move is None or view.turn_count != self.turn:
            return move
        size = sum(view.hand)
        if size - _laid(move) > 1:
            return move
        for other in view.meld_candidates(largest_first=True):
            if size - _laid(other) > 1 and view.can(other):
                return other
        return None

    def choose_discard(self, view: SeatView) -> Discard:
        return self.inner.choose_discard(view)

    def on_hand_start(self, view: SeatView) -> None:
        self.inner.on_hand_start(view)

    def on_event(self, event: PublicEvent) -> None:
        self.inner.on_event(event)


def _laid(move: Meld) -> int:
    return sum(len(group.cards) for group in move.groups)


class Pimc(Expert):
    """Expert's rules for melds, with its key decisions searched by sampling worlds and playing them out."""

    name = "pimc"
    version = 6
    description = "Samples the hidden cards and plays each candidate out with expert play (PIMC search)."
    # The ranges bound what specs accept and what `canasta-sim tune pimc` explores; play reads the values as before.
    parameters = {**Expert.parameters, "samples": 96, "screen": 24, "policy": "expert", "width": 4, "budget": 0.0,
                  "confidence": Parameter(1.0, low=0.0, high=4.0, step=0.05,
                                          help="standard errors a candidate must lead expert's choice by"),
                  "avoid": Parameter(0.25, low=0.0, high=1.0, step=0.01,
                                     help="weight of deals giving a seat a pair of a rank it avoids (1: uniform)"),
                  "horizon": 12, "melds": 1}
    # Its own parameters' attributes, declared for type checkers as Expert declares those it shares.
    samples: int
    screen: int
    policy: str
    width: int
    budget: float
    confidence: float
    avoid: float
    horizon: int
    melds: int

    def __init__(self, rng: random.Random, **parameters: Any) -> None:
        super().__init__(rng, **parameters)
        if self.policy not in POLICIES:
            raise StrategyLoadError(
                f"strategy 'pimc' parameter policy={self.policy!r} is not accepted; use one of: {', '.join(POLICIES)}"
            )
        if self.samples < 1:
            raise StrategyLoadError(f"strategy 'pimc' parameter samples={self.samples!r} must be at least 1")
        if self.screen < 0:
            raise StrategyLoadError(f"strategy 'pimc' parameter screen={self.screen!r} must be 0 (off) or more")
        if self.width < 1:
            raise StrategyLoadError(f"strategy 'pimc' parameter width={self.width!r} must be at least 1")
        if not self.budget >= 0:
            raise StrategyLoadError(f"strategy 'pimc' parameter budget={self.budget!r} must be 0 or more seconds")
        if self.horizon < 0:
            raise StrategyLoadError(
                f"strategy 'pimc' parameter horizon={self.horizon!r} must be 0 (play to the hand's end) or more turns"
            )
        if self.melds not in (0, 1):
            raise StrategyLoadError(
                f"strategy 'pimc' parameter melds={self.melds!r} must be 0 (expert's melds) or 1 (searched)"
            )
        self._policy = POLICIES[self.policy]
        self._public: PublicMemory | None = None

    # ------------------------------------------------------------ hooks

    def on_hand_start(self, view: SeatView) -> None:
        """Start both memories: expert's and the sampler's."""
        super().on_hand_start(view)
        self._public = PublicMemory(view)

    def on_event(self, event: PublicEvent) -> None:
        """Feed both memories."""
        super().on_event(event)
        self._public.observe(event)

    # ------------------------------------------------------------ searched decisions

    def choose_acquire(self, view: SeatView) -> Move:
        """Search draw against the pile takes when the pile can be taken; otherwise as expert."""
        chosen = super().choose_acquire(view)
        takes = list(view.legal_takes())
        if not takes:
            return chosen
        candidates = [chosen]
        if view.stock_count and _DRAW not in candidates:
            candidates.append(_DRAW)
        if view.can(_STOP) and _STOP not in candidates:
            candidates.append(_STOP)
        takes.sort(key=lambda move: len(move.cards) + sum(len(group.cards) for group in move.extra))
        for take in takes:
            if len(candidates) >= self.width:
                break
            if take not in candidates:
                candidates.append(take)
        if len(candidates) == 1:
            return chosen
        return candidates[self._search(view, [_Apply(move) for move in candidates])]

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Search expert's meld against laying nothing more this turn (with ``melds=1``); otherwise as expert.

        Not searched when the turn goes out (the going-out search decided that) or the partner said yes.
        """
        chosen = super().choose_meld(view)
        if chosen is None or not self.melds or view.partner_answer is True:
            return chosen
        if self._going_out(view, view.hand_number, view.turn_count):
            return chosen
        hold = _KeepBuilding(view.turn_count, melds=True)
        return chosen if self._search(view, [_Apply(chosen), hold]) == 0 else None

    def choose_discard(self, view: SeatView) -> Discard:
        """Search expert's cheapest discards."""
        hand = view.hand
        if sum(hand) == 1:
            return super().choose_discard(view)
        candidates = []
        for _cost, kind in self._discard_order(view, hand):
            move = Discard(kind)
            if view.can(move):
                candidates.append(move)
                if len(candidates) >= self.width:
                    break
        if len(candidates) <= 1:
            return candidates[0] if candidates else super().choose_discard(view)
        return candidates[self._search(view, [_Apply(move) for move in candidates])]

    def wants_to_go_out(self, view: SeatView) -> bool:
        """Search going out now against playing this turn on without going out (R12)."""
        if view.partner_answer is not None:
            return super().wants_to_go_out(view)
        plan = view.going_out_plan()
        if plan is None:
            return False
        go_out = _GoOut(view.rules.ask_partner == "mandatory")
        keep = _KeepBuilding(view.turn_count)
        if super().wants_to_go_out(view):
            return self._search(view, [go_out, keep]) == 0
        return self._search(view, [keep, go_out]) == 1

    def answer_go_out(self, view: SeatView) -> bool:
        """Search yes against no, in worlds where the asker can go out."""
        forced = view.rules.ask_partner_yes_forces_out
        worlds = self._worlds(view, self._first_batch(), need_going_out=forced)
        if not worlds:
            return super().answer_go_out(view)
        if super().answer_go_out(view):
            return self._score(view, [_Apply(_YES), _Apply(_NO)], worlds, need_going_out=forced) == 0
        return self._score(view, [_Apply(_NO), _Apply(_YES)], worlds, need_going_out=forced) == 1

    # ------------------------------------------------------------ the search

    def _first_batch(self) -> int:
        """How many worlds a decision samples first (see ``screen``)."""
        return min(self.screen, self.samples) if self.screen else self.samples

    def _worlds(self, view, wanted: int, *, need_going_out: bool = False) -> list[tuple[HandState, int]]:
        """``wanted`` sampled worlds (one under a ``budget``: :meth:`_score` samples the rest while the budget
        lasts), each with the seed of its play-out generators."""
        worlds = []
        rng = self.rng
        enough = 1 if self.budget > 0 else wanted
        tries = 0
        while len(worlds) < enough:
            if tries >= 20 * wanted:
                break  # only a condition on the worlds can get here: the asker going out is too rare to find
            tries += 1
            world = sample_world(view, self._public, rng, avoid_weight=self.avoid)
            seed = rng.getrandbits(64)
            if need_going_out:
                probe = world.copy()
                probe.apply(_YES)
                if not probe.can_go_out_this_turn():
                    continue
            worlds.append((world, seed))
        return worlds

    def _search(self, view, candidates: list) -> int:
        return self._score(view, candidates, self._worlds(view, self._first_batch()))

    def _values(self, view, candidates: list, worlds: list[tuple[HandState, int]]) -> list[list[float]]:
        """Each candidate's match value (:func:`match_value`) in each world, played out by the policy.

        Every candidate meets the same worlds and the same play-out generators (common random numbers).
        With expert play-outs each player starts from the table's memory of the hand, the candidate's
        own moves included (see :class:`_PlayoutExpert`).
        """
        side, scores, rules, seat = view.side, view.scores, view.rules, view.seat
        informed = self._policy is Expert
        values: list[list[float]] = [[] for _ in candidates]
        for world, seed in worlds:
            for index, candidate in enumerate(candidates):
                state = world.copy()
                listener = None
                if informed:
                    # The table's memory after the candidate's own moves: the play-out experts start from it.
                    listener = _PlayoutExpert(None, self._memory)
                    listener.on_hand_start(view)
                candidate.play(state, seat, listener)
                if not state.is_over:
                    if informed:
                        memory = listener._memory
                        # Expert never draws from its generator: none is made (seeding one per seat cost a tenth
                        # of the search), and play is the same.
                        players = [_PlayoutExpert(None, memory) for _ in range(4)]
                    else:
                        players = [self._policy(random.Random(seed + other)) for other in range(4)]
                    candidate.prepare(players, seat)
                    playout(state, players, scores, turns=self.horizon)
                totals = score_hand(state).totals_after if state.is_over else estimate_scores(state)
                values[index].append(match_value(totals, side, rules))
        return values

    def _score(self, view, candidates: list, worlds: list[tuple[HandState, int]], *,
               need_going_out: bool = False) -> int:
        """The candidate to play: the first (expert's own choice) unless another beats it with confidence.

        Each candidate's value in each world is kept; another candidate replaces the first only when
        its mean paired difference to the first exceeds ``confidence`` standard errors of that mean
        (the same worlds for both make the difference far less noisy than either value), and then
        the one with the largest such lead is played.  Screening: when the first batch of worlds
        was smaller than ``samples`` and some candidate leads the first by more than
        :data:`SCREEN_LEAD` standard errors, the rest of the ``samples`` worlds are sampled and every
        candidate is valued in them too before choosing.
        """
        start = time.perf_counter()
        values = self._values(view, candidates, worlds)
        if self.budget > 0:
            self._value_more_within_budget(view, candidates, values, start, need_going_out)
        leads = _leads(values)
        if self.budget <= 0 and len(worlds) < self.samples and any(mean > SCREEN_LEAD * error for mean, error in leads):
            more = self._worlds(view, self.samples - len(worlds), need_going_out=need_going_out)
            for row, extra in zip(values, self._values(view, candidates, more), strict=True):
                row.extend(extra)
            leads = _leads(values)
        return _pick(leads, self.confidence)

    def _value_more_within_budget(self, view, candidates: list, values: list[list[float]], start: float,
                                  need_going_out: bool) -> None:
        """Sample and value one world more at a time until ``budget`` seconds have passed since ``start``.

        The play-outs are what a search spends its time on, not the sampling: the clock is read after each world is
        valued, so a decision overruns its budget by one world's play-outs at most.
        """
        while time.perf_counter() - start < self.budget:
            more = self._worlds(view, 1, need_going_out=need_going_out)
            if not more:
                return
            for row, extra in zip(values, self._values(view, candidates, more), strict=True):
                row.extend(extra)


def _pick(leads: list[tuple[float, float]], confidence: float) -> int:
    """The first candidate, unless another's lead exceeds ``confidence`` standard errors: then the
    one with the largest such lead."""
    best, best_lead = 0, 0.0
    for index, (mean, error) in enumerate(leads, start=1):
        if mean > confidence * error and mean > best_lead:
            best, best_lead = index, mean
    return best


def _leads(values: list[list[float]]) -> list[tuple[float, float]]:
    """Each other candidate's mean paired lead over the first, and the standard error of that mean."""
    base = values[0]
    count = len(base)
    leads = []
    for row in values[1:]:
        differences = [value - first for value, first in zip(row, base, strict=True)]
        mean = _added_in_order(differences) / count
        error = 0.0
        if count > 1:
            squares = [(difference - mean) ** 2 for difference in differences]
            error = math.sqrt(_added_in_order(squares) / (count - 1) / count)
        leads.append((mean, error))
    return leads


def _added_in_order(values: list[float]) -> float:
    """The floats added one by one, left to right.

    Not ``sum``: from Python 3.12 it adds floats with a compensation that changes the last bits, which moved a
    candidate's lead across ``confidence`` standard errors now and then, so the same seed played another game on
    another Python.  Added in order, every Python gives the value Python 3.11's ``sum`` gave.
    """
    total = 0.0
    for value in values:
        total += value
    return total


def _apply(state: HandState, seat: int, move: Move, listener: Strategy | None) -> None:
    """Apply ``move`` by ``seat``; a listener, when given, hears it as the table does."""
    if listener is None:
        state.apply(move)
        return
    before = state.red_threes[seat]
    state.apply(move)
    listener.on_event(PublicEvent(seat, _DRAW if isinstance(move, Draw) else move, state.red_threes[seat] - before))


class _Apply:
    """A candidate that is one move, the play-out policies doing the rest."""

    __slots__ = ("move",)

    def __init__(self, move: Move) -> None:
        self.move = move

    def play(self, state: HandState, seat: int, listener: Strategy | None) -> None:
        _apply(state, seat, self.move, listener)

    def prepare(self, players: list[Strategy], seat: int) -> None:
        """Nothing to change: the policies play on."""


class _GoOut:
    """Go out now with the going-out plan (E4): its melds, then its discard."""

    __slots__ = ("ask_first",)

    def __init__(self, ask_first: bool) -> None:
        self.ask_first = ask_first

    def play(self, state: HandState, seat: int, listener: Strategy | None) -> None:
        if self.ask_first and state.answer is None:
            # ask_partner=mandatory: the partner's answer is not searched here; a yes is assumed.
            _apply(state, seat, _ASK, listener)
            _apply(state, seat ^ 2, _YES, listener)
        groups, discard = state.going_out_plan()
        if groups:
            _apply(state, seat, Meld(groups), listener)
        if not state.is_over and discard is not None:
            _apply(state, seat, Discard(discard), listener)

    def prepare(self, players: list[Strategy], seat: int) -> None:
        """Nothing to change: a hand not over after going out is played on by the policies."""


class _KeepBuilding:
    """Play this turn on without going out (and, with ``melds``, without laying anything more); the
    policy plays the rest."""

    __slots__ = ("turn", "melds")

    def __init__(self, turn: int, *, melds: bool = False) -> None:
        self.turn = turn
        self.melds = melds

    def play(self, state: HandState, seat: int, listener: Strategy | None) -> None:
        """No move of its own: the seat's policy plays the turn, held back."""

    def prepare(self, players: list[Strategy], seat: int) -> None:
        player = players[seat]
        if isinstance(player, _PlayoutExpert):
            # Held back from melding, it does not go out either: an ask answered yes would oblige it to meld (R12.5).
            player.hold_turn = self.turn
            if self.melds:
                player.hold_melds_turn = self.turn
        else:
            players[seat] = _HoldBack(player, self.turn, melds=self.melds)

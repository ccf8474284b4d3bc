"""The meld phase's rules, shared with pile takes: melds on the table, initial minimum, going out.

:class:`MeldingRules` is a part of :class:`canasta_sim.core.state.HandState` kept in its own module: the
checks of R5.3, R6.4, R9, R10 and R12 that a :class:`~canasta_sim.core.moves.Meld` and a
:class:`~canasta_sim.core.moves.TakePile` both need, and the meld move itself.  It uses the hand
state's attributes and is not meant to be used on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from canasta_sim.core.cards import BLACK_THREE, JOKER, KIND_COUNT, KIND_VALUE, TWO, count_words, counts_text, kind_words
from canasta_sim.core.going_out import _as_list, find_meld_out, lays_hand_canasta, needs_hand_canasta
from canasta_sim.core.identities import NOT_KEPT, field_objects, same_field_objects
from canasta_sim.core.melds import (
    _COUNT_MASK,
    CANASTA_SIZE,
    _natural_group_counts,
    _with_rank,
    meld_fits,
    meld_problem,
    rank_words,
)
from canasta_sim.core.moves import (
    WILD_RANK,
    Discard,
    Meld,
    MeldGroup,
    Move,
    TakePile,
    is_kind,
    kind_problem,
    record_problem,
)
from canasta_sim.core.phases import END_WENT_OUT, OVER, PLAY
from canasta_sim.errors import IllegalMoveError

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["MeldingRules"]

_REFUSED = IllegalMoveError("E0", "refused while probing (HandState.is_legal and the can_x methods discard this error)")
"""The error a rule check raises while :attr:`HandState._probing` is set: the caller only wants to know
whether the move is legal, so the real error (its message formatted, its record checked, E1) is not built.
Nothing outside the probes ever sees it."""

_KIND_VALUE = KIND_VALUE  # a C array compiled (sim/core/melding.pxd): the initial meld's sum in C integers

_MOST_LISTED = 256
"""The most entries (a move and its key each) :meth:`MeldingRules._list` keeps: a few decisions' listings."""

class MeldingRules:
    """Meld-phase checks and the :meth:`meld` move of a hand (the root of :class:`~.state.HandState`)."""

    __slots__ = ()  # HandState holds the fields

    # The hand state's helpers that the checks below call: kept in this, its root class, so that compiled they
    # are C methods (sim/core/melding.pxd) for every part of the hand state.

    def _malformed(self, move: Move, value: object) -> IllegalMoveError:
        # E1: a record built by hand may hold a value that is no card kind at all.  The message names the record's
        # type only, since printing the move would itself fail on that value.
        return IllegalMoveError("E1", kind_problem(move, value), seat=self.actor, phase=self.phase)

    def _no_groups(self, move: Move) -> IllegalMoveError:
        # E1: a record built by hand may hold something other than group records where its groups go.
        return IllegalMoveError("E1", record_problem(move), seat=self.actor, phase=self.phase)

    def _fail(self, rule: str, reason: str, move: Move) -> IllegalMoveError:
        if self._probing:
            # is_legal or a can_x asks and discards the error: spare building one (see _REFUSED).
            return _REFUSED
        # A malformed record cannot even be printed, whatever rule it breaks first (a phase, say).
        problem = record_problem(move)
        if problem is not None:
            return IllegalMoveError("E1", problem, seat=self.actor, phase=self.phase)
        return IllegalMoveError(rule, reason, seat=self.actor, move=move, phase=self.phase)

    def _verify_phase(self, move: Move, phase: str) -> None:
        if self.phase != phase:
            if self.phase == OVER:
                raise self._fail("R12.3", "the hand is over", move)
            # The move itself heads the error's message; printing it here too would fail on a malformed record.
            if self._probing:  # the message below would be formatted only to be discarded
                raise _REFUSED
            raise self._fail("R6.1", f"this move belongs to the {phase} phase, not the {self.phase} phase", move)

    def _go_out(self) -> None:
        self.went_out_seat = self.seat
        self.went_out_concealed = self._is_concealed_now()
        self._end(END_WENT_OUT)

    def _end(self, reason: str) -> None:
        self.phase = OVER
        self.end_reason = reason
        if not all(self.first_turn_done):  # R3.5 first_turn: a seat's first turn never came (D22)
            self._lay_red_threes_left_in_hand()

    def _vouch(self, move: Move) -> None:
        """Remember ``move`` (of one of the move types exactly) as just found legal, for :meth:`_take_vouch`."""
        key = field_objects(move)
        self._vouched = None if key is NOT_KEPT else move
        self._vouched_key = key

    @cython.locals(index=Count, listed=list)
    def _take_vouch(self, move: Move) -> bool:
        """Whether ``move`` is the object :meth:`is_legal` last found legal, or one a listing found legal
        (:meth:`_list`), with nothing applied since."""
        # A record forced to change since the check holds other objects in its fields, and is checked again.
        vouched = self._vouched is move and same_field_objects(move, self._vouched_key)
        self._vouched = None
        listed = self._listed
        if listed:
            if not vouched:
                for index in range(0, len(listed) - 1, 2):
                    if listed[index] is move and same_field_objects(move, listed[index + 1]):
                        vouched = True
                        break
            listed.clear()  # the same list kept for the next listings: none made and freed per move applied
        return vouched

    def _list(self, move: Move) -> None:
        """Remember ``move`` (of one of the move types exactly) as found legal by a legal-move listing, for
        :meth:`_take_vouch`: a strategy picks its move from the listing, and the engine then need not check it
        again.  The listings ask this of every move they yield, so a decision's listings are all kept."""
        key = field_objects(move)
        if key is NOT_KEPT:
            return
        self._list_keyed(move, key)

    @cython.locals(listed=list)
    def _list_keyed(self, move: Move, key: object) -> None:
        """:meth:`_list` with ``move``'s key (``field_objects(move)``) read beforehand, as a listing keeps it for
        its shared records: a record forced to change since holds other objects than its key, and is checked
        again when applied."""
        listed = self._listed
        if len(listed) >= _MOST_LISTED:  # a strategy listing again and again: keep the latest, not all
            listed.clear()
        listed.append(move)
        listed.append(key)

    @cython.locals(kind=Count, count=Count)
    def _verify_in_hand(self, move: Move, used: list[int]) -> None:
        hand = self.hands[self.seat]
        for kind in range(KIND_COUNT):
            count = used[kind]  # a C integer compiled: the kinds the move does not use are passed over at once
            if count and count > hand[kind]:
                if self._probing:  # the message below would be formatted only to be discarded
                    raise _REFUSED
                raise self._fail(
                    "R6.1",
                    f"the move uses {kind_words(kind, count)} but the hand holds "
                    f"{'only ' if hand[kind] else ''}{kind_words(kind, hand[kind])} "
                    f"(hand: {counts_text(hand)})",
                    move,
                )

    @cython.locals(naturals=Count, jokers=Count, deuces=Count, index=Count, record=MeldGroup)
    def _collect(
        self, move: Move, groups: Sequence[MeldGroup], additions: dict[int, list[int]], used: list[int]
    ) -> None:
        # Sums each group into per-rank additions; R9.6 merges groups of one rank into one meld.  A group's counts are
        # summed in C integers and added to its rank's and to ``used`` once each (both are discarded on an error).
        if type(groups) is not tuple and not isinstance(groups, (tuple, list)):
            raise self._no_groups(move)
        for group in groups:
            # The record itself, not a subclass: its fields read as C members compiled (sim/core/moves.pxd).
            record = group if type(group) is MeldGroup else None
            if record is None and not isinstance(group, MeldGroup):
                raise self._no_groups(move)
            rank = group.rank if record is None else record.rank
            if type(rank) is not int and not is_kind(rank):
                raise self._malformed(move, rank)
            if not (4 <= rank < KIND_COUNT or rank == BLACK_THREE or rank == WILD_RANK):
                if not is_kind(rank):
                    raise self._malformed(move, rank)
                if self._probing:  # the message below would be formatted only to be discarded
                    raise _REFUSED
                raise self._fail("R9.8", f"no meld can be of {rank_words(rank)}", move)
            index = rank  # a kind now, a C integer compiled: each card is compared with it in C
            naturals = jokers = deuces = 0
            for kind in group.cards if record is None else record.cards:
                if type(kind) is not int and not is_kind(kind):
                    raise self._malformed(move, kind)
                if kind == index and index != WILD_RANK:
                    naturals += 1
                elif kind == JOKER:
                    jokers += 1
                elif kind == TWO:
                    deuces += 1
                elif not is_kind(kind):
                    raise self._malformed(move, kind)
                else:
                    if self._probing:  # the message below would be formatted only to be discarded
                        raise _REFUSED
                    raise self._fail("R9.1", f"{kind_words(kind)} cannot go into a meld of {rank_words(rank)}", move)
            if naturals + jokers + deuces == 0:  # laying nothing, a meld decision could be answered forever
                raise self._fail("R9.1", f"a meld group needs a card; this one of {rank_words(rank)} has none", move)
            used[index] += naturals
            used[JOKER] += jokers
            used[TWO] += deuces
            counts = additions.get(rank)
            if counts is None:
                additions[rank] = [naturals, jokers, deuces]
            else:
                counts[0] += naturals
                counts[1] += jokers
                counts[2] += deuces

    @cython.locals(naturals=Count, jokers=Count, deuces=Count, more=Count)
    def _verify_additions(self, move: Move, additions: dict[int, list[int]]) -> None:
        melds = self.melds[self.seat & 1]
        rules = self.rules
        for rank, added in additions.items():
            meld = melds[rank]
            if rank == BLACK_THREE and rules.black_three_melds == "never":
                raise self._fail("R5.3", "black 3s may never be melded (black_three_melds=never)", move)
            naturals = meld[0]
            more = added[0]
            naturals += more
            jokers = meld[1]
            more = added[1]
            jokers += more
            deuces = meld[2]
            more = added[2]
            deuces += more
            # meld_problem's reason is built only for a meld that does not fit (the same judgement).
            if not meld_fits(rules, rank, naturals, jokers, deuces):
                problem = meld_problem(rules, rank, naturals, jokers, deuces)
                raise self._fail(problem[0], problem[1], move)

    def _verify_black_three_timing(self, move: Move, additions: dict[int, list[int]], hand_after: int) -> bool:
        # R5.3, judged after R9 and R10 as E2 orders it (step 5).  Under R13.1 meld_no_discard nothing is discarded,
        # so there only melding every card goes out.  A refusal while probing returns False (see _probe).
        if BLACK_THREE in additions and hand_after > (0 if self.must_stop else 1):
            if self._probing:
                return False
            raise self._fail("R5.3", "black 3s may be melded only in the turn the player goes out", move)
        return True

    @cython.locals(canastas=Count, rank=Count, size=Count, naturals=Count, jokers=Count, deuces=Count,
                   is_discard=cython.bint)
    def _verify_going_out(self, move: Move, hand_after: int, additions: dict[int, list[int]]) -> bool:
        """R6.4, R12.1, R12.2, R12.5: checks for a move that leaves at most one card in hand.  ``True`` when it
        passes; a refusal raises, or while probing returns ``False`` (see :meth:`_probe`)."""
        # isinstance only for a record of another class than the commonest ones: a Meld or a TakePile is no Discard.
        move_type = type(move)
        is_discard = move_type is Discard or (move_type is not Meld and move_type is not TakePile
                                              and isinstance(move, Discard))
        # After a meld or a take, one card left is still going out: it is the discard to come.
        if hand_after > (0 if is_discard else 1):
            if is_discard and self.answer is True and self.rules.ask_partner_yes_forces_out:
                if self._probing:
                    return False
                raise self._fail("R12.5", "the partner answered yes, so the player must go out this turn", move)
            return True
        if self.must_stop and hand_after == 1:
            return True  # R13.1 meld_no_discard: nothing is discarded, so nothing goes out.
        side = self.seat & 1
        melds = self.melds[side]
        sizes = [0] * 15  # each meld's size after the move by rank (KIND_COUNT; a C array compiled)
        for rank, added in additions.items():
            naturals = added[0]
            jokers = added[1]
            deuces = added[2]
            sizes[rank] = naturals + jokers + deuces
        canastas = 0
        for rank in range(KIND_COUNT):
            meld = melds[rank]
            naturals = meld[0]
            jokers = meld[1]
            deuces = meld[2]
            size = sizes[rank] + naturals + jokers + deuces
            if size >= CANASTA_SIZE:
                canastas += 1
        needed = self.rules.canastas_to_go_out
        if canastas < needed:
            what = "a canasta" if needed == 1 else count_words(needed, "canasta")
            if self._probing:  # the message below would be formatted only to be discarded
                return False
            raise self._fail(
                "R6.4",
                f"the side lacks {what}, so the player may not go out and must keep a card after the "
                f"discard (R12.1); the move would leave {'one card' if hand_after else 'no cards'} in hand",
                move,
            )
        if self.answer is False:
            if self._probing:
                return False
            raise self._fail("R12.5", "the partner answered no, so the player may not go out this turn", move)
        if self.rules.ask_partner == "mandatory" and self.answer is not True:
            if self._probing:
                return False
            raise self._fail("R12.5", "ask_partner=mandatory: the player must ask the partner before going out", move)
        if hand_after == 0 and not is_discard and needs_hand_canasta(self.rules):
            laying = [0] * KIND_COUNT
            for rank, added in additions.items():
                laying[rank] = added[0] + added[1] + added[2]
            if move_type is TakePile or isinstance(move, TakePile):
                laying[self.pile[-1]] -= 1  # the top card is melded from the pile, not from the hand (R8.3)
            if not lays_hand_canasta(self.turn_laid, laying):
                if self._probing:
                    return False
                raise self._fail("R12.2", "going out without a discard needs a whole canasta from the hand this turn "
                                 "(going_out_without_discard=only_if_hand_holds_canasta)", move)
        return True

    @cython.locals(added=list, rank=Count, taken=Count)
    def _lay(self, additions: dict[int, list[int]], top: int) -> None:
        """Lay a checked move's sums by rank, ``additions``, from the hand but for the pile's ``top`` card of a take
        (-1 for a meld), rank by rank (:meth:`_lay_group`)."""
        for rank, added in additions.items():
            taken = 1 if rank == top else 0
            self._lay_group(rank, added[0] - taken, added[1], added[2], taken)

    @cython.locals(seat=Count, side=Count, changes=Count, hand=list, sizes=list, meld=list, laid=list, tables=list,
                   other=tuple, own=tuple, table=dict, new_ranks=set, counts=tuple, before=Count, held_naturals=Count,
                   held_jokers=Count, held_deuces=Count)
    def _lay_group(self, rank: int, naturals: int, jokers: int, deuces: int, taken: int) -> None:
        """Lay ``naturals``, ``jokers`` and ``deuces`` from the hand and ``taken`` naturals from the pile on the side's
        meld of ``rank``: counted in C integers compiled, with no per-rank sums built (the commonest meld and take
        lay one rank)."""
        seat = self.seat
        side = seat & 1
        changes = self.meld_changes + 1
        self.meld_changes = changes
        # Only this side's melds change: the other side's meld table (HandState.meld_table) stays valid.
        tables = self._meld_tables
        other = tables[1 - side]
        if other is not None and other[0] == changes - 1:
            tables[1 - side] = (changes, other[1])
        # The counts read into C integers and written back once each (typed lists compiled).
        hand = self.hands[seat]
        if naturals:
            before = hand[rank]
            hand[rank] = before - naturals
        if jokers:
            before = hand[JOKER]
            hand[JOKER] = before - jokers
        if deuces:
            before = hand[TWO]
            hand[TWO] = before - deuces
        if naturals + jokers + deuces:
            sizes = self.hand_sizes
            before = sizes[seat]
            sizes[seat] = before - naturals - jokers - deuces
        meld = self.melds[side][rank]
        held_naturals = meld[0]
        held_jokers = meld[1]
        held_deuces = meld[2]
        new_ranks = self.turn_new_ranks  # a set, typed: its methods are C calls where compiled
        if held_naturals + held_jokers + held_deuces == 0:
            new_ranks.add(rank)
        elif rank not in new_ranks:
            self.added_to_existing = True
        meld[0] = held_naturals + naturals + taken
        meld[1] = held_jokers + jokers
        meld[2] = held_deuces + deuces
        laid = self.turn_laid
        before = laid[rank]
        laid[rank] = before + naturals + jokers + deuces  # from the hand only, for R12.2: not the pile's top card
        self.side_has_melded[side] = True
        self.seat_has_melded[seat] = True
        # This side's table, if it was current: a new one with the meld's counts, what HandState.meld_table would
        # rebuild, its other ranks' counts shared (a rank new to it joins in rank order).
        own = tables[side]
        if own is not None and own[0] == changes - 1:
            table = own[1]
            counts = (meld[0], meld[1], meld[2])
            if rank in table:
                table = table.copy()
                table[rank] = counts
            else:
                table = _with_rank(table, rank, counts)
            tables[side] = (changes, table)

    def _is_concealed_now(self) -> bool:
        """R12.6: judged when the player goes out."""
        if self.melded_before_turn or self.added_to_existing:
            return False
        if self.acquired == "pile" and not self.rules.concealed_allows_pile_take:
            return False
        melds = self.melds[self.seat & 1]
        return any(sum(melds[rank]) >= CANASTA_SIZE for rank in self.turn_new_ranks)

    @cython.locals(used=list, kind=Count, laid=Count, count=Count, total=Count, record=Meld)
    def verify_meld(self, move: Meld) -> bool:
        """R9, R10, R5.3, R6.4, R12: validate a turn's group of melds and additions together (R6.5, E2).

        ``True`` when it passes.  A broken rule raises :class:`IllegalMoveError`; while probing, the commonest
        refusals return ``False`` instead: an error passing through compiled calls gets a traceback built at
        each, which costs more than the check (see :meth:`_probe`)."""
        self._verify_phase(move, PLAY)
        record = move  # compiled, its field is then read as a C member
        groups = record.groups
        # The commonest meld, judged without the sums below built (see _single_group_verdict); a refusal found
        # there is left to the full checks unless probing, so that the error raised names the same rule.
        if type(groups) is tuple and len(groups) == 1:
            verdict = self._single_group_verdict(groups[0])
            if verdict == 1:
                self._collected = None  # meld() sums the cards itself
                return True
            if verdict == 0 and self._probing:
                return False
        if not isinstance(groups, (tuple, list)) or not groups:  # type first: an array has no truth value (_fail: E1)
            raise self._fail("R9.1", "a meld needs at least one group of cards", move)
        additions: dict[int, list[int]] = {}
        used = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # KIND_COUNT zeros: a literal, no slice of a list
        self._collect(move, groups, additions, used)
        self._verify_in_hand(move, used)
        laid = 0  # summed in C integers where compiled
        for kind in range(KIND_COUNT):
            count = used[kind]
            laid += count
        hand_after = self.hand_sizes[self.seat] - laid
        self._verify_additions(move, additions)
        side = self.seat & 1
        if not self.side_has_melded[side]:
            total = 0
            for kind in range(KIND_COUNT):
                count = used[kind]
                total += _KIND_VALUE[kind] * count
            minimum = self.requirements[side]
            if total < minimum and not self._concealed_exemption(additions, hand_after):
                if self._probing:  # the message below would be formatted only to be discarded
                    return False
                raise self._fail(
                    "R10.2",
                    f"the side's initial meld needs {minimum} points; these melds count {total}",
                    move,
                )
        # The check's own first condition: most melds lay no black 3.
        if BLACK_THREE in additions and not self._verify_black_three_timing(move, additions, hand_after):
            return False
        # A meld keeping two cards or more cannot go out: _verify_going_out has nothing to check.
        if hand_after <= 1 and not self._verify_going_out(move, hand_after, additions):
            return False
        if self.answer is True and self.rules.ask_partner_yes_forces_out and hand_after > 1:
            self._verify_still_going_out(move, additions, used)
        self._collected = (move, additions, used)
        return True

    @cython.locals(rank=Count, naturals=Count, jokers=Count, deuces=Count, kind=Count, seat=Count, side=Count,
                   laid=Count, held=Count, hand_after=Count, canastas=Count, counts=Count)
    def _single_group_verdict(self, group: object) -> int:
        """:meth:`verify_meld`'s verdict on a meld of the one ``group``, in the commonest case only: a group record
        of a natural rank holding only cards of its rank and wild cards, laid by a side that has melded (no initial
        minimum, no black 3).  1 legal (keeping two cards or more), 0 refused (R6.1: cards not held; R9.1, R9.2: the
        meld would not fit; R6.4: going out without the canastas), -1 for any other case, which the full checks
        judge.

        The checks are the full ones' for this case, counted in C integers compiled, with no per-rank sums or
        card counts built: strategies probe such melds by the dozen each turn (``view.can``, the listings)."""
        seat = self.seat
        side = seat & 1
        if not self.side_has_melded[side]:
            return -1
        counts = _natural_group_counts(group)
        if counts < 0:
            return -1
        rank = counts >> 24
        naturals = counts >> 16 & _COUNT_MASK
        jokers = counts >> 8 & _COUNT_MASK
        deuces = counts & _COUNT_MASK
        laid = naturals + jokers + deuces
        hand_after = self.hand_sizes[seat] - laid
        if hand_after > 1 and self.answer is True and self.rules.ask_partner_yes_forces_out:
            return -1
        # Each count read into a C integer compiled from a typed list, compared with no integer object built.
        hand = _as_list(self.hands[seat])
        if naturals:
            held = hand[rank]
            if naturals > held:
                return 0
        if jokers:
            held = hand[JOKER]
            if jokers > held:
                return 0
        if deuces:
            held = hand[TWO]
            if deuces > held:
                return 0
        melds = _as_list(self.melds[side])
        meld = _as_list(melds[rank])
        held = meld[0]
        naturals += held
        held = meld[1]
        jokers += held
        held = meld[2]
        deuces += held
        if not meld_fits(self.rules, rank, naturals, jokers, deuces):
            return 0
        if hand_after > 1:
            return 1
        if self.must_stop:
            return -1
        # Going out (R6.4, R12.1): refused without the side's canastas, this meld counted; the full checks judge a
        # meld that has them (the partner's answer, R12.2, R12.5).
        canastas = 1 if naturals + jokers + deuces >= CANASTA_SIZE else 0
        for kind in range(KIND_COUNT):
            if kind != rank:
                meld = _as_list(melds[kind])
                held = meld[0]
                laid = held
                held = meld[1]
                laid += held
                held = meld[2]
                laid += held
                if laid >= CANASTA_SIZE:
                    canastas += 1
        return 0 if canastas < self.rules.canastas_to_go_out else -1

    def _verify_still_going_out(self, move: Meld, additions: dict[int, list[int]], used: list[int]) -> None:
        # R12.5: after a "yes" the player must go out this turn.  Asking was allowed only because
        # going out was possible; a meld that makes it impossible would leave no legal move at all.
        hand = [count - used[kind] for kind, count in enumerate(self.hands[self.seat])]
        melds = [list(meld) for meld in self.melds[self.seat & 1]]
        laid = list(self.turn_laid)
        for rank, counts in additions.items():
            for index in range(3):
                melds[rank][index] += counts[index]
            laid[rank] += counts[0] + counts[1] + counts[2]
        if find_meld_out(self.rules, hand, melds, minimum=0, laid=laid) is None:
            raise self._fail(
                "R12.5",
                "the partner answered yes, so the player must go out this turn, and after this meld "
                "the rest of the hand could no longer be melded out",
                move,
            )

    def _concealed_exemption(self, additions: dict[int, list[int]], hand_after: int) -> bool:
        # R10.7: going out concealed in one turn after drawing needs no minimum.
        if not self.rules.concealed_exempt_from_minimum or self.acquired != "draw" or self.melded_before_turn:
            return False
        if hand_after > (0 if self.must_stop else 1):
            return False
        return any(sum(counts) >= CANASTA_SIZE for counts in additions.values())

    def _verify_move(self, move: Move) -> bool:
        """Run the move's ``verify_x``; ``False`` for what is no move.  The hand state dispatches
        (:meth:`canasta_sim.core.state.HandState._verify_move`)."""
        raise NotImplementedError("MeldingRules is a part of HandState, not a hand state of its own")

    def _probe(self, move: Move) -> bool:
        """Whether ``move`` passes its rule checks now (:meth:`_verify_move`), answered without building the error:
        while probing, a check raises one shared error instead (``_REFUSED``, see :meth:`_fail`), or, on the paths
        strategies' probes are refused on most (going out, the initial minimum, a card not held), returns ``False``
        up the calls: compiled, an error gets a traceback object built at every call it leaves, several times the
        cost of the check itself.  The ``can_x`` methods and :meth:`~canasta_sim.core.state.HandState.is_legal`
        all ask this."""
        probing = self._probing
        self._probing = True
        try:
            return self._verify_move(move)
        except IllegalMoveError as error:
            error.__traceback__ = None  # _REFUSED is raised again and again: keep no frames alive through it
            return False
        finally:
            self._probing = probing

    def can_meld(self, move: Meld) -> bool:
        """Return whether :meth:`meld` is legal now."""
        return self._probe(move)

    @cython.locals(record=Meld, used=list, counts=Count)
    def meld(self, move: Meld) -> None:
        """Lay the groups; new cards of a rank the side holds join that meld (R9.6)."""
        if not self._take_vouch(move):
            self.verify_meld(move)
        # The sums of this very move by the check just made (or by is_legal's, nothing applied since): laid as they are.
        collected = self._collected
        self._collected = None
        if collected is not None and collected[0] is move:
            self._lay(collected[1], -1)
        else:
            record = move  # verified a Meld above or by is_legal: compiled, its field is then read as a C member
            groups = record.groups
            # The commonest meld, one group of a natural rank, laid from its counts (see _lay_group).
            counts = _natural_group_counts(groups[0]) if type(groups) is tuple and len(groups) == 1 else -1
            if counts >= 0:
                self._lay_group(counts >> 24, counts >> 16 & _COUNT_MASK, counts >> 8 & _COUNT_MASK,
                                counts & _COUNT_MASK, 0)
            else:
                additions = {}
                used = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # KIND_COUNT zeros: a literal, no slice of a list
                self._collect(move, groups, additions, used)
                self._lay(additions, -1)
        self.melded_this_turn = True
        self.history.append((self.seat, move, ()))
        if self.hand_sizes[self.seat] == 0:
            self._go_out()

"""Asking the partner "may I go out?" and the partner's answer (R12.5), and whether the hand can go out now (E4).

:class:`AskingRules` is a part of :class:`canasta_sim.core.state.HandState` kept in its own module, like
:class:`~canasta_sim.core.melding.MeldingRules` and :class:`~canasta_sim.core.pile.PileRules`: it uses the hand
state's attributes and is not meant to be used on its own.
"""

from __future__ import annotations

from canasta_sim.core.going_out import _as_list, _search_meld_out, _two_cards_stranded
from canasta_sim.core.identities import refresh, same_list
from canasta_sim.core.moves import ASK, Answer, Ask, MeldGroup
from canasta_sim.core.phases import ANSWER, PLAY
from canasta_sim.core.pile import PileRules

__all__ = ["AskingRules"]


class AskingRules(PileRules):
    """The :class:`~canasta_sim.core.moves.Ask` and :class:`~canasta_sim.core.moves.Answer` moves of a hand, and its
    going-out plan (a base of :class:`~.state.HandState`)."""

    __slots__ = ()  # HandState holds the fields

    def _ask_problem(self) -> str | None:
        # One list of conditions serves verify_ask and can_ask: the engine asks can_ask every turn,
        # and answering it without building an exception keeps that cheap.
        if self.rules.ask_partner == "off":
            return "asking the partner is switched off (ask_partner=off)"
        if self.asked:
            return "the partner may be asked only once a turn"
        if self.melded_this_turn:
            return "the partner must be asked before any other meld this turn"
        if self.must_stop or self.hand_sizes[self.seat] < 2:
            return "the player has no choice left about going out this turn"
        if self.rules.ask_partner_yes_forces_out and self.going_out_plan() is None:
            return "the player cannot go out this turn, so may not ask"
        return None

    def verify_ask(self, move: Ask = ASK) -> None:
        """R12.5: ask right after acquiring, once, when allowed; with ``ask_partner_yes_forces_out``,
        only when the player can go out this turn (so a yes never traps them)."""
        self._verify_phase(move, PLAY)
        problem = self._ask_problem()
        if problem is not None:
            raise self._fail("R12.5", problem, move)

    def can_ask(self, move: Ask = ASK) -> bool:
        """Return whether :meth:`ask` is legal now."""
        # _ask_problem's conditions, inlined: the engine asks this on every turn.  The two rules read are kept
        # per rule set (_asking_rules): no attribute look-ups or string comparison a turn.
        if self.phase != PLAY:
            return False
        rules = self.rules
        kept = _asking_rules(rules)
        if kept.asking_off:
            return False
        if self.asked or self.melded_this_turn:
            return False
        if self.must_stop or self.hand_sizes[self.seat] < 2:
            return False
        if not kept.yes_forces_out:
            return True
        return self.going_out_plan() is not None

    def ask(self, move: Ask = ASK) -> None:
        """Ask the partner; the partner's :class:`Answer` comes next."""
        if not self._take_vouch(move):
            self.verify_ask(move)
        self.asked = True
        self.history.append((self.seat, move, ()))
        self.phase = ANSWER

    def verify_answer(self, move: Answer) -> None:
        """R12.5: only an asked partner answers; E1: with True or False."""
        self._verify_phase(move, ANSWER)
        if type(move.yes) is not bool:
            raise self._fail("E1", "", move)  # the record's problem heads the error (_fail)

    def can_answer(self, move: Answer) -> bool:
        """Return whether :meth:`answer_ask` is legal now."""
        return self.phase == ANSWER and type(move.yes) is bool

    def answer_ask(self, move: Answer) -> None:
        """Record the partner's binding answer (R12.5)."""
        if not self._take_vouch(move):
            self.verify_answer(move)
        self.answer = move.yes
        self.history.append(((self.seat + 2) % 4, move, ()))
        self.phase = PLAY

    def can_go_out_this_turn(self) -> bool:
        """E4: can the hand be melded out this turn, with at most one card left to discard?"""
        return self.going_out_plan() is not None

    def going_out_plan(self) -> tuple[tuple[MeldGroup, ...], int | None] | None:
        """E4: groups that meld the hand out this turn and the kind left to discard, or ``None``."""
        if self.phase != PLAY:
            return None
        # The engine asks before the ask decision, and the strategies again while melding: within
        # the play phase of one turn only the hand and the melds change what this returns (the
        # minimum and must_stop are fixed by then), so the same hand and melds give the same plan.
        hand = self.hands[self.seat]
        # The key's parts compared one by one (the counters as C integers compiled), the hand against a copy holding
        # the very count objects it held (same_list: counts are small integers, one object per value, so an equal
        # count in another object only misses the cache): no key built per call.  must_stop by identity: the engine
        # sets only True or False, and a flag of another object would only miss the cache, never answer wrongly.
        if (self._plan_turn == self.turn_count and self._plan_changes == self.meld_changes
                and self._plan_stop is self.must_stop and self._plan_hand is not None
                and same_list(hand, self._plan_hand)):
            return self._plan_cache
        side = self.seat & 1
        hand_list = _as_list(hand)
        melds = _as_list(self.melds[side])
        # Most turns end here (see _find_meld_out): answered again as cheaply as kept, so nothing is kept.
        if _two_cards_stranded(hand_list, melds):
            return None
        rules = self.rules
        if self.side_has_melded[side]:
            minimum = 0
        elif rules.concealed_exempt_from_minimum and self.acquired == "draw" and not self.melded_before_turn:
            minimum = 0  # R10.7: a concealed going out after a draw needs no minimum
        else:
            minimum = self.requirements[side]
        # R13.1 meld_no_discard: no discard is allowed, so only melding every card goes out.
        # R12.2: the cards laid from the hand earlier this turn count toward a canasta from the hand.
        plan = _search_meld_out(rules, hand_list, melds, minimum, True, not self.must_stop, self.turn_laid)
        self._plan_cache = plan
        # The kept copy refreshed in place (a search per turn, and a move changes a count or two): no list made and
        # freed per search.  Each state has a copy of its own (HandState.copy starts with none).
        kept = self._plan_hand
        if type(kept) is list:
            refresh(kept, hand)
        else:
            self._plan_hand = list(hand)
        self._plan_turn = self.turn_count
        self._plan_changes = self.meld_changes
        self._plan_stop = self.must_stop
        return plan


class _AskingRulesRead:
    """What :meth:`AskingRules.can_ask` reads of one rule set on every turn (R12.5): whether asking is
    ``off``, and ``ask_partner_yes_forces_out``."""

    def __init__(self, rules) -> None:
        self.rules = rules
        self.asking_off = rules.ask_partner == "off"
        self.yes_forces_out = bool(rules.ask_partner_yes_forces_out)


_last_read = None
"""The record :func:`_asking_rules` gave last (``None`` before the first call)."""


def _asking_rules(rules) -> _AskingRulesRead:
    """The :class:`_AskingRulesRead` of ``rules``: the one given last when it is for the same rule set.  A caller
    reads the record once into a local, so threads under different rule sets never mix their values."""
    global _last_read
    last = _last_read
    if last is None or last.rules is not rules:
        last = _AskingRulesRead(rules)
        _last_read = last
    return last

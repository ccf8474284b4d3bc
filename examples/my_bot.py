"""An example canasta-sim strategy: copy this file and make it your own.

Try it::

    canasta-sim check-strategy examples/my_bot.py:MyBot        # plays a few games, reports mistakes
    canasta-sim run -s examples/my_bot.py:MyBot -s greedy      # your bot against a built-in
    canasta-sim run -s examples/my_bot.py:MyBot:keep_wilds=false -s greedy   # with a parameter

The engine makes one instance per seat and asks it, each turn, in this order:

1. ``choose_acquire(view)``: draw, take the pile, or (stock empty) stop;
2. ``choose_ask(view)``: only when asking the partner is allowed; then the partner's
   ``answer_go_out(view)``;
3. ``choose_meld(view)``, again and again until it returns ``None``;
4. ``choose_discard(view)``.

``view`` is a :class:`canasta_sim.SeatView`: this seat's hand as counts by kind, every meld on the
table, the pile, hand sizes, the stock's size, scores and rules, plus the legal moves of the
decision due (``view.legal_takes()``, ``view.legal_melds()``, ...) and ``view.can(move)`` to test
a move before returning it.  Kinds are small ints: 0 joker, 1 deuce, 2 black 3, 3 red 3, 4..14
for 4 to ace (``canasta_sim.KIND_NAMES`` names them).  Use ``self.rng`` for any randomness, never ``random``.
"""

from __future__ import annotations

from canasta_sim import BLACK_THREE, JOKER, KIND_VALUE, TWO, Discard, Draw, Meld, Move, PublicEvent, SeatView, Strategy


class MyBot(Strategy):
    """Takes the pile without spending wild cards, melds naturals, and discards what the next
    player threw away before."""

    # How results and ``canasta-sim strategies`` name it; bump ``version`` whenever its play changes.
    name = "my-bot"
    version = 1
    description = "Example bot: takes the pile with pairs, melds naturals, discards safely."
    # Parameters with their defaults; a spec like ``my_bot.py:MyBot:keep_wilds=false`` overrides
    # them, converted to the default's type, and they become attributes (``self.keep_wilds``).
    parameters = {"keep_wilds": True}
    keep_wilds: bool  # set from ``parameters`` when built; declared so that a type checker knows it

    # ------------------------------------------------------------ memory from public events

    def on_hand_start(self, view: SeatView) -> None:
        # A new hand: forget the last one.  The view says which seat this instance plays.
        self.seat = view.seat
        self.next_player_discards: set[int] = set()

    def on_event(self, event: PublicEvent) -> None:
        # Every move anyone makes arrives here (a draw hides the card).  Remember what the player
        # after us discarded: it probably holds no pair of those ranks, so they are safe to throw.
        if isinstance(event.move, Discard) and event.seat == (self.seat + 1) % 4:
            self.next_player_discards.add(event.move.card)

    # ------------------------------------------------------------ decisions

    def choose_acquire(self, view: SeatView) -> Move:
        # The pile is usually worth more than one stock card.  Of the legal takes, use the one
        # that spends the fewest wild cards (a lay-off on our meld spends none).
        takes = list(view.legal_takes())
        if takes:
            return min(takes, key=lambda take: sum(1 for card in take.cards if card <= TWO))
        if view.stock_count:
            return Draw()
        return next(view.legal_acquires())  # empty stock: stop (or a compulsory take)

    def choose_ask(self, view: SeatView) -> bool:
        # Called only when going out is possible.  Ask, unless we trail in canastas while the
        # opponents hold many cards: then playing on may let us catch up.  Without a "yes" this
        # bot never goes out (choose_meld keeps two cards).
        side = view.side
        opponents_cards = view.hand_sizes[(view.seat + 1) % 4] + view.hand_sizes[(view.seat + 3) % 4]
        return view.canasta_count(side) >= view.canasta_count(1 - side) or opponents_cards < 12

    def answer_go_out(self, view: SeatView) -> bool:
        # The answer binds the partner.  Refuse only when our own hand would cost a lot.
        return view.hand_value() < 100

    def choose_meld(self, view: SeatView) -> Meld | None:
        # The partner said yes: we must go out now, and the view can tell us how.
        if view.partner_answer is True:
            plan = view.going_out_plan()
            return Meld(plan[0]) if plan and plan[0] else None
        hand_size = sum(view.hand)
        for meld in view.legal_melds():
            cards = [card for group in meld.groups for card in group.cards]
            uses_wild = any(card <= TWO for card in cards)
            if self.keep_wilds and uses_wild and view.has_melded(view.side):
                continue  # keep wild cards for later, except to make the initial meld
            if hand_size - len(cards) >= 2:  # keep a card to discard and one to hold
                return meld
        return None

    def choose_discard(self, view: SeatView) -> Discard:
        hand = view.hand
        our_melds = view.melds(view.side)
        their_melds = view.melds(1 - view.side)

        def cost(kind: int) -> tuple[int, int]:
            if kind == BLACK_THREE:
                return (0, 0)  # R5.2: a black 3 on top blocks the next player
            if kind in (JOKER, TWO):
                return (9, 0)  # wild cards are worth keeping
            if kind in their_melds and not view.is_pile_frozen:
                return (8, 0)  # they could lay it off and take the pile
            if kind in our_melds or hand[kind] >= 2:
                return (5, hand[kind])  # it builds our melds
            safe = 1 if kind in self.next_player_discards else 2
            return (safe, KIND_VALUE[kind])

        choices = list(view.legal_discards())
        return min(choices, key=lambda move: cost(move.card))

"""A seat's view as the bot protocol sends it: the whole view, then only what changed since.

The bot protocol (``docs/protocol.md``) sends a seat's whole view at a hand's start and, under protocol 2,
with each later decision only the fields whose value differs from the last view sent.  A
:class:`ViewWire` keeps the values last sent and compares the live state with them field by field: a
field that did not change costs one comparison, where building the whole view and comparing it with
the last one built a score of lists and a dict per request.  :meth:`ViewWire.changes` returns the same
fields, with the same values, as that comparison of whole views (``canasta_sim.plugins.messages.view_message``,
the tests compare them at every decision of many games); the arbiter encodes the dict it returns.

It reads the arbiter's live state, so it runs on the arbiter's side only, never in a strategy.  Compiled
(``sim/core/wire.pxd``), the comparisons are C calls on the state's fields.

The bot's side of the same messages is :func:`set_view_fields`: the bot server
(``canasta_sim.plugins.server``) sets the fields of a request on the state its view is rebuilt on, each a C
store, where setting them one by one from Python was a fifth of its work.  It reads nothing but the message.
"""

from __future__ import annotations

from typing import Any

from canasta_sim.core.cards import JOKER, KIND_COUNT, KIND_NAMES, TWO
from canasta_sim.core.kernels import CardMemory
from canasta_sim.core.moves import (
    _SIMPLE,
    WILD_RANK,
    Discard,
    Draw,
    Meld,
    _card_order,
    _group_of,
    _ordered_take,
    parse_move,
)
from canasta_sim.core.strategy import PublicEvent

__all__ = ["UNKNOWN_CARD", "UNKNOWN_HAND", "VIEW_FORMAT", "EventLog", "ViewWire", "hear_events", "meld_rows",
           "move_from_text", "set_view_fields"]

VIEW_FORMAT = 1
"""Version of the view message's layout; bumped when a field changes meaning or goes away."""

_KIND_COUNT = KIND_COUNT


def meld_rows(melds) -> list[list[list[int]]]:
    """Both sides' melds as the view message lists them: ``[rank, naturals, jokers, deuces]`` per melded rank."""
    rows = [[], []]
    for side in range(2):
        side_rows = rows[side]
        table = melds[side]
        for rank in range(_KIND_COUNT):
            meld = table[rank]
            naturals = meld[0]
            jokers = meld[1]
            deuces = meld[2]
            if naturals or jokers or deuces:
                side_rows.append([rank, naturals, jokers, deuces])
    return rows


def _set_meld_tables(tables, rows, rows_seen) -> None:
    """Set both sides' meld tables ``tables`` (a state's, ``[naturals, jokers, deuces]`` per rank) in place to the
    view message's listing ``rows``; a side whose rows are those of ``rows_seen`` is left as it is (most changes are
    one side's melds, and nothing but messages changes the other side's table).

    In place, as the engine changes a live state's melds: building fifteen new lists for a side, and freeing the
    old ones, costs several times this at every change of the melds.  The rows come in rank order (``meld_rows``).
    """
    for side in range(2):
        side_rows = rows[side]
        if rows_seen is not None and side_rows == rows_seen[side]:
            continue
        table = tables[side]
        count = len(side_rows)
        index = 0
        listed = side_rows[0][0] if count else _KIND_COUNT  # the next rank the rows list, a C integer compiled
        for rank in range(_KIND_COUNT):
            meld = table[rank]
            if rank == listed:
                row = side_rows[index]
                index += 1
                listed = side_rows[index][0] if index < count else _KIND_COUNT
                meld[0] = row[1]
                meld[1] = row[2]
                meld[2] = row[3]
            elif meld[0] or meld[1] or meld[2]:
                meld[0] = 0
                meld[1] = 0
                meld[2] = 0


UNKNOWN_HAND = (0,) * _KIND_COUNT  # another seat's hand: unknown, and immutable so that nothing can fill it
UNKNOWN_CARD = -1  # a stock placeholder: a view knows how many cards the stock holds, never which
_SET_ASIDE = ("format", "seat", "hand_number", "dealer", "scores", "initial_minimum")
"""Fields :func:`set_view_fields` sets nothing from: fixed for a seat and hand (set when the state is made), or
derived by the state from the others."""
_KNOWN_FIELDS = ("seat_to_move", "phase", "turn_count", "acquired", "asked", "answer", "must_stop", "hand",
                 "hand_sizes", "stock_count", "pile", "pile_freezers", "side_has_melded", "red_threes", "melds",
                 "turn", *_SET_ASIDE)
"""Every field of a view message: the first :data:`_SETTABLE` are set on the state, by their index here."""
_SETTABLE = 16
_CODES = {name: code for code, name in enumerate(_KNOWN_FIELDS)}
_ORDER = (*_SET_ASIDE[:5], *_KNOWN_FIELDS[:12], "melds", "side_has_melded", "initial_minimum", "red_threes", "turn")
"""The fields in the order the arbiter writes them (``view_message``'s)."""
_ORDERED = len(_ORDER)
_ORDER_CODES = tuple(_CODES[name] for name in _ORDER)


def set_view_fields(state, seat: int, fields: dict, whole: bool, melds_seen):
    """Set the fields of a bot's rebuilt ``state`` (seat ``seat``'s view) from a view message's ``fields``,
    the arbiter's own (not checked); return the meld listing the state's melds now hold.

    ``whole``: ``fields`` is a whole view, and a field missing from it is a ``KeyError``; else it is a
    protocol-2 request's changes, and only the fields it holds are set (one it does not know is a ``KeyError``).
    The melds are rebuilt, and the state's caches that depend on them let go, only when the listing differs
    from ``melds_seen``.  Compiled, each field is one C store on the state, for the bot server's every request.
    """
    # The message's own fields are walked, each found by its code: a request's changes hold a few of the
    # sixteen fields, and looking each of the sixteen up in every message was a tenth of this work.
    count = 0
    unknown = None
    position = 0
    for name, value in fields.items():
        # The arbiter writes a view's fields in one order (view_message's): each is found by walking it on from the
        # last one found, a comparison of texts or two each, where a lookup by hash cost 180 instructions.
        code = -1
        seek = position
        while seek < _ORDERED:
            expected = _ORDER[seek]
            if expected == name:
                code = _ORDER_CODES[seek]
                position = seek + 1
                break
            seek += 1
        if code < 0:
            code = _CODES.get(name, -1)
        if code < 0:
            if unknown is None:
                unknown = []
            unknown.append(name)
        elif code < _SETTABLE:
            melds_seen = _set_field(state, seat, code, value, melds_seen)
            count += 1
    if whole:
        if count != _SETTABLE:
            raise KeyError(_missing(fields))
    elif unknown is not None:
        raise KeyError(f"unknown view fields {sorted(unknown)}")
    state._vouched = None
    state._vouched_key = None
    return melds_seen


def _missing(fields: dict) -> str:
    """The first field a whole view must hold that ``fields`` lacks."""
    for name in _KNOWN_FIELDS[:_SETTABLE]:
        if name not in fields:
            return name
    return ""


def _set_field(state, seat: int, code: int, value, melds_seen):
    """Set the field numbered ``code`` in :data:`_KNOWN_FIELDS` to ``value``; return the meld listing held."""
    if code == 0:
        state.seat = value
    elif code == 1:
        state.phase = value
    elif code == 2:
        state.turn_count = value
    elif code == 3:
        state.acquired = value
    elif code == 4:
        state.asked = value
    elif code == 5:
        state.answer = value
    elif code == 6:
        state.must_stop = value
    elif code == 7:
        hands = [UNKNOWN_HAND, UNKNOWN_HAND, UNKNOWN_HAND, UNKNOWN_HAND]
        hands[seat] = list(value)
        state.hands = hands
    elif code == 8:
        state.hand_sizes = list(value)
    elif code == 9:
        # Resized in place: the count moves by a card or two a request, and a new list of placeholders (and freeing
        # the old) costs more than the change.
        stock = state.stock
        size = len(stock)
        if value < size:
            del stock[value:]
        elif value > size:
            stock.extend([UNKNOWN_CARD] * (value - size))
    elif code == 10:
        state.pile = list(value)
    elif code == 11:
        state.pile_freezers = value
    elif code == 12:
        state.side_has_melded = list(value)
    elif code == 13:
        state.red_threes = list(value)
    elif code == 14:
        if value is not melds_seen and value != melds_seen:
            _set_meld_tables(state.melds, value, melds_seen)
            state.meld_changes += 1
            melds_seen = value
    else:
        turn = value
        state.melded_before_turn = turn["melded_before"]
        state.melded_this_turn = turn["melded"]
        state.turn_new_ranks = set(turn["new_ranks"])
        state.added_to_existing = turn["added_to_existing"]
        state.turn_laid = list(turn["laid"])
    return melds_seen


def hear_events(player, follower: CardMemory | None, events: list, moves: dict) -> None:
    """Tell a bot's ``player`` the moves of an ``events`` message (``events``, each ``[seat, text, red 3s]``),
    as the engine tells it in-process: its event ``follower`` follows each move, or, when it names none, its
    ``on_event`` hears each as a :class:`PublicEvent`.

    ``moves`` holds the moves of the texts parsed so far (texts repeat, and moves are immutable); a text not
    there is parsed and added.  The bot server's part of every request, compiled: a Python loop over the events
    was a fifth of its own lines.  Whatever the player raises goes to the caller.
    """
    for item in events:
        text = item[1]
        move = moves.get(text)
        if move is None:
            move = moves[text] = move_from_text(text)
        if follower is None:
            player.on_event(PublicEvent(item[0], move, item[2]))
        else:
            follower.follow(item[0], move)


_JOKER = JOKER
_TWO = TWO
_WILD_RANK = WILD_RANK
_CANONICAL_KINDS = {name: kind for kind, name in enumerate(KIND_NAMES)}
"""Each kind by its name as the canonical form writes it (``KIND_NAMES``): no case, suit or alias."""


def move_from_text(text: str):
    """:func:`~canasta_sim.core.moves.parse_move` for the protocol's move texts: the same record for every text.

    The canonical form (``str`` of a record: every event, and the answers of ``isolated:`` bots) is read straight
    into the record, each group counted and built by ``_group_of``, with no sort, no case folding and no call per
    card (about a third of the general parse's instructions); any other text goes to ``parse_move``, which raises
    :class:`~canasta_sim.errors.MoveParseError` for a text that is no move.
    """
    move = _SIMPLE.get(text)
    if move is None:
        move = _canonical_move(text)
        if move is None:
            move = parse_move(text)
    return move


def _canonical_move(text: str):
    """The move of a canonical ``text`` other than the one-word moves, else ``None``."""
    verb, _, rest = text.partition(" ")
    if verb == "discard":
        kind = _CANONICAL_KINDS.get(rest, -1)
        return None if kind < 0 else Discard(kind)
    if verb == "meld":
        groups = _canonical_groups(rest)
        return None if groups is None else Meld(groups)
    if verb != "take":
        return None
    cards_text, _, extra_text = rest.partition("; ")  # "take ; GROUPS" takes with no card: cards_text is empty
    extra = ()
    if extra_text:
        extra = _canonical_groups(extra_text)
        if extra is None:
            return None
    cards = []
    last = -1
    if cards_text:
        for token in cards_text.split(" "):
            kind = _CANONICAL_KINDS.get(token, -1)
            if kind < 0:
                return None
            order = _card_order(kind)
            if order < last:
                return None  # not in the canonical order: parse_move sorts them
            last = order
            cards.append(kind)
    return _ordered_take(tuple(cards), extra)


def _canonical_groups(text: str):
    """The groups of a canonical ``GROUP; GROUP`` text, or ``None`` when one is not canonical."""
    groups = []
    for part in text.split("; "):
        group = _groups.get(part)
        if group is None:
            group = _canonical_group(part)
            if group is None:
                return None
            if len(part) <= _GROUP_TEXT_KEPT:  # a bot sending ever longer texts would fill the worker's memory
                if len(_groups) >= _GROUPS_KEPT:
                    _groups.clear()
                _groups[part] = group
        groups.append(group)
    return tuple(groups)


_GROUPS_KEPT = 4096  # group texts kept; few hundred occur in practice
_GROUP_TEXT_KEPT = 64  # characters of a group text kept: all of a rank two decks hold and every wild card take 51
_groups: dict = {}
"""The groups read so far by their canonical text: a group recurs in many moves' texts, and groups are immutable."""


def _canonical_group(text: str):
    """The group of one canonical group text (``8 8 2``, ``7:JK``, ``wild:JK 2``), or ``None``."""
    rank_text, sep, cards_text = text.partition(":")
    rank = -1  # a group without a rank takes its first natural card's
    if sep:
        if rank_text == "wild":
            rank = _WILD_RANK
        else:
            rank = _CANONICAL_KINDS.get(rank_text, -1)
            if rank <= _TWO:
                return None
    else:
        cards_text = text
    naturals = jokers = deuces = 0
    for token in cards_text.split(" "):
        kind = _CANONICAL_KINDS.get(token, -1)
        if kind == _JOKER:
            jokers += 1
        elif kind == _TWO:
            deuces += 1
        elif kind < 0 or (rank >= 0 and kind != rank):
            return None  # no card's canonical name, or a card of another rank: parse_move says which
        else:
            rank = kind
            naturals += 1
    if rank < 0:
        return None
    return _group_of(rank, naturals, jokers, deuces)


class ViewWire:
    """The view of one seat as last sent to its bot in the current hand (see the module's note)."""

    __slots__ = ("_hand_number", "_dealer", "_scores", "_seat_to_move", "_phase", "_turn_count", "_acquired",
                 "_asked", "_answer", "_must_stop", "_hand", "_hand_sizes", "_stock_count", "_pile",
                 "_pile_freezers", "_melds", "_meld_state", "_meld_changes", "_side_has_melded",
                 "_minimum_a", "_minimum_b", "_red_threes", "_melded_before", "_melded", "_added", "_laid",
                 "_new_ranks", "_sent")

    def __init__(self) -> None:
        self._sent = False
        self._meld_state = None

    def forget(self) -> None:
        """Nothing was sent in this hand: the next message is the whole view."""
        self._sent = False
        self._meld_state = None

    def whole(self, view) -> dict[str, Any]:
        """The whole view (``hand_start``, protocol 1), remembered as the view last sent."""
        self._sent = False
        return self.changes(view)

    def changes(self, view) -> dict[str, Any]:
        """The fields that differ from the view last sent, remembered as sent; the whole view (its ``format``
        and ``seat`` first) when nothing was sent in this hand."""
        state = view._state
        seat = view._seat
        fresh = not self._sent
        self._sent = True
        out: dict[str, Any] = {"format": VIEW_FORMAT, "seat": seat} if fresh else {}
        value = state.hand_number
        if fresh or value != self._hand_number:
            self._hand_number = value
            out["hand_number"] = value
        value = state.dealer
        if fresh or value != self._dealer:
            self._dealer = value
            out["dealer"] = value
        scores = view._scores
        if fresh or scores[0] != self._scores[0] or scores[1] != self._scores[1]:
            self._scores = (scores[0], scores[1])
            out["scores"] = [scores[0], scores[1]]
        count = state.seat
        if fresh or count != self._seat_to_move:
            self._seat_to_move = count
            out["seat_to_move"] = count
        value = state.phase
        if fresh or value != self._phase:
            self._phase = value
            out["phase"] = value
        count = state.turn_count
        if fresh or count != self._turn_count:
            self._turn_count = count
            out["turn_count"] = count
        self._flags(state, fresh, out)
        self._cards(state, seat, fresh, out)
        self._table(state, fresh, out)
        self._turn_field(state, fresh, out)
        return out

    def _flags(self, state, fresh: bool, out: dict) -> None:
        value = state.acquired
        if fresh or value != self._acquired:
            self._acquired = value
            out["acquired"] = value
        value = state.asked
        if fresh or value != self._asked:
            self._asked = value
            out["asked"] = value
        value = state.answer
        if fresh or value != self._answer:
            self._answer = value
            out["answer"] = value
        value = state.must_stop
        if fresh or value != self._must_stop:
            self._must_stop = value
            out["must_stop"] = value

    def _cards(self, state, seat: int, fresh: bool, out: dict) -> None:
        # The values kept are copies, so that the state's later changes in place show (a C call each, compiled).
        value = state.hands[seat]
        if fresh or value != self._hand:
            self._hand = list(value)
            out["hand"] = self._hand
        value = state.hand_sizes
        if fresh or value != self._hand_sizes:
            self._hand_sizes = list(value)
            out["hand_sizes"] = self._hand_sizes
        count = len(state.stock)
        if fresh or count != self._stock_count:
            self._stock_count = count
            out["stock_count"] = count
        value = state.pile
        if fresh or value != self._pile:
            self._pile = list(value)
            out["pile"] = self._pile
        count = state.pile_freezers
        if fresh or count != self._pile_freezers:
            self._pile_freezers = count
            out["pile_freezers"] = count

    def _table(self, state, fresh: bool, out: dict) -> None:
        # The melds change far less often than the view is sent: listed again only when the state says they
        # changed (its meld_changes), and sent only when the listing differs from the last one sent.
        if fresh or state is not self._meld_state or state.meld_changes != self._meld_changes:
            self._meld_state = state
            self._meld_changes = state.meld_changes
            rows = meld_rows(state.melds)
            if fresh or rows != self._melds:
                self._melds = rows
                out["melds"] = rows
        value = state.side_has_melded
        if fresh or value != self._side_has_melded:
            self._side_has_melded = list(value)
            out["side_has_melded"] = self._side_has_melded
        # HandState.requirement read as fields (a method call each was a tenth of this work): R10.2, 0 once the
        # side has melded (R10.6).
        melded = state.side_has_melded
        first = 0 if melded[0] else state.requirements[0]
        second = 0 if melded[1] else state.requirements[1]
        if fresh or first != self._minimum_a or second != self._minimum_b:
            self._minimum_a = first
            self._minimum_b = second
            out["initial_minimum"] = [first, second]
        value = state.red_threes
        if fresh or value != self._red_threes:
            self._red_threes = list(value)
            out["red_threes"] = self._red_threes

    def _turn_field(self, state, fresh: bool, out: dict) -> None:
        # The turn's record goes whole when any of its fields changed (docs/protocol.md).
        # Its fields are kept as members, each compared without a lookup in the record sent.
        new_ranks = state.turn_new_ranks
        if (fresh or state.melded_before_turn != self._melded_before or state.melded_this_turn != self._melded
                or state.added_to_existing != self._added or state.turn_laid != self._laid
                or new_ranks != self._new_ranks):
            self._melded_before = state.melded_before_turn
            self._melded = state.melded_this_turn
            self._added = state.added_to_existing
            self._laid = list(state.turn_laid)
            self._new_ranks = frozenset(new_ranks)
            out["turn"] = {
                "melded_before": self._melded_before,
                "melded": self._melded,
                "new_ranks": sorted(new_ranks),
                "added_to_existing": self._added,
                "laid": self._laid,
            }


_KNOWN_KEPT = 8192  # move records whose texts are kept; the cache starts again when it holds more
_known: dict = {}
"""Move records other than draws and discards seen lately by identity (``id`` -> ``(move, its event lines by
seat, its text)``): a bot's answers are parsed once per text, so most of its melds and takes are found by
identity, without hashing the record's fields."""
_texts: dict = {}
"""The same entries by the record's value, for a record seen before as another object (an in-process
strategy's moves are new records each time): its text and lines are made once per value."""
_draw_entry = None
_discard_entries: list = [None] * _KIND_COUNT
"""The entries of draws and of each card's discard, most events: found by the record's type and card, with
neither its identity nor its value hashed."""


def _entry(move) -> tuple:
    global _draw_entry
    kind = type(move)
    if kind is Draw:
        if _draw_entry is None:
            _draw_entry = _new_entry(move)
        return _draw_entry
    if kind is Discard:
        discard = move
        card = discard.card
        if type(card) is int and 0 <= card < _KIND_COUNT:
            entry = _discard_entries[card]
            if entry is None:
                entry = _discard_entries[card] = _new_entry(move)
            return entry
    entry = _known.get(id(move))
    if entry is not None and entry[0] is move:
        return entry
    if len(_known) > _KNOWN_KEPT:
        _known.clear()
        _texts.clear()
    entry = _texts.get(move)
    if entry is None:
        entry = _texts[move] = _new_entry(move)
    else:
        entry = (move, entry[1], entry[2])
    _known[id(move)] = entry  # the entry holds the record: its id cannot be reused while it is there
    return entry


def _new_entry(move) -> tuple:
    text = str(move).encode()
    # Written by hand: move texts hold no character JSON escapes.
    return (move, [b'[%d,"%s",0]' % (seat, text) for seat in range(4)], text)


_last_event = None
_last_line = b""


class EventLog:
    """The public events a bot has not heard yet, each kept as its JSON text (``[seat, move, red 3s]``).

    :meth:`hear` stands in for a proxy strategy's ``on_event``: the engine calls it after every move, for
    every seat whose bot listens.
    """

    __slots__ = ("_lines", "mover", "known")

    def __init__(self) -> None:
        self._lines: list[bytes] = []
        self.mover = -1
        """The seat whose own moves the bot has planned, and so saw as it made them."""
        self.known = 0
        """How many of the mover's next moves not to write: the bot made them in a plan."""

    def hear(self, event) -> None:
        """Keep ``event`` for the next message, unless it is one of the mover's planned moves."""
        # The event's fields read as the record's own (a C struct member each where compiled, not a property).
        seat = event._seat
        if self.known and seat == self.mover:
            self.known -= 1
            return
        global _last_event, _last_line
        if event is _last_event:  # the engine hands each move's event to every listening seat in turn
            self._lines.append(_last_line)
            return
        entry = _entry(event._move)
        red_threes = event._red_threes
        if red_threes:
            line = b'[%d,"%s",%d]' % (seat, entry[2], red_threes)
        else:
            line = entry[1][seat]
        _last_event = event  # held, so that its id is not reused while it is compared
        _last_line = line
        self._lines.append(line)

    def take(self) -> bytes:
        """The events kept, as the items of a JSON list (empty when none), and forget them."""
        if not self._lines:
            return b""
        joined = b",".join(self._lines)
        self._lines.clear()
        return joined

    def clear(self) -> None:
        """Forget the events kept and the planned moves (a new hand)."""
        self._lines.clear()
        self.known = 0

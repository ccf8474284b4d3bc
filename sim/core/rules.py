"""The rule set: one frozen, keyword-only object with a field per docs/rules.md §17 key.

>>> rules = Rules(target_score=3000)
>>> rules.initial_requirement(-40), rules.initial_requirement(0), rules.initial_requirement(3000)
(15, 50, 120)
>>> Rules.from_options(["stock_exhausted_rule=official"]).stock_exhausted_rule
'official'
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import numbers
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from canasta_sim.core.parameters import BOOLEAN_WORDS, BOOLEAN_WORDS_SHOWN, format_value
from canasta_sim.errors import RulesError

__all__ = ["DEFAULT_RULES", "MAX_TARGET_SCORE", "Rules", "RULE_CHOICES", "UnknownRuleError", "unknown_key_message"]

_NEG_INF = float("-inf")

MAX_TARGET_SCORE = 100_000
"""The highest ``target_score``, 20 times the default.  A game stops after ``MAX_HANDS_PER_GAME`` (400) hands
whatever the scores; under the default rules a side scores about 700 a hand, playing at random as well as expert
(measured over 400-hand games), so it reaches this in about 150 hands, and would at 250 a hand.  A larger target
was taken, and a slip (a digit too many) gave games that all ended at the hand cap, with no word of it."""

_HAND_CAP = 400  # core.engine.MAX_HANDS_PER_GAME, which imports this module; a test holds them equal

MAX_POINTS = 100_000
"""The largest size of a bonus, a red 3's value (R11.2, R14.1) and an initial minimum (R10.2), plus or minus.  The
result tables keep every score and minimum as a 32-bit integer: a side's hand can hold 15 canastas and all four red
3s, so with values within this a hand scores at most about 2 million either way, and 400 hands (the cap) at most
800 million, inside the 2,147 million such an integer holds.  A canasta worth 3,000,000,000 was taken, and the
worker writing its first hand failed, charged to a built-in strategy as a crash."""

_POINT_KEYS = ("natural_canasta_bonus", "mixed_canasta_bonus", "going_out_bonus", "concealed_going_out_bonus",
               "red_three_value", "all_four_red_threes_total")

RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "tie_rule": ("play_another_hand", "draw"),
    "wild_ratio_rule": ("no_more_wild_than_natural", "min_two_naturals"),
    "ask_partner": ("optional", "mandatory", "off"),
    "black_three_melds": ("going_out_only", "never"),
    "blocking_wild_cards": ("any_wild", "joker_only"),
    "dealt_red_three_timing": ("after_deal", "first_turn"),
    "stock_exhausted_rule": ("seed", "official", "strict"),
    "last_card_red_three": ("end_no_meld", "meld_no_discard"),
    "going_out_without_discard": ("always_if_canasta", "only_if_hand_holds_canasta"),
}
"""The accepted values of every rule-set key whose value is a word."""


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Rules:
    """A complete rule set; every default is the recommended choice of docs/rules.md §17, which says what each
    alternative does.  Each field is a key of ``--rules KEY=VALUE`` (:meth:`from_options`).

    Fields, with their defaults:

    ``target_score = 5000``
        R15.1: the game ends after the hand in which a side reaches this total (1 to 100,000).
    ``tie_rule = 'play_another_hand'``
        R15.3/D16: equal totals at or above the target: ``play_another_hand``, or ``draw`` (the game ends with no
        winner).
    ``initial_meld_table = ((-inf, 15), (0, 50), (1500, 90), (3000, 120))``
        R10.2: ``(lowest cumulative score, minimum)`` pairs in increasing score order, the first score ``-inf``: a side
        whose total is at least the score needs the minimum for its first meld.
    ``wild_ratio_rule = 'no_more_wild_than_natural'``
        R9.2/D3: ``no_more_wild_than_natural`` (seeds), or ``min_two_naturals`` (official: a meld needs 2 naturals and
        may hold more wild cards than naturals).
    ``max_wilds_per_meld = 3``
        R9.2: the most wild cards one meld may hold.
    ``allow_wild_only_melds = False``
        R9.4: ``True`` allows melds of 3 or more wild cards only (not classic).
    ``canastas_to_go_out = 1``
        R12.1: canastas a side needs before a player may go out (R6.4 keeps cards until then).
    ``natural_canasta_bonus = 500``
        R11.2/R14.1b: the bonus per natural canasta.
    ``mixed_canasta_bonus = 300``
        R11.2/R14.1b: the bonus per mixed canasta.
    ``going_out_bonus = 100``
        R14.1c: the bonus for going out.
    ``concealed_going_out_bonus = 200``
        R14.1c/R12.6: the total for going out concealed; it replaces ``going_out_bonus``.
    ``red_three_value = 100``
        R14.1d: each red 3, when a side has fewer than four.
    ``all_four_red_threes_total = 800``
        R14.1d/D11: the total for all four red 3s on one side (``400`` is the literal seed-000 reading).
    ``red_three_negative_if_no_meld = True``
        R14.1d/D12: red 3s count against a side that melded nothing; ``False``: they count plus.
    ``ask_partner = 'optional'``
        R12.5/D1: ``optional``, ``mandatory`` (going out needs a "yes" to an ask, D21) or ``off`` (nobody may ask).
    ``ask_partner_yes_forces_out = True``
        R12.5: a "yes" obliges the asker to go out, and asking needs going out to be possible.
    ``black_three_melds = 'going_out_only'``
        R5.3/D2: ``going_out_only``, or ``never`` (not even to go out).
    ``black_three_freezes_pile = False``
        R3.4/R5.2/R8.1b/D5: whether a black 3 upcard or discard freezes the pile.
    ``blocking_wild_cards = 'any_wild'``
        R8.1a/D6: ``any_wild``, or ``joker_only`` (a 2 on top does not block, and still cannot be taken, R8.2a).
    ``dealt_red_three_timing = 'after_deal'``
        R3.5/D4: ``after_deal``, or ``first_turn`` (laid and replaced at each owner's first turn).
    ``one_card_single_pile_block = True``
        R8.2d/D15: a player holding one card may not take a one-card pile.
    ``concealed_exempt_from_minimum = True``
        R10.7/D19: going out concealed after drawing needs no initial minimum.
    ``concealed_allows_pile_take = True``
        R12.6: a turn that took the pile may still go out concealed.
    ``stock_exhausted_rule = 'seed'``
        R13.3/D7: ``seed``, ``official`` (a fitting unfrozen pile must be taken) or ``strict`` (the hand ends when the
        stock is empty).
    ``last_card_red_three = 'end_no_meld'``
        R13.1/D14: ``end_no_meld``, or ``meld_no_discard`` (the player may still meld, not discard, then stop).
    ``going_out_without_discard = 'always_if_canasta'``
        R12.2/D9: ``always_if_canasta``, or ``only_if_hand_holds_canasta`` (melding out with no discard needs a whole
        canasta laid from the hand that turn).

    :raises RulesError: from the constructor, naming the key and the accepted values.
    """

    # What each field means is said in the docstring's Fields, which help() shows: a slots dataclass keeps no
    # docstring of a field's own (a test holds the two lists equal).
    target_score: int = 5000
    tie_rule: str = "play_another_hand"
    initial_meld_table: tuple[tuple[float, int], ...] = ((_NEG_INF, 15), (0, 50), (1500, 90), (3000, 120))
    wild_ratio_rule: str = "no_more_wild_than_natural"
    max_wilds_per_meld: int = 3
    allow_wild_only_melds: bool = False
    canastas_to_go_out: int = 1
    natural_canasta_bonus: int = 500
    mixed_canasta_bonus: int = 300
    going_out_bonus: int = 100
    concealed_going_out_bonus: int = 200
    red_three_value: int = 100
    all_four_red_threes_total: int = 800
    red_three_negative_if_no_meld: bool = True
    ask_partner: str = "optional"
    ask_partner_yes_forces_out: bool = True
    black_three_melds: str = "going_out_only"
    black_three_freezes_pile: bool = False
    blocking_wild_cards: str = "any_wild"
    dealt_red_three_timing: str = "after_deal"
    one_card_single_pile_block: bool = True
    concealed_exempt_from_minimum: bool = True
    concealed_allows_pile_take: bool = True
    stock_exhausted_rule: str = "seed"
    last_card_red_three: str = "end_no_meld"
    going_out_without_discard: str = "always_if_canasta"

    def __post_init__(self) -> None:
        for key, choices in RULE_CHOICES.items():
            value = getattr(self, key)
            if value not in choices:
                raise RulesError(f"rule {key}={value!r} is not accepted; use one of: {', '.join(choices)}")
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.type in ("bool", "int") and isinstance(value, str):
                # "use a whole number" for '3000' reads as a contradiction: the text form is from_mapping's.
                wanted = "True or False" if field.type == "bool" else "a whole number as an int"
                raise RulesError(f"rule {field.name}={value!r} is text: Rules() takes {wanted}; "
                                 "Rules.from_mapping reads the text form, as --rules gives it")
            if field.type == "bool" and not isinstance(value, bool):
                raise RulesError(f"rule {field.name}={value!r} is not accepted; use true or false")
            if field.type == "int":
                whole = _whole_number(value)
                if whole is None:
                    raise RulesError(f"rule {field.name}={value!r} is not accepted; use a whole number")
                # A numpy integer (a sweep's grid, a table's cell) is kept as the int it equals, so that equal rule
                # sets hash alike and the compiled engine reads a C integer.
                object.__setattr__(self, field.name, whole)
        if not 0 < self.target_score <= MAX_TARGET_SCORE:
            raise RulesError(f"rule target_score={self.target_score} is not accepted; use a whole number from 1 to "
                             f"{MAX_TARGET_SCORE:,} (a game stops after {_HAND_CAP} hands)")
        for key in _POINT_KEYS:
            value = getattr(self, key)
            if not -MAX_POINTS <= value <= MAX_POINTS:
                raise RulesError(f"rule {key}={value} is not accepted; use a whole number from {-MAX_POINTS:,} to "
                                 f"{MAX_POINTS:,} (the result tables keep scores as 32-bit integers)")
        if self.max_wilds_per_meld < 1:
            raise RulesError(f"rule max_wilds_per_meld={self.max_wilds_per_meld} is not accepted; use 1 or more")
        if self.canastas_to_go_out < 1:
            raise RulesError(f"rule canastas_to_go_out={self.canastas_to_go_out} is not accepted; use 1 or more")
        _verify_meld_table(self.initial_meld_table)

    def initial_requirement(self, cumulative_score: int) -> int:
        """Return the initial-meld minimum (R10.2) for a side with this cumulative score."""
        minimum = self.initial_meld_table[0][1]
        for lowest, value in self.initial_meld_table:
            if cumulative_score >= lowest:
                minimum = value
        return minimum

    def options(self) -> dict[str, Any]:
        """Return every key with its value in the text form :meth:`from_options` accepts back."""
        result: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            result[field.name] = format_meld_table(value) if field.name == "initial_meld_table" else value
        return result

    def changed_options(self) -> dict[str, Any]:
        """Return only the keys whose values differ from the defaults, in text form."""
        defaults = DEFAULT_RULES.options()
        return {key: value for key, value in self.options().items() if defaults[key] != value}

    def changed_words(self) -> list[str]:
        """The keys whose values differ from the defaults as ``KEY=VALUE`` words, as ``--rules`` takes them."""
        return [f"{key}={format_value(value)}" for key, value in self.changed_options().items()]

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Rules:
        """Build a rule set from keys and values; values may be text (``'true'``, ``'5000'``).

        :raises RulesError: for an unknown key, a value that is not accepted, or something else than a mapping.
        """
        if not isinstance(mapping, Mapping):
            raise RulesError(f"Rules.from_mapping takes a mapping of rule keys to values; got a "
                             f"{type(mapping).__name__} (Rules.from_options takes KEY=VALUE texts)")
        kwargs: dict[str, Any] = {}
        for key, value in mapping.items():
            if key not in _FIELD_TYPES:
                raise UnknownRuleError(unknown_key_message(key))
            kwargs[key] = _coerce(key, _FIELD_TYPES[key], value)
        return cls(**kwargs)

    @classmethod
    def from_options(cls, options: Iterable[str]) -> Rules:
        """Build a rule set from ``KEY=VALUE`` texts such as the CLI's ``--rules``.

        :raises RulesError: for a text without ``=``, a key given twice, an unknown key or a bad value, or one text
            given alone instead of a list of them.
        """
        if isinstance(options, str):  # its letters would be read as options, one by one
            raise RulesError(f"Rules.from_options takes a list of KEY=VALUE texts; got the text {options!r} alone: "
                             f"write [{options!r}]")
        mapping: dict[str, str] = {}
        for option in options:
            key, sep, value = option.partition("=")
            if not sep or not key.strip():
                raise RulesError(f"rule option {option!r} is not KEY=VALUE, e.g. target_score=3000")
            key, value = key.strip(), value.strip()
            if key in mapping:  # a slip (the second was taken, the first dropped silently), not an override
                raise RulesError(f"rule {key} is given twice ({mapping[key]}, then {value}); give it once")
            mapping[key] = value
        return cls.from_mapping(mapping)


_FIELD_TYPES = {field.name: field.type for field in dataclasses.fields(Rules)}
"""Each rule-set key's type, as its annotation names it."""

_FIELDS_INIT = Rules.__init__


@functools.wraps(_FIELDS_INIT)
def _init(self: Rules, **options: Any) -> None:
    # A keyword no field has is refused as the builders refuse a key, naming the nearest: Python's own TypeError named
    # neither.  The error is a TypeError too, as an unexpected keyword has always been.
    for key in options:
        if key not in _FIELD_TYPES:
            raise UnknownRuleError(unknown_key_message(key))
    _FIELDS_INIT(self, **options)


Rules.__init__ = _init  # type: ignore[method-assign]


class UnknownRuleError(RulesError, TypeError):
    """A rule-set key no option has: a :class:`~canasta_sim.errors.RulesError`, and from the constructor the
    ``TypeError`` of an unexpected keyword."""


def unknown_key_message(key: object) -> str:
    """The refusal of an unknown rule key: the nearest known key, if one is near, and every known key."""
    nearest = difflib.get_close_matches(str(key), _FIELD_TYPES, n=1)
    hint = f" (did you mean {nearest[0]}?)" if nearest else ""
    return f"unknown rule key {key!r}{hint}; known keys: {', '.join(sorted(_FIELD_TYPES))}"


def format_meld_table(table: tuple[tuple[float, int], ...]) -> str:
    """Return the text form of an initial-meld table, e.g. ``'-inf:15,0:50,1500:90,3000:120'``."""
    return ",".join(f"{'-inf' if lowest == _NEG_INF else int(lowest)}:{minimum}" for lowest, minimum in table)


def parse_meld_table(text: str, *, separator: str = ",") -> tuple[tuple[float, int], ...]:
    """Return the initial-meld table a text form names, e.g. ``'-inf:15,0:50,1500:90,3000:120'``.

    ``separator`` is what separates the pairs: a comma in ``--rules``, a semicolon in an OpenSpiel game's parameters.
    A text that is not such pairs raises :class:`RulesError` showing the form with that separator; whether the table
    is a valid one is judged as a rule set is made (:class:`Rules`).
    """
    pairs = []
    for item in text.split(separator):
        lowest, sep, minimum = item.partition(":")
        try:
            pairs.append((_NEG_INF if lowest.strip() == "-inf" else int(lowest), int(minimum)))
        except ValueError:
            sep = ""
        if not sep:
            example = separator.join(("-inf:15", "0:50", "1500:90", "3000:120"))
            separated = {",": "commas", ";": "semicolons"}.get(separator, repr(separator))
            raise RulesError(f"rule initial_meld_table={text!r} is not accepted; use SCORE:MINIMUM pairs "
                             f"separated by {separated}, starting at -inf, e.g. {example}")
    return tuple(pairs)


def _verify_meld_table(table: Any) -> None:
    # Shown as the text --rules takes when it has that shape (it came from text, or reads as it), else as Python.
    well_formed = isinstance(table, tuple) and all(
        isinstance(pair, tuple) and len(pair) == 2 and all(_writable(part) for part in pair) for pair in table)
    shown = format_meld_table(table) if well_formed and table else repr(table)
    message = (
        f"rule initial_meld_table={shown} is not accepted; use (lowest score, minimum) pairs, the first "
        "score -inf and the others whole numbers in increasing order, each minimum a whole number from 0 to "
        f"{MAX_POINTS:,} (as text: -inf:15,0:50,1500:90,3000:120)"
    )
    if isinstance(table, str):
        # Text is --rules' and run.json's form, read by Rules.from_mapping; the constructor takes the pairs.
        raise RulesError(f"rule initial_meld_table={table!r} is text: Rules() takes (lowest score, minimum) pairs, "
                         "((-inf, 15), (0, 50), (1500, 90), (3000, 120)); Rules.from_mapping reads the text form, "
                         "as run.json holds it")
    if not isinstance(table, tuple) or not table:
        raise RulesError(message)
    lowests = []
    # Shapes and types are checked pair by pair before any comparison, so that a malformed table
    # raises RulesError rather than a TypeError from comparing, say, a str with a float.
    for index, pair in enumerate(table):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise RulesError(message)
        lowest, minimum = pair
        lowest_ok = lowest == _NEG_INF if index == 0 else isinstance(lowest, int) and not isinstance(lowest, bool)
        if not lowest_ok or not isinstance(minimum, int) or isinstance(minimum, bool) or not 0 <= minimum <= MAX_POINTS:
            raise RulesError(message)
        lowests.append(lowest)
    if lowests != sorted(set(lowests)):
        raise RulesError(message)


def _whole_number(value: Any) -> int | None:
    """The int a whole-number value equals (numpy's integers included), or None; never a bool's."""
    # numpy's bool is no Integral, but numpy before 2.0 lets operator.index take it (with a DeprecationWarning) as 0
    # or 1: asking for an Integral refuses it on every numpy pyproject.toml admits.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _writable(part: Any) -> bool:
    """Whether :func:`format_meld_table` can write a score or a minimum: ``-inf`` or a whole number (a nan, an infinite
    or a fractional score is shown as Python writes it)."""
    return part == _NEG_INF or isinstance(part, int) or isinstance(part, float) and part.is_integer()


def _coerce(key: str, type_name: str, value: Any) -> Any:
    if not isinstance(value, str):
        if key == "initial_meld_table" and isinstance(value, (list, tuple)):
            return tuple(tuple(pair) if isinstance(pair, (list, tuple)) else pair for pair in value)
        return value
    if type_name == "bool":
        word = value.strip().lower()
        if word not in BOOLEAN_WORDS:
            raise RulesError(f"rule {key}={value!r} is not accepted; use {BOOLEAN_WORDS_SHOWN}")
        return BOOLEAN_WORDS[word]
    if type_name == "int":
        try:
            return int(value)
        except ValueError:
            raise RulesError(f"rule {key}={value!r} is not accepted; use a whole number") from None
    if key == "initial_meld_table":
        return parse_meld_table(value)
    return value.strip()


DEFAULT_RULES = Rules()
"""The recommended rule set of docs/rules.md §17."""

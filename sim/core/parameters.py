"""Strategy parameters: a default, and optionally the range and step a tuner may explore.

A strategy lists its parameters in :attr:`canasta_sim.core.strategy.Strategy.parameters`, each either a
plain default (``{"depth": 2}``, as before) or a :class:`Parameter` record that adds a range::

    parameters = {
        "aggression": Parameter(0.5, low=0.0, high=1.0, step=0.01, help="how readily it goes out"),
        "depth": 2,  # a plain default: accepted from specs, never tuned
    }

The type of a parameter is its default's (``bool``, ``int``, ``float`` or ``str``); a spec's text is
converted to it, and a number outside a declared range is refused with a one-line error.  Only the
declarations change here: a strategy plays the same whichever form declares its defaults.

>>> parameter = Parameter(0.5, low=0.0, high=1.0, step=0.01)
>>> convert_parameter("expert", "aggression", parameter, "0.7")
0.7
>>> convert_parameter("expert", "aggression", parameter, "abc")
Traceback (most recent call last):
...
canasta_sim.errors.StrategyLoadError: expert: aggression=abc is not a number; expected a float from 0 to 1, such as 0.5
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any

from canasta_sim.errors import StrategyLoadError

__all__ = ["BOOLEAN_WORDS", "BOOLEAN_WORDS_SHOWN", "Parameter", "convert_parameter", "declared_parameters",
           "format_value"]

BOOLEAN_WORDS = {"true": True, "yes": True, "on": True, "1": True,
                 "false": False, "no": False, "off": False, "0": False}
"""The words a yes/no setting (a strategy's parameter, a rule) is given as, in lower case; any case is accepted."""

BOOLEAN_WORDS_SHOWN = "true or false (also yes/no, on/off, 1/0)"
""":data:`BOOLEAN_WORDS` as the messages name them."""


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One parameter's declaration: its default and, for a number a tuner may change, its range.

    :ivar default: the value used when a spec does not give one; its type is the parameter's type.
    :ivar low: the smallest accepted value (with ``high``; both or neither).
    :ivar high: the largest accepted value.
    :ivar step: the grid a tuner rounds its values to (default: 1 for an int, none for a float).
    :ivar help: one line saying what the parameter does, for ``canasta-sim strategies``.
    :raises ValueError: for a range on a non-number, ``low > high``, a default outside the range,
        a step that is not positive or is wider than the range, or a non-integer bound or step on an int parameter.
    """

    default: Any
    low: float | None = dataclasses.field(default=None, kw_only=True)
    high: float | None = dataclasses.field(default=None, kw_only=True)
    step: float | None = dataclasses.field(default=None, kw_only=True)
    help: str = dataclasses.field(default="", kw_only=True)

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None):
            raise ValueError(f"a parameter range needs both low and high; got low={self.low}, high={self.high}")
        if self.low is None:
            if self.step is not None:
                raise ValueError(f"a step ({self.step}) needs a range (low and high)")
            return
        if not self.is_number:
            raise ValueError(f"only int and float parameters take a range; the default {self.default!r} is a "
                             f"{type(self.default).__name__}")
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise ValueError(f"a parameter range needs finite low <= high; got {self.low} to {self.high}")
        if not self.low <= self.default <= self.high:
            raise ValueError(f"the default {self.default} is outside the range {self.low} to {self.high}")
        if self.step is not None and not (math.isfinite(self.step) and self.step > 0):
            raise ValueError(f"a parameter step must be positive; got {self.step}")
        if self.step is not None and self.high > self.low and self.step > self.high - self.low:
            # A tuner's grid needs two values at least; a larger step would leave it none to move between.
            raise ValueError(f"a parameter step must be at most its range's width; got step {format_value(self.step)} "
                             f"for {format_value(self.low)} to {format_value(self.high)}")
        if isinstance(self.default, int):
            for what, value in (("low", self.low), ("high", self.high), ("step", self.step)):
                if value is not None and value != int(value):
                    raise ValueError(f"an int parameter needs whole numbers; got {what}={value}")

    @property
    def is_number(self) -> bool:
        """Whether the parameter is an int or a float (a bool is neither)."""
        return isinstance(self.default, int | float) and not isinstance(self.default, bool)

    @property
    def is_tunable(self) -> bool:
        """Whether a tuner may change it: a number with a declared range wider than a point."""
        return self.low is not None and self.high > self.low

    @property
    def grid_step(self) -> float | None:
        """The step values are rounded to: the declared one, else 1 for an int, else none."""
        if self.step is not None:
            return self.step
        return 1 if isinstance(self.default, int) and not isinstance(self.default, bool) else None

    @property
    def type_name(self) -> str:
        """``'int'``, ``'float'``, ``'bool'``, ``'str'`` or the default's type name."""
        return type(self.default).__name__

    def range_text(self) -> str:
        """The range in words, e.g. ``'0 to 1, step 0.01'``, or ``''`` without a range."""
        if self.low is None:
            return ""
        text = f"{format_value(self.low)} to {format_value(self.high)}"
        return text if self.step is None else f"{text}, step {format_value(self.step)}"


def declared_parameters(parameters: Mapping[str, Any]) -> dict[str, Parameter]:
    """Every entry of a strategy's ``parameters`` as a :class:`Parameter` (a plain default gets no range).

    >>> declared_parameters({"depth": 2})["depth"]
    Parameter(default=2, low=None, high=None, step=None, help='')
    """
    return {key: value if isinstance(value, Parameter) else Parameter(value) for key, value in parameters.items()}


def format_value(value: Any) -> str:
    """A value as a spec writes it: ``0.5``, ``5``, ``true``; floats without trailing noise.

    >>> format_value(0.1 + 0.2), format_value(4.0), format_value(True)
    ('0.3', '4', 'true')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


def convert_parameter(strategy: str, key: str, declaration: Parameter | Any, value: Any) -> Any:
    """Return ``value`` as the parameter's type, checked against its range where one is declared.

    Text (from a spec) is converted to the default's type; a typed value is taken as it is when it is of that type
    (an int where the default is a float too, and a numpy integer as the int it equals), and refused otherwise.

    :raises StrategyLoadError: in one line naming the strategy, the parameter, the value and what is accepted.
    """
    if not isinstance(declaration, Parameter):
        declaration = Parameter(declaration)
    default = declaration.default
    if isinstance(value, str) and not isinstance(default, str):
        value = _from_text(strategy, key, declaration, value)
    else:
        value = _of_the_defaults_type(strategy, key, declaration, value)
    if declaration.low is not None and isinstance(value, int | float) and not isinstance(value, bool):
        if not declaration.low <= value <= declaration.high:
            raise StrategyLoadError(
                f"{strategy}: {key}={format_value(value)} is out of range; expected {_expected(declaration)}"
            )
    return value


def _from_text(strategy: str, key: str, declaration: Parameter, text: str) -> Any:
    default = declaration.default
    if isinstance(default, bool):
        lowered = text.strip().lower()
        if lowered in BOOLEAN_WORDS:
            return BOOLEAN_WORDS[lowered]
        what = "true or false"
    elif isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            what = "a whole number"
    elif isinstance(default, float):
        try:
            number = float(text)
        except ValueError:
            what = "a number"
        else:
            if math.isfinite(number):
                return number
            what = "a finite number"
    else:  # a default of another type: the text is passed on for the strategy to interpret
        return text
    shown = text if text.strip() and text.isprintable() else repr(text)
    raise StrategyLoadError(f"{strategy}: {key}={shown} is not {what}; expected {_expected(declaration)}")


def _of_the_defaults_type(strategy: str, key: str, declaration: Parameter, value: Any) -> Any:
    """A value given from Python as its parameter takes it, or the one-line refusal its text would have had: a value
    of another type (``2.5`` for an int, ``None`` or ``inf`` for a float) would otherwise be set as it is."""
    default = declaration.default
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        what = "true or false"
    elif isinstance(default, int):
        if number and isinstance(value, numbers.Integral):
            return int(value)
        what = "a whole number"
    elif isinstance(default, float):
        if number and (math.isfinite(value) or declaration.low is not None):  # a range refuses nan and inf itself
            return value
        what = "a finite number" if number else "a number"
    elif isinstance(default, str):
        if isinstance(value, str):
            return value
        raise StrategyLoadError(f"{strategy}: {key}={value!r} is not text; expected text such as {default!r}")
    else:  # a default of another type: the strategy interprets what it is given
        return value
    shown = format_value(value) if isinstance(value, bool | int | float) else repr(value)
    raise StrategyLoadError(f"{strategy}: {key}={shown} is not {what}; expected {_expected(declaration)}")


def _expected(declaration: Parameter) -> str:
    default = declaration.default
    if isinstance(default, bool):
        return f"{BOOLEAN_WORDS_SHOWN}, such as {format_value(default)}"
    kind = "an int" if isinstance(default, int) else "a float"
    if declaration.low is not None:
        kind += f" from {format_value(declaration.low)} to {format_value(declaration.high)},"
    example = format_value(default)
    if isinstance(default, float) and "." not in example and "e" not in example:
        example += ".0"  # "such as 1.0": the example shows that a fraction is accepted
    return f"{kind} such as {example}"

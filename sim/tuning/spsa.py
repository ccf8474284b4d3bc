"""SPSA, simultaneous perturbation stochastic approximation: the update rule of ``canasta-sim tune``.

Nothing here knows canasta: a :class:`Spsa` maximizes any noisy objective that can only be observed
as the result of a match between two candidate points, which is how chess-engine testers tune
(fishtest's SPSA) and how :mod:`canasta_sim.tuning.iteration` uses it.

**Units.** Each parameter ``i`` is a :class:`Dimension` with a range ``[low_i, high_i]``; the
algorithm works in *normalized* units ``u_i = (theta_i - low_i) / (high_i - low_i)``, so one gain
fits parameters of any scale: a perturbation of ``0.1`` moves every parameter by a tenth of its range.

**Iteration k** (``k = 0, 1, ...``), from the current point ``theta`` (kept unrounded):

1. gains ``a_k = a / (A + k + 1) ** alpha`` and ``c_k = c / (k + 1) ** gamma``, with Spall's
   recommended ``alpha = 0.602`` and ``gamma = 0.101``; ``A`` (the stability constant) defaults to a
   tenth of the planned iterations, which keeps the first steps from being the largest;
2. a perturbation ``delta`` of independent signs ``+1``/``-1`` drawn from a generator seeded by
   ``(seed, k)`` alone, so an iteration's draw does not depend on how the run was split or resumed;
3. two candidates ``plus = theta + c_k * delta`` and ``minus = theta - c_k * delta`` (normalized units),
   each clipped to the range and rounded to the dimension's step: the values actually played;
4. a match between them gives ``result``, an estimate of ``f(plus) - f(minus)`` (for a game, the plus
   side's mean score minus its opponent's, so 0 is a tie and +1 a clean sweep);
5. the gradient estimate ``g_i = result / (2 * c_k * delta_i)``, taken as 0 for a parameter whose
   rounded candidates came out equal (the match said nothing about it), and the step
   ``theta_i <- clip(theta_i + a_k * g_i)``: towards the side that won, by more when it won by more.

>>> dimensions = [Dimension("x", low=0.0, high=1.0)]
>>> spsa = Spsa(dimensions, SpsaSettings(iterations=200, seed=1))
>>> theta = spsa.start({"x": 0.1})
>>> for k in range(200):
...     proposal = spsa.propose(theta, k)
...     result = proposal.plus[0] - proposal.minus[0]  # a match that prefers larger x
...     theta = spsa.update(theta, proposal, result)
>>> theta[0] > 0.9
True
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Mapping, Sequence

__all__ = ["ALPHA", "GAMMA", "SETTING_WORDS", "Dimension", "Proposal", "SettingError", "Spsa", "SpsaSettings",
           "maximize"]

ALPHA = 0.602
"""Decay exponent of the step gain ``a_k`` (Spall's recommended value)."""
GAMMA = 0.101
"""Decay exponent of the perturbation gain ``c_k`` (Spall's recommended value)."""


@dataclasses.dataclass(frozen=True)
class Dimension:
    """One parameter's range and grid.

    :ivar name: the parameter's name.
    :ivar low: smallest value.
    :ivar high: largest value (greater than ``low``).
    :ivar step: values are rounded to ``low + n * step``; ``None`` leaves them continuous.
    :ivar integer: values are returned as ``int`` (the bounds and step must then be whole numbers).
    """

    name: str
    low: float = dataclasses.field(kw_only=True)
    high: float = dataclasses.field(kw_only=True)
    step: float | None = dataclasses.field(default=None, kw_only=True)
    integer: bool = dataclasses.field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise ValueError(f"dimension {self.name!r} needs finite low < high; got {self.low} to {self.high}")
        if self.step is not None and not (math.isfinite(self.step) and 0 < self.step <= self.high - self.low):
            raise ValueError(f"dimension {self.name!r} needs 0 < step <= high - low; got step {self.step}")

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def clip(self, value: float) -> float:
        """``value`` bounded to ``[low, high]``."""
        return min(self.high, max(self.low, value))

    def snap(self, value: float) -> float | int:
        """``value`` clipped and rounded to the grid: what a candidate plays.

        >>> Dimension("x", low=0.0, high=1.0, step=0.01).snap(0.30000000000000004)
        0.3
        >>> Dimension("n", low=1, high=20, step=1, integer=True).snap(25.2)
        20
        """
        value = self.clip(value)
        if self.step is not None:
            count = round((value - self.low) / self.step)
            value = self.clip(self.low + count * self.step)
            # Round away the binary noise of low + count * step (0.30000000000000004 -> 0.3).
            value = round(value, _decimals(self.step) + _decimals(self.low))
        return int(round(value)) if self.integer else value

    def normalize(self, value: float) -> float:
        """``value`` in units of the range: 0 at ``low``, 1 at ``high``."""
        return (value - self.low) / self.width

    def denormalize(self, unit: float) -> float:
        """The value at ``unit`` of the range."""
        return self.low + unit * self.width


def _decimals(number: float) -> int:
    """Decimal places needed to write ``number`` (at most 12)."""
    text = f"{number:.12f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


SETTING_WORDS = {
    "iterations": "the number of iterations", "learning_rate": "the learning rate a",
    "perturbation": "the perturbation c", "stability": "the stability constant A", "alpha": "alpha", "gamma": "gamma",
}
"""How a :class:`SettingError` names each field of :class:`SpsaSettings` to a reader of this module."""


class SettingError(ValueError):
    """A field of :class:`SpsaSettings` outside what it accepts.  It keeps the field's name, so that a caller whose user
    gives the field under another name (a command's option) can name it that way.

    :ivar field: the field of :class:`SpsaSettings`, e.g. ``'learning_rate'``.
    :ivar accepted: what the field accepts, in words (``'a finite number above 0'``).
    :ivar value: the value refused.
    """

    def __init__(self, field: str, accepted: str, value: float) -> None:
        self.field, self.accepted, self.value = field, accepted, value
        super().__init__(self.told_as(SETTING_WORDS[field]))

    def told_as(self, name: str) -> str:
        """The error in one line, naming the field ``name``: ``'--learning-rate must be a finite number above 0; got
        0'``."""
        value = self.value
        shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        return f"{name} must be {self.accepted}; got {shown}"


@dataclasses.dataclass(frozen=True, kw_only=True)
class SpsaSettings:
    """The gains and the seed of a run of SPSA (see the module's description for the formulas).

    :ivar iterations: the planned number of iterations (sets the default ``stability``).
    :ivar seed: seeds each iteration's perturbation together with the iteration's number.
    :ivar learning_rate: ``a``, the step gain, in normalized units per unit of result.
    :ivar perturbation: ``c``, the first perturbation, as a fraction of each range.
    :ivar stability: ``A``; ``None`` means a tenth of ``iterations``.
    :ivar alpha: decay exponent of ``a_k``.
    :ivar gamma: decay exponent of ``c_k``.
    """

    iterations: int
    seed: int
    learning_rate: float = 0.3
    perturbation: float = 0.2
    stability: float | None = None
    alpha: float = ALPHA
    gamma: float = GAMMA

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise SettingError("iterations", "at least 1", self.iterations)
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise SettingError("learning_rate", "a finite number above 0", self.learning_rate)
        if not (math.isfinite(self.perturbation) and 0 < self.perturbation <= 0.5):
            raise SettingError("perturbation", "above 0 and at most 0.5 (a fraction of each range)",
                               self.perturbation)
        if self.stability is not None and not (math.isfinite(self.stability) and self.stability >= 0):
            raise SettingError("stability", "a finite number, 0 or more", self.stability)
        for name, value in (("alpha", self.alpha), ("gamma", self.gamma)):
            if not (math.isfinite(value) and 0 < value <= 1):
                raise SettingError(name, "above 0 and at most 1", value)

    @property
    def stability_constant(self) -> float:
        """``A``: the given one, or a tenth of the planned iterations."""
        return self.stability if self.stability is not None else self.iterations / 10

    def gains(self, iteration: int) -> tuple[float, float]:
        """``(a_k, c_k)`` of iteration ``k = iteration``.

        >>> settings = SpsaSettings(iterations=100, seed=0, learning_rate=1.0, perturbation=0.2)
        >>> [round(gain, 4) for gain in settings.gains(0)]
        [0.2361, 0.2]
        """
        a_k = self.learning_rate / (self.stability_constant + iteration + 1) ** self.alpha
        c_k = self.perturbation / (iteration + 1) ** self.gamma
        return a_k, c_k


@dataclasses.dataclass(frozen=True)
class Proposal:
    """The two candidates of one iteration, as played, and what the update needs to know about them."""

    iteration: int
    delta: tuple[int, ...]
    """The sign (+1 or -1) of each dimension's perturbation."""
    step_gain: float
    """``a_k``."""
    perturbation_gain: float
    """``c_k``, in normalized units."""
    plus: tuple[float | int, ...]
    """``theta + c_k * delta``, clipped and rounded."""
    minus: tuple[float | int, ...]
    """``theta - c_k * delta``, clipped and rounded."""


class Spsa:
    """The SPSA update rule over some dimensions, maximizing the result of ``plus`` against ``minus``.

    The state is just the point ``theta`` (a tuple, in the parameters' own units), passed in and
    returned: an iteration is a pure function of ``(theta, k, result)`` and the settings.
    """

    def __init__(self, dimensions: Sequence[Dimension], settings: SpsaSettings) -> None:
        if not dimensions:
            raise ValueError("SPSA needs at least one dimension to tune")
        names = [dimension.name for dimension in dimensions]
        if len(set(names)) != len(names):
            raise ValueError(f"dimension names must differ; got {', '.join(names)}")
        self.dimensions = tuple(dimensions)
        self.settings = settings

    def start(self, values: Mapping[str, float]) -> tuple[float, ...]:
        """The starting point from values by name, each clipped to its range.

        :raises KeyError: naming a dimension without a value.
        """
        return tuple(float(dimension.clip(values[dimension.name])) for dimension in self.dimensions)

    def perturbation(self, iteration: int) -> tuple[int, ...]:
        """The signs of iteration ``iteration``'s perturbation, from ``(seed, iteration)`` alone."""
        # A string seed goes through SHA-512: the same draw in every process and on every platform.
        generator = random.Random(f"spsa/{self.settings.seed}/{iteration}")
        return tuple(1 if generator.random() < 0.5 else -1 for _ in self.dimensions)

    def propose(self, theta: Sequence[float], iteration: int) -> Proposal:
        """The candidates to play in iteration ``iteration`` from the point ``theta``."""
        a_k, c_k = self.settings.gains(iteration)
        delta = self.perturbation(iteration)
        plus, minus = [], []
        for dimension, value, sign in zip(self.dimensions, theta, delta, strict=True):
            shift = c_k * sign * dimension.width
            plus.append(dimension.snap(value + shift))
            minus.append(dimension.snap(value - shift))
        return Proposal(iteration, delta, a_k, c_k, tuple(plus), tuple(minus))

    def gradient(self, proposal: Proposal, result: float) -> tuple[float, ...]:
        """The gradient estimate ``result / (2 c_k delta_i)`` in normalized units (0 where plus equals minus)."""
        return tuple(
            0.0 if plus == minus else result / (2.0 * proposal.perturbation_gain * sign)
            for plus, minus, sign in zip(proposal.plus, proposal.minus, proposal.delta, strict=True)
        )

    def update(self, theta: Sequence[float], proposal: Proposal, result: float) -> tuple[float, ...]:
        """The next point: ``theta`` moved by ``a_k`` times the gradient estimate, clipped to the ranges.

        :param result: the match's estimate of ``f(plus) - f(minus)``, between -1 and 1.
        """
        if not -1.0 <= result <= 1.0:
            raise ValueError(f"an SPSA result must be between -1 and 1; got {result}")
        return tuple(
            dimension.clip(value + proposal.step_gain * estimate * dimension.width)
            for dimension, value, estimate in zip(self.dimensions, theta, self.gradient(proposal, result), strict=True)
        )

    def rounded(self, theta: Sequence[float]) -> tuple[float | int, ...]:
        """``theta`` rounded to each dimension's grid: the values to report."""
        return tuple(dimension.snap(value) for dimension, value in zip(self.dimensions, theta, strict=True))


def maximize(
    spsa: Spsa,
    theta: Sequence[float],
    match: Callable[[tuple[float | int, ...], tuple[float | int, ...], int], float],
    iterations: range,
) -> tuple[float, ...]:
    """Run the given iterations: ``match(plus, minus, k)`` returns the result of plus against minus.

    A convenience for objectives cheap enough to call in a loop; ``canasta-sim tune`` drives
    :meth:`Spsa.propose` and :meth:`Spsa.update` itself, to play each match in parallel and save each step.
    """
    point = tuple(theta)
    for iteration in iterations:
        proposal = spsa.propose(point, iteration)
        point = spsa.update(point, proposal, match(proposal.plus, proposal.minus, iteration))
    return point

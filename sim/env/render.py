"""The environments' render modes: the terminal game's screen of one seat's table, as text or printed.

The screen is :func:`canasta_sim.terminal.human.screen_lines`, what a person playing ``canasta-sim play`` sees at
that seat (the scores, both sides' melds and red 3s, the pile, the stock and the seat's own hand, by rank: the
environments follow kinds, not card ids), with one line after it: the decision due and any choices of a compound
move made so far, or the game's end as the narrator writes it.  It shows nothing the seat may not know.
"""

from __future__ import annotations

from collections.abc import Sequence

from canasta_sim.core.engine import GameResult
from canasta_sim.env.driver import GameDriver, shown
from canasta_sim.terminal.human import screen_lines
from canasta_sim.terminal.narrate import SEAT_NAMES, Narrator

__all__ = ["RENDER_MODES", "check_dealt", "check_render_mode", "render_text", "table_text"]

RENDER_MODES = ("ansi", "human")
"""``ansi``: ``render()`` returns the table as text; ``human``: ``reset()`` and ``step()`` print it, and so does
``render()``, which returns ``None`` (Gymnasium's and PettingZoo's meaning of both)."""


def check_render_mode(render_mode: str | None) -> str | None:
    """Return ``render_mode`` when it is ``None`` or one of :data:`RENDER_MODES`; raise ``ValueError`` naming them."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in RENDER_MODES):
        raise ValueError(f"render_mode={shown(render_mode)} is not accepted; use None, 'ansi' or 'human'")
    return render_mode


def check_dealt(driver: GameDriver) -> None:
    """Raise ``ValueError`` when ``driver`` has dealt no game yet: there is no table to show."""
    if driver.state is None:
        raise ValueError("there is no table to render before the first reset(); call reset() first")


def table_text(driver: GameDriver, seat: int, *, chosen: Sequence[str] = (), ended: str | None = None) -> str:
    """The table as seat ``seat`` sees it, then the decision due (with ``chosen``, the texts of the actions of a
    compound move chosen so far), the game's end, the failure of a strategy seat that stopped it, or ``ended``: why an
    episode ended before the game did.

    :raises ValueError: before the first ``reset()``, when there is no table to show.
    """
    check_dealt(driver)
    lines = screen_lines(driver.view(seat))
    if ended is not None:
        lines.append(ended)
    elif driver.failure is not None:  # the failed seat's decision is still due, but nobody will make it
        message = driver.idle_message
        lines.append(f"{message[0].upper()}{message[1:]}.")
    elif driver.is_over:
        result = GameResult(seed=driver.seed, scores=driver.totals, winner=driver.winner,
                            termination=driver.termination, first_dealer=driver.first_dealer, hands=tuple(driver.hands))
        Narrator(lines.append).game_over(result)
    else:
        actor = driver.actor
        so_far = f"; chosen so far: {', '.join(chosen)}" if chosen else ""
        lines.append(f"{SEAT_NAMES[actor]} (seat {actor}) to decide: {driver.decision}{so_far}.")
    return "\n".join(lines)


def render_text(render_mode: str | None, text: str) -> str | None:
    """What ``render()`` does with the table's ``text`` in ``render_mode``: return it (``ansi``), print it
    (``human``), or nothing (``None``)."""
    if render_mode == "human":
        print(text)
    return text if render_mode == "ansi" else None

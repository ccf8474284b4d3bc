"""``canasta-sim compare --out DIR``: the games a comparison counted, saved as the run directory ``canasta-sim run``
writes for the same seed, games and strategies, so that ``report``, ``plot``, ``replay`` and ``run --resume`` work on
it (:mod:`canasta_sim.cli.compare`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pyarrow as pa
import pyarrow.compute as pc

from canasta_sim.cli import RESUMED_WITH
from canasta_sim.cli.compare_resume import ResumePoint
from canasta_sim.cli.options import fail
from canasta_sim.cli.replaying import options_played_with
from canasta_sim.cli.run import new_manifest, now_text, reproducing_command, session_opening
from canasta_sim.runs.containment import containment_text
from canasta_sim.runs.interleave import games_at_once_cap
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError

if TYPE_CHECKING:  # the plan's module imports this one
    from canasta_sim.cli.compare import MatchPlan

__all__ = ["RunRecorder"]


class RunRecorder:
    """Saves the games a comparison counted as a run directory (``--out``), block by block as chunks.

    ``run.json`` records how they were played as ``run`` records a session (``--workers``, ``--on-error``,
    ``--memory-limit``, ``--games-at-once``), in its command and its session: the memory limit decides which
    strategies fail, and ``run --resume`` goes on with it.
    """

    def __init__(self, path: Path, plan: MatchPlan, seed_drawn: bool, max_games: int, time_limit: float | None,
                 on_error: str, workers: int, memory_limit: int | None, test: dict | None = None,
                 resumed: ResumePoint | None = None, *, chunk_games: int, block_games: int) -> None:
        self.directory = RunDirectory(path)
        self.test = test
        """The test's settings, recorded (as ``compare``) with the first game so that ``--resume`` finds them."""
        if resumed is None and self.directory.path.exists() and not self.directory.is_empty():
            raise fail(f"--out {path} is not empty; choose a new or empty directory (or go on with a comparison "
                       f"saved there: canasta-sim compare --resume {quote_shown(str(path))})")
        try:
            self.settings = RunSettings(games=max_games, seed=plan.seed, specs=(plan.new, plan.old), rules=plan.rules,
                                        chunk_size=chunk_games, duplicate=plan.duplicate, time_limit=time_limit)
        except ValueError as error:
            raise fail(f"--out: these games cannot be saved as a run: {error}") from None
        self.loaded = list(self.settings.load_strategies().values())
        try:
            # Made now, costing no game if it cannot be; held to the end, a second comparison into it refused.
            click.get_current_context().with_resource(self.directory.claimed())
        except RunDirectoryError as error:
            raise fail(f"--out: {error}") from None
        click.get_current_context().meta[RESUMED_WITH] = f"canasta-sim compare --resume {quote_shown(str(path))}"
        self.seed_drawn, self.on_error, self.workers = seed_drawn, on_error, workers
        self.memory_limit = memory_limit
        self.manifest: dict | None = None
        self.chunk_blocks = chunk_games // block_games
        """Blocks per saved chunk: they come in block order, and a chunk is written when its last one has."""
        self.pending: list[tuple[pa.Table, pa.Table]] = []
        """The tables of the blocks of chunk :attr:`pending_chunk` not written yet."""
        self.pending_chunk = 0
        self.last: tuple[int, tuple] | None = None  # the last chunk written, and its tables
        if resumed is not None:
            self.manifest = resumed.manifest
            self.pending_chunk = resumed.games // chunk_games
            self._start_session()

    def on_block(self, block: int, tables: tuple) -> None:
        """Keep a block's games, and write them with their chunk's when the chunk is whole (what is left when the test
        ends is written by :meth:`finish`, cut to the games counted)."""
        if self.manifest is None:
            self.manifest = new_manifest(self.settings, self.loaded, self.seed_drawn, self.directory.path)
            # No LLR yet: report states no verdict for a comparison killed before its end, which --resume goes on with.
            self.manifest["compare"] = {**(self.test or {}), "llr": None, "decision": None, "games": 0, "forfeits": 0}
            self._start_session()
        chunk = block // self.chunk_blocks
        if chunk != self.pending_chunk:  # (blocks come in order: a chunk of blocks without games was skipped)
            self._write_pending()
            self.pending_chunk = chunk
        self.pending.append(tables)
        if block % self.chunk_blocks == self.chunk_blocks - 1:
            self._write_pending()

    def _start_session(self) -> None:
        session = {**session_opening(), "command": "compare", "workers": self.workers, "on_error": self.on_error,
                   "containment": containment_text()}
        if self.memory_limit is not None:  # as run records it: only when there is one
            session.update(memory_limit=self.memory_limit)
        if (cap := games_at_once_cap()) is not None:
            session.update(games_at_once=cap)
        self.manifest.update(status="running")
        self.manifest.setdefault("sessions", []).append(session)
        self.directory.write_manifest(self.manifest)

    def _write_pending(self) -> None:
        if self.pending:
            tables = tuple(pa.concat_tables(part) for part in zip(*self.pending, strict=True))
            self.directory.write_chunk(self.pending_chunk, *tables)
            self.last = (self.pending_chunk, tables)
            self.pending = []

    def finish(self, games_counted: int, status: str, comparison: dict) -> None:
        """Keep only the ``games_counted`` games the test used and record the run as ``canasta-sim run`` would."""
        if self.manifest is None:
            return
        if not games_counted:
            # A run holds one game or more: none counted (a failure in the first deal), none kept, rather than a run
            # of one game holding none, which run --resume would finish with a game the test never counted.
            for path in (*self.directory.parts(self.directory.games_path).values(),
                         *self.directory.parts(self.directory.hands_path).values(), self.directory.manifest_path):
                path.unlink(missing_ok=True)
            self.manifest = None
            return
        self._write_pending()
        if self.last is not None:
            block, (games, hands) = self.last
            if games.num_rows and games["game_id"][games.num_rows - 1].as_py() >= games_counted:
                keep_games = games.filter(pc.less(games["game_id"], games_counted))
                keep_hands = hands.filter(pc.less(hands["game_id"], games_counted))
                self.directory.write_chunk(block, keep_games, keep_hands)
        settings = dataclasses.replace(self.settings, games=games_counted)
        played = options_played_with(self.workers, self.on_error, self.memory_limit)
        self.manifest.update(games=settings.games, chunks=settings.chunk_count,
                             command=reproducing_command(settings, self.directory.path, played), status=status,
                             ended_at=now_text(), games_done=sum(self.directory.chunk_game_counts().values()),
                             on_error=self.on_error, compare=comparison)
        self.manifest["sessions"][-1].update(ended_at=self.manifest["ended_at"], status=status)
        self.directory.write_manifest(self.manifest)

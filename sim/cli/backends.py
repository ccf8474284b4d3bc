"""Which backend plays a ``run``'s chunks, and what it takes before anything of the run is written: the options each
backend refuses, a memory limit for the local one, and a reachable scheduler for a Dask cluster given by address."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path

import click

from canasta_sim.cli.options import fail, fail_each, limit_memory
from canasta_sim.errors import CanastaError, MachineRefusal, install_hint
from canasta_sim.plugins.loader import LoadedStrategy
from canasta_sim.runs import dask_backend
from canasta_sim.runs.interleave import games_at_once_cap
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.runner import ChunkRunner, RunSettings, default_chunk_size
from canasta_sim.runs.storage import RunDirectory

__all__ = ["check_local_options", "chunk_runner", "cluster_reached", "default_chunk_size_for", "given",
           "memory_limited"]


def given(ctx: click.Context, name: str) -> bool:
    """Whether the option ``name`` was given on the command line (not a default)."""
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


def check_local_options(dask: bool, pin: bool, games_at_once: int | None) -> None:
    """Refuse the options only local workers take on a Dask backend, before anything is placed or said of placing;
    and a games-at-once cap in the environment (``CANASTA_SIM_GAMES_AT_ONCE``) the workers could not read."""
    try:
        games_at_once_cap()
    except ValueError as error:
        raise fail(str(error)) from None
    if dask and pin:
        raise fail("--pin-cores applies to --backend local only; a Dask cluster places its own workers")
    if dask and games_at_once is not None:
        raise fail("--games-at-once applies to --backend local only; a Dask worker plays as many games at once as "
                   "its bots take")


def memory_limited(ctx: click.Context, play_chunks: ChunkRunner, memory_limit: int | None,
                    resume: Path | None) -> ChunkRunner:
    """The backend that plays the chunks under ``--memory-limit`` (the local one only), the limit also set for the
    strategy processes this process starts."""
    if memory_limit is None:
        return play_chunks
    if play_chunks is not run_chunks and not given(ctx, "memory_limit"):
        raise fail(f"--resume {resume}: the run was played with --memory-limit {memory_limit}, which applies to "
                   "--backend local only; resume it with --memory-limit none to play on a Dask cluster without "
                   "it (dask's own --memory-limit limits its workers)")
    if play_chunks is not run_chunks:
        raise fail("--memory-limit applies to --backend local only; limit a Dask worker's memory with "
                   "dask's own --memory-limit")
    limit_memory(memory_limit)
    return functools.partial(run_chunks, memory_limit=memory_limit)


def default_chunk_size_for(games: int, play_chunks: ChunkRunner) -> int:
    """The chunk size of a run of ``games`` without ``--chunk-size``: the Dask backend plays whole chunks, so it wants
    more of them; the local one shares the last ones out among its workers."""
    return default_chunk_size(games, whole_chunks=isinstance(play_chunks, dask_backend.DaskChunkRunner))


def chunk_runner(ctx: click.Context, backend: str, scheduler: str | None, task_timeout: float | None,
                  workers: int | None) -> ChunkRunner:
    """The backend that plays the chunks: :func:`canasta_sim.runs.local_backend.run_chunks`, or a Dask
    cluster's runner."""
    if scheduler is not None and backend == "local":
        if given(ctx, "backend"):
            raise fail(f"--scheduler {scheduler} needs --backend dask, not --backend local")
        backend = "dask"
    if backend == "local":
        if task_timeout is not None:
            raise fail("--task-timeout applies to --backend dask only")
        return run_chunks
    if not dask_backend.is_available():
        raise fail(f"--backend dask needs Dask distributed; {install_hint('dask')}")
    if scheduler is not None and workers is not None:
        raise fail(f"--workers does not apply with --scheduler {scheduler}: the run uses that cluster's workers")
    try:
        return dask_backend.DaskChunkRunner(scheduler, task_timeout)
    except ValueError as error:
        raise fail(f"--scheduler: {error}") from None


@contextlib.contextmanager
def cluster_reached(play_chunks: ChunkRunner, settings: RunSettings, directory: RunDirectory) -> Iterator[None]:
    """Reach the scheduler of a Dask cluster given by address, and a worker on it, before anything of the run is
    written, and keep the connection for the run played in the block: one that cannot be reached ends the command with
    one ``Error:`` line and exit code 1, leaving no run behind (nor a session in one resumed).  A run with no chunk left
    to play (a complete one resumed) reaches no cluster."""
    counts = directory.chunk_game_counts(with_decisions=bool(settings.record_decisions))
    left = any(counts.get(chunk) != len(settings.chunk_games(chunk)) for chunk in range(settings.chunk_count))
    with contextlib.ExitStack() as held:
        if left and isinstance(play_chunks, dask_backend.DaskChunkRunner):
            try:
                held.enter_context(play_chunks.connected())
            except dask_backend.ClusterError as error:
                raise click.ClickException(" ".join(str(error).split())) from None
        yield


def strategies_loaded(settings: RunSettings, play_chunks: ChunkRunner) -> dict[str, LoadedStrategy]:
    """The run's strategies, loaded in this process before any worker starts, and on Dask the files its tasks carry
    read now: each strategy that cannot be loaded is a line of its own (exit code 2); the machine refusing a bot its
    process is its limit, no spec that cannot be used (exit code 1, as a refused worker's)."""
    try:
        loaded = settings.load_strategies()
        if isinstance(play_chunks, dask_backend.DaskChunkRunner):
            play_chunks.read_files(settings, loaded)
    except MachineRefusal as error:
        raise click.ClickException(str(error)) from None
    except CanastaError as error:
        raise fail_each(str(error)) from None
    return loaded

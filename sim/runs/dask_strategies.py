"""The strategies a Dask worker plays a run's chunks with, and what a run leaves on its workers when it ends.

* **File strategies travel as their bytes.**  For a file spec (``path/bot.py:Bot``, and ``isolated:path/bot.py:Bot``,
  whose file the bot's process loads) the client reads the file before the run starts and sends its source with
  every task (:class:`ShippedFile`); a worker writes it under its temporary folder, in a folder named by the run and
  the source's hash, and loads it from there, so workers need not see the client's file.  The run's folders go when
  it ends (:func:`end_run_here`, and :func:`remove_run_files` on the client's machine): each run writes its own, so
  one run's end never takes a file from another run playing the same file at once.
* **In-process strategies are loaded once per worker**, for every run that names them: a class is the same for
  each run, and a file whose source changed is another file (another hash).  Its source lines stay known to the
  worker's tracebacks after its run removed the file (:mod:`linecache`).
* **Bots in processes of their own (``isolated:``, ``cmd:``) belong to one run and one worker thread.**  Their
  processes are started for a run and ended with it (:func:`end_run_here`): a long-lived worker keeps no bot
  running between runs, and a run never plays with the processes of an earlier run, which may run a program that
  has changed since.  A task plays its bot games one at a time, each taking its seat's process over from the game
  before, so two tasks of one worker (``--nthreads 2``) playing at once each have their own processes.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import io
import linecache
import logging
import os
import threading
import tokenize
from collections.abc import Iterator
from pathlib import Path

from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.bot_marks import end_orphaned
from canasta_sim.plugins.kept_state import KeptStateWatch, forget_claims, kept_state_warning, unread_warning
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy
from canasta_sim.plugins.specs import file_spec_parts, is_bot_spec
from canasta_sim.runs.dask_journal import forget_run
from canasta_sim.runs.machine import made_users_folder, users_folder
from canasta_sim.runs.runner import RunSettings

logger = logging.getLogger("canasta_sim.runs.runner")  # the local workers' own, whose warnings these match

__all__ = ["ShippedFile", "end_run_here", "end_run_on_workers", "kept_state_told", "load_on_worker",
           "read_strategy_file", "remove_run_files", "shipped_files", "strategy_folder"]

_ISOLATED = "isolated:"


@dataclasses.dataclass(frozen=True)
class ShippedFile:
    """A file strategy's source, sent with each task so that workers need not see the file.

    :ivar spec: the spec as given (what the tables record).
    :ivar file_name: the file's base name, kept so messages and tracebacks name it.
    :ivar source: the file's bytes, as Python reads them (a file may declare an encoding of its own).
    :ivar isolated: whether the spec runs the file's class in a process of its own (``isolated:``).
    """

    spec: str
    file_name: str
    class_name: str
    parameters: tuple[tuple[str, str], ...]
    source: bytes
    isolated: bool = False

    @property
    def digest(self) -> str:
        """A hash of the file name and source: the folder a worker writes the file in."""
        return hashlib.blake2b(self.file_name.encode() + b"\0" + self.source, digest_size=10).hexdigest()

    def local_spec(self, path: Path) -> str:
        """The spec that loads this strategy from ``path``, where the worker wrote the file."""
        spec = f"{_ISOLATED if self.isolated else ''}{path}:{self.class_name}"
        if self.parameters:
            spec += ":" + ",".join(f"{name}={value}" for name, value in self.parameters)
        return spec


def shipped_files(settings: RunSettings, loaded: dict[str, LoadedStrategy]) -> tuple[ShippedFile, ...]:
    """The files of the run's file specs, read here to send them with the tasks: the files the client loaded.

    :raises StrategyLoadError: if a file cannot be read, naming it.
    """
    files = []
    for spec in settings.specs:
        parts = file_spec_parts(spec)
        if parts is None:
            continue
        module_part, class_name, parameters = parts
        isolated = spec.strip().startswith(_ISOLATED)
        # The file the class came from; a bot's process loads the file the run recorded (absolute) while it exists,
        # and the spec's own path once it is gone (plugins.specs.bot_command).
        recorded = loaded[spec].file or settings.file_of(spec)
        if isolated and recorded and not os.path.isfile(recorded):
            recorded = None
        path = Path(recorded) if recorded else Path(module_part).expanduser()
        files.append(ShippedFile(spec, path.name, class_name, parameters, read_strategy_file(path), isolated))
    return tuple(files)


def read_strategy_file(path: Path) -> bytes:
    """The bytes of a strategy file to send to the workers.

    :raises StrategyLoadError: if it cannot be read, naming it.
    """
    try:
        return path.read_bytes()
    except OSError as error:
        raise StrategyLoadError(f"strategy file {str(path)!r} cannot be read to send it to the Dask workers: "
                                f"{error.strerror or error}") from None


def strategy_folder() -> Path:
    """The folder of this machine's shipped strategy files of this user's runs: ``canasta-sim-strategies-UID`` under
    the temporary folder (``TMPDIR``; :func:`~canasta_sim.runs.machine.users_folder`), one folder in it per run and
    file."""
    return users_folder("canasta-sim-strategies")


def remove_run_files(run_token: str, folder: Path | None = None) -> None:
    """Remove the strategy files a run wrote on this machine (on every worker once the run ends, and by the client).

    Several worker processes of a machine remove them at once, each of its own accord.
    """
    for run_folder in (folder or strategy_folder()).glob(f"{run_token}-*"):
        with contextlib.suppress(FileNotFoundError):
            for path in run_folder.iterdir():
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
        # Left to the last worker process emptying it (not empty: another one still writes its copy).
        with contextlib.suppress(OSError):
            run_folder.rmdir()


_loaded: dict[tuple[str, ...], LoadedStrategy] = {}
"""This worker's loaded strategies: by spec and file hash, and for a bot spec by run and thread too."""
_loading_lock = threading.Lock()
_ended_runs: collections.deque[str] = collections.deque(maxlen=1024)
"""The last runs ended on this worker: an attempt of one that loads its bots only now starts none.  A run's token is
never used again, and an attempt outlives its run by a chunk's games at most, so the last few suffice."""
_watches: dict[str, KeptStateWatch] = {}
"""What each run's strategies keep between games in this process, watched from the run's first task here (the run's
token is the key): a Dask worker plays many of a run's chunks, in threads, from one import of each strategy."""


def _materialize(shipped: ShippedFile, run_token: str) -> Path:
    """Write a shipped file in the run's folder under this machine's temporary folder (once) and return its path."""
    folder = strategy_folder() / f"{run_token}-{shipped.digest}"
    path = folder / shipped.file_name
    if not path.is_file():
        made_users_folder(folder.parent)
        folder.mkdir(exist_ok=True)
        # Several worker processes of one machine may write it at once: each renames its own whole copy.
        partial = folder / f".{shipped.file_name}.{os.getpid()}.{threading.get_ident()}"
        partial.write_bytes(shipped.source)
        os.replace(partial, path)
    return path


def _keep_source_lines(path: Path, source: bytes) -> None:
    """Keep a loaded file's lines for tracebacks of its code after its run removed it (the class outlives the run).

    An entry without a modification time is one :func:`linecache.checkcache` keeps, as for code with no file.
    """
    with contextlib.suppress(SyntaxError, UnicodeDecodeError):  # the import would have failed: nothing to keep
        lines = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0]).splitlines(keepends=True)
        linecache.cache[str(path)] = (len(source), None, lines, str(path))


def load_on_worker(spec: str, shipped: ShippedFile | None, run_token: str) -> LoadedStrategy:
    """The strategy of ``spec`` for a task of the run ``run_token`` on this worker's current thread.

    :raises StrategyLoadError: if it cannot be loaded here.
    """
    key: tuple[str, ...] = (spec, "" if shipped is None else shipped.digest)
    if is_bot_spec(spec):
        key += (run_token, str(threading.get_ident()))
    with _loading_lock:
        if len(key) > 2 and run_token in _ended_runs:
            raise StrategyLoadError(f"strategy {spec!r}: its run ended on this worker; no bot process is started")
        if key not in _loaded:
            if shipped is None:
                _loaded[key] = load_strategy(spec)
            elif run_token in _ended_runs:  # its files are gone, and would stay behind if written now
                raise StrategyLoadError(f"strategy {spec!r}: its run ended on this worker; its file is not written")
            else:
                path = _materialize(shipped, run_token)
                try:
                    _loaded[key] = load_strategy(shipped.local_spec(path))
                except StrategyLoadError as error:
                    raise StrategyLoadError(f"strategy {spec!r} (sent to the worker as {path}): {error}") from None
                _keep_source_lines(path, shipped.source)
        return _loaded[key]


@contextlib.contextmanager
def kept_state_told(run_token: str, factories: dict[str, LoadedStrategy]) -> Iterator[None]:
    """Around a task's games: warn in the task's log, as a local worker does, of what the run's strategies changed of
    what they keep between games in this process (:class:`KeptStateWatch`), each change told once a run."""
    with _loading_lock:
        watch = _watches.get(run_token)
        if watch is None:
            watch = _watches[run_token] = KeptStateWatch({spec: loaded.cls for spec, loaded in factories.items()})
    yield
    with _loading_lock:  # the tasks of a worker's threads share the watch
        changes, unread = watch.changes(), watch.unread()
    for spec, names in changes:
        logger.warning("%s", kept_state_warning(spec, names))
    for spec in unread:
        logger.warning("%s", unread_warning(spec))


def end_run_here(run_token: str) -> None:
    """End what the run left in this process and on this machine: its bot processes (each told ``quit``, then
    killed if it lingers), what the bots of a worker that died here had started (:func:`end_orphaned`), its chunks'
    journals (:func:`~canasta_sim.runs.dask_journal.forget_run`) and its strategy files (:func:`remove_run_files`)."""
    with _loading_lock:
        _ended_runs.append(run_token)
        _watches.pop(run_token, None)
        ended = [key for key in _loaded if len(key) > 2 and key[2] == run_token]
        pools = [_loaded.pop(key).cls.pool for key in ended]
    for pool in pools:
        pool.close()
        forget_claims(pool.label)
    end_orphaned()
    forget_run(run_token)
    remove_run_files(run_token)


def end_run_on_workers(client, run_token: str) -> None:
    """Have every worker of the client's cluster :func:`end_run_here`.  A worker, or the scheduler, gone by then
    keeps the few bytes of journals it holds (its bots ended with it, and what they started is ended when a run ends by
    any worker then on its machine), not the finished run."""
    if client.status != "running":  # the scheduler is lost: asking would wait for Dask's connect timeout first
        return
    with contextlib.suppress(OSError):
        client.run(_run_ender(), run_token, on_error="ignore")


def _run_ender():
    """:func:`end_run_here` as a function every worker can unpickle, whatever it has installed.

    Sent by reference, :func:`end_run_here` broke the connection of a worker running a canasta-sim without this
    module (an older one: the run refused it) when unpickled there, and Dask shut that worker down.  A nested
    function is sent by value, and imports the module only when it runs.
    """

    def end_run(run_token: str) -> None:
        try:
            from canasta_sim.runs.dask_strategies import end_run_here as end_here
        except ImportError:  # another canasta-sim, which played none of the run's games
            return
        end_here(run_token)

    return end_run

"""The run directory: ``run.json`` and the two Parquet datasets ``games/`` and ``hands/``.

Layout::

    RUN_DIR/
        run.json                      settings, versions, times, games done
        games/part-000000.parquet     one part per chunk of games, named by chunk index
        hands/part-000000.parquet
        decisions/part-000000.parquet only with --record-decisions (docs/output.md)

Every file is written under a temporary name starting with ``.`` and then
renamed, so a reader sees a file whole or not at all; ``pandas.read_parquet``
(through pyarrow) skips names starting with ``.``.  A chunk's ``hands`` part
is renamed into place before its ``games`` part, and a chunk counts as
complete only when both exist (with its ``decisions`` part, in a run recording
them) and its ``games`` part holds every game of the chunk; anything else is
played again on ``--resume``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no claim on a run's directory
    fcntl = None

import pyarrow as pa
import pyarrow.parquet as pq

from canasta_sim import ENGINE_VERSION, __version__
from canasta_sim.errors import CanastaError
from canasta_sim.runs.shown_commands import quote_shown

__all__ = [
    "DECISIONS_DIR",
    "DamagedPartError",
    "GAMES_DIR",
    "HANDS_DIR",
    "RUN_FILE",
    "RunDirectory",
    "RunDirectoryError",
    "WRITER_KEY",
    "claimed_directory",
    "made_new_folder",
    "malformed_entry",
    "parquet_path",
    "read_part",
    "recorded_label",
    "stamped",
    "whole_entry",
    "write_atomically",
]

RUN_FILE = "run.json"
GAMES_DIR = "games"
HANDS_DIR = "hands"
DECISIONS_DIR = "decisions"
_TEMPORARY_PREFIX = ".tmp-"
_CLAIM_ATTEMPTS = 10
_NO_LOCKS = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS})
"""What ``flock`` answers on a file system that keeps no locks."""


class RunDirectoryError(CanastaError, ValueError):
    """A directory is not a usable run directory (missing, not a run, unreadable ``run.json``, ...)."""


class DamagedPartError(RunDirectoryError):
    """A finished part of a run is no Parquet file canasta-sim can read.

    Parts are written whole or not at all (a temporary name, then a rename), so this is damage from outside (a
    file cut short, overwritten, or a disk fault), found while working on a run whose arguments were right: the
    command line stops with exit code 1 and says which part to move away so that ``run --resume`` plays its chunk
    again.
    """


def malformed_entry(where: str, key: str, expected: str, value: Any) -> RunDirectoryError:
    """The error of a ``run.json`` entry that does not hold what canasta-sim writes there, shown as the file has it."""
    return RunDirectoryError(f"{where} is malformed: its entry {key!r} should be {expected}, not {json.dumps(value)}")


def recorded_label(entry: Any) -> str | None:
    """The ``name@version`` a strategy's entry of ``run.json`` records: its ``label``, or, where it has none, its
    ``name`` and ``version``; ``None`` when it records no version."""
    if not isinstance(entry, dict):
        return None
    label = entry.get("label")
    if isinstance(label, str):
        return label
    name, version = entry.get("name"), entry.get("version")
    return f"{name}@{version}" if isinstance(name, str) and type(version) is int else None


def whole_entry(manifest: dict[str, Any], key: str, where: str) -> int:
    """The whole number under ``key`` in a ``run.json`` (``where``), as canasta-sim writes it: a JSON integer.

    :raises RunDirectoryError: naming the entry when it is missing or holds anything else.
    """
    if key not in manifest:
        raise RunDirectoryError(f"{where} has no entry {key!r}; it was not written by canasta-sim run")
    value = manifest[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise malformed_entry(where, key, "a whole number", value)
    return value


def part_name(chunk: int) -> str:
    """Return the file name of a chunk's part, e.g. ``part-000012.parquet``."""
    return f"part-{chunk:06d}.parquet"


def _chunk_of(name: str) -> int | None:
    if name.startswith("part-") and name.endswith(".parquet"):
        digits = name[len("part-") : -len(".parquet")]
        if digits.isdigit():
            return int(digits)
    return None


WRITER_KEY = b"canasta_sim"
"""The key of each part's schema metadata that names what wrote it: JSON of ``tool`` (``canasta-sim`` and its version)
and ``engine_version``, as ``run.json`` has them, so that a part read alone says what played its games; a run's
parts add its ``seed`` and ``rules`` (:attr:`RunDirectory.run_facts`), which say which run and variant they are of."""
_WRITER = {"tool": f"canasta-sim {__version__}", "engine_version": ENGINE_VERSION}


def stamped(table: pa.Table, run_facts: dict[str, Any] | None = None) -> pa.Table:
    """``table`` with :data:`WRITER_KEY` in its schema's metadata (its writer, and ``run_facts`` when given), the
    metadata it had kept."""
    stamp = json.dumps({**_WRITER, **(run_facts or {})}).encode()
    return table.replace_schema_metadata({**(table.schema.metadata or {}), WRITER_KEY: stamp})


def _write_part(table: pa.Table, path: Path, run_facts: dict[str, Any]) -> None:
    # A games or hands part without dictionary pages, whose writing is the run's parent's work for every chunk: zstd
    # finds the repeated texts (the strategies, the end reasons) by itself, so dictionary pages for the text columns
    # change a part's size by about 1%.  For every column they made a hands part 18 to 21% smaller and a games part
    # 17 to 19% larger, for about a quarter more writing time (two runs of 10,000 games, pyarrow 26, 2026-12-07).
    # The values read back are the same either way.
    pq.write_table(stamped(table, run_facts), parquet_path(path), compression="zstd", use_dictionary=False)


def read_part(read, path: Path, **options):
    """``read(path, **options)`` (a :mod:`pyarrow.parquet` reader) of one part; a file that is no Parquet part (cut
    short, overwritten) is a :class:`DamagedPartError` naming it, in one line."""
    try:
        return read(parquet_path(path), **options)
    except (pa.ArrowException, OSError) as error:
        run = path.parent.parent
        reason = " ".join(str(error).split()).split(". ")[0]
        reason = reason.removeprefix(f"Could not open Parquet input source '{parquet_path(path)}': ")  # named below
        if lacking := _columns_lacking(path, options.get("columns")):
            # pyarrow's own words listed its internal fields ("No match for FieldRef.Name(...) in ... __filename").
            reason = (f"it lacks the column{'s' if len(lacking) > 1 else ''} {', '.join(map(repr, lacking))} of this "
                      "table: another table's part, or another program's file")
        raise DamagedPartError(f"{path} is no Parquet part canasta-sim can read ({reason}); move it out of the run "
                               f"and its games are played again by canasta-sim run --resume {quote_shown(str(run))}"
                               ) from None


def _columns_lacking(path: Path, columns) -> list[str]:
    """The ``columns`` a readable Parquet file at ``path`` does not have (none when it cannot be read at all)."""
    if not columns or not Path(path).is_file():
        return []
    try:
        names = set(pq.read_schema(parquet_path(path)).names)
    except (pa.ArrowException, OSError):
        return []
    return [name for name in columns if name not in names]


def parquet_path(path: Path) -> Path:
    """``path`` as pyarrow must be given a local file: absolute, since it reads a relative path with a ``:`` in it
    (``--out a:b``) as a URI and fails on its scheme."""
    return Path(path).absolute()


def made_new_folder(path: Path) -> Path:
    """Make the folder ``path``, or, when it is there, the next free ``path-2``, ``path-3``...; return the one made.

    A default output folder (``results/<date-time>``) is made when it is chosen, never only looked for: commands
    started in the same second chose the same folder and mixed their games in it, or the second was refused.
    """
    made, suffix = path, 2
    while True:
        try:
            made.mkdir(parents=True)
            return made
        except FileExistsError:
            made = path.with_name(f"{path.name}-{suffix}")
            suffix += 1


@contextlib.contextmanager
def claimed_directory(path: Path) -> Iterator[None]:
    """Create the folder ``path`` if need be and hold it for this process while the block runs.

    Two processes writing one run (or tuning) each rewrote its manifest from their own copy, one's sessions lost, and
    each removed the other's temporary files in flight.  The lock is the kernel's, on the folder itself: it leaves no
    file behind and goes with the process however it ends, ``kill -9`` included.

    :raises RunDirectoryError: if it cannot be made, or another process holds it.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunDirectoryError(f"{str(path)!r} cannot be created: {error.strerror or error}") from None
    if fcntl is None:
        yield
        return
    descriptor = os.open(path, os.O_RDONLY)
    try:
        for attempt in range(_CLAIM_ATTEMPTS):
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt < _CLAIM_ATTEMPTS - 1:  # a report looking whether it is held lets go at once
                    time.sleep(0.05)
            except OSError as error:
                if error.errno not in _NO_LOCKS:
                    raise
                break  # a file system without locks (NFS mounted nolock): the run goes on unclaimed, as before locks
        else:
            raise RunDirectoryError(f"{str(path)!r} is being written by another canasta-sim process; wait for it to "
                                    "end (or stop it), then resume the run") from None
        yield
    finally:
        os.close(descriptor)


def write_atomically(path: Path, write) -> None:
    """Write through ``write(temporary_path)``, flush to disk, then rename onto ``path``: never a torn file, and on
    a failure no temporary file left behind where it can be removed (a run's parts and ``run.json``, a tuning's
    ``tune.json`` and trajectory)."""
    # A name no one can have made first: a folder from someone else could hold links at every guessable name.
    temporary = path.with_name(f"{_TEMPORARY_PREFIX}{os.getpid()}-{secrets.token_hex(8)}-{path.name}")
    try:
        write(temporary)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())  # the rename must never expose a file whose bytes are not on disk yet
        os.replace(temporary, path)
    except OSError:
        # A full disk: the bytes written so far are given back at once, not left to hold the space until a resume.
        # On a read-only disk it cannot be removed either: the write's own error is the one to tell.
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise


class RunDirectory:
    """One run's directory on disk.

    :param path: the directory; nothing is created until :meth:`create` or a write.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.chunk_listeners: list[Callable[[int, pa.Table, pa.Table], None]] = []
        """Called with ``(chunk, games, hands)`` after :meth:`write_chunk` put both parts in place through
        this object, in this process (``run`` keeps its summary from them instead of reading the parts back)."""
        self.run_facts: dict[str, Any] = {}
        """The run's ``seed`` and ``rules`` (every option, as ``run.json`` holds them), which each part written through
        this object carries in its metadata beside its writer (:data:`WRITER_KEY`), so that a part read alone says
        which run and rules its games are of: known once this object read or wrote ``run.json``, or from
        :meth:`mark_parts` where the parts are written first."""

    def mark_parts(self, seed: int, rules: dict[str, Any]) -> None:
        """Have the parts written from now on name ``seed`` and ``rules`` (:attr:`run_facts`)."""
        self.run_facts = {"seed": seed, "rules": rules}

    def absolute(self) -> RunDirectory:
        """This run's directory by its absolute path, before the working directory changes; what it knew of the run
        (:attr:`run_facts`) kept."""
        directory = RunDirectory(self.path.absolute())
        directory.run_facts = self.run_facts
        return directory

    def _learn_run_facts(self, manifest: dict[str, Any]) -> None:
        seed, rules = manifest.get("seed"), manifest.get("rules")
        if isinstance(seed, int) and not isinstance(seed, bool) and isinstance(rules, dict):
            self.mark_parts(seed, rules)

    @property
    def manifest_path(self) -> Path:
        """Path of ``run.json``."""
        return self.path / RUN_FILE

    @property
    def games_path(self) -> Path:
        """Path of the ``games`` dataset."""
        return self.path / GAMES_DIR

    @property
    def hands_path(self) -> Path:
        """Path of the ``hands`` dataset."""
        return self.path / HANDS_DIR

    @property
    def decisions_path(self) -> Path:
        """Path of the ``decisions`` dataset (written only by runs with ``--record-decisions``)."""
        return self.path / DECISIONS_DIR

    def write_decisions(self, chunk: int, decisions: pa.Table) -> None:
        """Write one chunk's ``decisions`` part under a temporary name, then rename it (before its games part)."""
        self.decisions_path.mkdir(exist_ok=True)
        write_atomically(self.decisions_path / part_name(chunk), lambda path: pq.write_table(
            stamped(decisions, self.run_facts), parquet_path(path), compression="zstd"))

    def is_run(self) -> bool:
        """Whether the directory holds a ``run.json``."""
        return self.manifest_path.is_file()

    def _runs_inside(self, shown: int = 3) -> str:
        """What the error of a folder of runs, given where one of its runs was meant, adds: the runs it holds (the first
        ``shown`` of them by name); '' for any other folder."""
        try:
            runs = sorted(str(entry) for entry in self.path.iterdir() if (entry / RUN_FILE).is_file())
        except OSError:  # unreadable: the message says what it can without it
            return ""
        if not runs:
            return ""
        named = ", ".join(map(repr, runs[:shown]))
        more = f" and {len(runs) - shown} more" if len(runs) > shown else ""
        return f"; it holds {len(runs)} run{'s' if len(runs) > 1 else ''}: {named}{more}"

    def is_empty(self) -> bool:
        """Whether the directory is missing or has no entries."""
        return not self.path.exists() or not any(self.path.iterdir())

    def create(self) -> None:
        """Create the directory and its two dataset folders.

        :raises RunDirectoryError: if the path exists and is not a directory, or cannot be made one.
        """
        if self.path.exists() and not self.path.is_dir():
            raise RunDirectoryError(f"{str(self.path)!r} exists and is not a directory")
        try:
            self.games_path.mkdir(parents=True, exist_ok=True)
            self.hands_path.mkdir(exist_ok=True)
        except OSError as error:
            raise RunDirectoryError(f"{str(self.path)!r} cannot be created: {error.strerror or error}") from None

    @contextlib.contextmanager
    def claimed(self) -> Iterator[None]:
        """Create the directory and hold it for this process while the block runs (:func:`claimed_directory`).

        :raises RunDirectoryError: if another process holds it.
        """
        self.create()
        with claimed_directory(self.path):
            yield

    def is_claimed(self) -> bool | None:
        """Whether a process holds the directory now (:meth:`claimed`): ``run.json`` says "running" both of a run
        going on and of one killed, which this tells apart; ``None`` where it cannot be known (Windows)."""
        if fcntl is None:
            return None
        descriptor = os.open(self.path, os.O_RDONLY)
        try:
            # A shared lock, let go at once: a run claiming the directory meanwhile tries again (claimed_directory).
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        except OSError as error:
            if error.errno not in _NO_LOCKS:
                raise
            return None
        finally:
            os.close(descriptor)

    def read_manifest(self) -> dict[str, Any]:
        """Return the content of ``run.json``.

        :raises RunDirectoryError: if the directory or ``run.json`` is missing or unreadable.
        """
        if self.path.exists() and not self.path.is_dir():
            raise RunDirectoryError(f"{str(self.path)!r} is a file, not a run directory")
        if not self.path.is_dir():
            raise RunDirectoryError(f"run directory {str(self.path)!r} does not exist")
        if not self.is_run():
            raise RunDirectoryError(f"{str(self.path)!r} is not a canasta-sim run directory (it has no {RUN_FILE})"
                                    f"{self._runs_inside()}")
        try:
            manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RunDirectoryError(f"{str(self.manifest_path)!r} cannot be read: {error}") from None
        if not isinstance(manifest, dict):
            raise RunDirectoryError(f"{str(self.manifest_path)!r} does not hold a JSON object")
        # Every reader (report, plot, load_run) goes through the strategies and the rules: checked here once, where
        # an entry of another shape ended each in a traceback.
        strategies = manifest.get("strategies", [])
        if not isinstance(strategies, list) or not all(
                isinstance(entry, dict) and isinstance(entry.get("spec"), str) for entry in strategies):
            raise malformed_entry(str(self.manifest_path), "strategies", 'a list of objects with a "spec"', strategies)
        if not isinstance(manifest.get("rules", {}), dict):
            raise malformed_entry(str(self.manifest_path), "rules", "an object of rules", manifest["rules"])
        self._learn_run_facts(manifest)
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replace ``run.json`` atomically."""
        text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
        write_atomically(self.manifest_path, lambda path: path.write_text(text, encoding="utf-8"))
        self._learn_run_facts(manifest)

    def write_chunk(self, chunk: int, games: pa.Table, hands: pa.Table) -> None:
        """Write one chunk's two parts, ``hands`` first, each under a temporary name then renamed."""
        name = part_name(chunk)
        for folder, table in ((self.hands_path, hands), (self.games_path, games)):
            write_atomically(folder / name, lambda path, table=table: _write_part(table, path, self.run_facts))
        for listener in self.chunk_listeners:
            listener(chunk, games, hands)

    def parts(self, folder: Path) -> dict[int, Path]:
        """Return the finished parts in a dataset folder by chunk index."""
        if not folder.is_dir():
            return {}
        found = {}
        for entry in folder.iterdir():
            chunk = _chunk_of(entry.name)
            if chunk is not None:
                found[chunk] = entry
        return found

    def chunk_game_counts(self, *, with_decisions: bool = False) -> dict[int, int]:
        """Return, for each chunk whose ``games`` and ``hands`` parts both exist, the games its part holds.

        :param with_decisions: count only the chunks whose ``decisions`` part exists too (a run recording them): one
            missing is played again with its chunk, and one damaged is a :class:`DamagedPartError` as a ``games`` part
            is, its footer read alike.
        """
        hands = self.parts(self.hands_path)
        decisions = self.parts(self.decisions_path)
        counts = {}
        for chunk, path in self.parts(self.games_path).items():
            if chunk in hands and (not with_decisions or chunk in decisions):
                counts[chunk] = read_part(pq.read_metadata, path).num_rows
                if with_decisions:
                    read_part(pq.read_metadata, decisions[chunk])
        return counts

    def missing_parts(self, chunk_count: int | None, *, with_decisions: bool) -> dict[int, list[str]]:
        """Return, by chunk, the datasets (``games``, ``hands``, ``decisions``) whose part the chunk lacks.

        A chunk's ``games`` part is written last, so every chunk that has one is looked at; so is every chunk below
        ``chunk_count``, the number a finished run must hold (``None`` for a run that may still be going, whose
        unplayed chunks have no part yet).  ``decisions`` counts only ``with_decisions`` (a run recording them), and
        each such part there is read (its footer, as :meth:`chunk_game_counts` reads it).

        :raises DamagedPartError: for a ``decisions`` part that cannot be read.
        """
        folders = {GAMES_DIR: self.games_path, HANDS_DIR: self.hands_path}
        if with_decisions:
            folders[DECISIONS_DIR] = self.decisions_path
        parts = {name: self.parts(folder) for name, folder in folders.items()}
        for path in parts.get(DECISIONS_DIR, {}).values():
            read_part(pq.read_metadata, path)
        chunks = set(parts[GAMES_DIR]) | set(range(chunk_count or 0))
        missing = {chunk: [name for name, found in parts.items() if chunk not in found] for chunk in sorted(chunks)}
        return {chunk: names for chunk, names in missing.items() if names}

    def remove_temporaries(self) -> int:
        """Delete temporary files left by an interrupted write; return how many."""
        removed = 0
        for folder in (self.path, self.games_path, self.hands_path, self.decisions_path):
            if folder.is_dir():
                for entry in folder.iterdir():
                    if entry.name.startswith(_TEMPORARY_PREFIX):
                        entry.unlink()
                        removed += 1
        return removed

    def chunks(self) -> set[int]:
        """Return the chunks whose ``games`` and ``hands`` parts both exist (complete or not)."""
        return set(self.parts(self.games_path)) & set(self.parts(self.hands_path))

    def iter_chunks(self, games_columns=None, hands_columns=None, *,
                    skip: Collection[int] = ()) -> Iterator[tuple[int, pa.Table, pa.Table]]:
        """Yield ``(chunk, games, hands)`` for every chunk whose two parts exist, in chunk order.

        Reading one chunk at a time keeps memory flat however large the run; the column lists
        (``None`` for all) read only what is needed; the chunks in ``skip`` are not read.
        """
        hands = self.parts(self.hands_path)
        for chunk, path in sorted(self.parts(self.games_path).items()):
            if chunk in hands and chunk not in skip:
                yield (
                    chunk,
                    read_part(pq.read_table, path, columns=games_columns),
                    read_part(pq.read_table, hands[chunk], columns=hands_columns),
                )

"""``canasta-sim play --save DIR``: the game just played, saved as a run of one game that ``replay`` plays again.

The directory is what ``canasta-sim run`` writes (``run.json``, ``games/``, ``hands/``), so ``replay DIR 0`` narrates
the game or writes its page, ``report DIR`` sums it up, and the folder can be shared as it is.  Side A's spec is
``played:PARTNER:moves=...`` (:mod:`canasta_sim.terminal.played`): the person's decisions in South's seat, the
partner's strategy in North's.  Imported only when a game is saved: ``play`` itself needs no pandas or pyarrow.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from canasta_sim.cli.options import fail, rules_options
from canasta_sim.cli.run import new_manifest, now_text
from canasta_sim.core.engine import GameResult
from canasta_sim.core.rules import Rules
from canasta_sim.errors import CanastaError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.records import ChunkRecorder
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.terminal.played import played_spec

__all__ = ["save_played_game"]


def save_played_game(path: Path, result: GameResult, *, partner: str, opponents: str, decisions: list[str],
                     rules: Rules, seed_drawn: bool, time_limit: float | None = None) -> str:
    """Write the game as a run of one game in ``path``; return the command that replays it.

    :raises click.UsageError: when the folder cannot be written (exit code 2, as for any output the user named).
    """
    side_a = played_spec(partner, decisions)
    loaded = [load_strategy(side_a), load_strategy(opponents)]  # the spec read back as a replay will read it
    # The bots' time limit too, which replay plays under as a run's.
    settings = RunSettings(games=1, seed=result.seed, specs=(side_a, opponents), rules=rules, chunk_size=1,
                           time_limit=time_limit)
    manifest = new_manifest(settings, loaded, seed_drawn, path)
    # The command a person plays this deal again with; the saved decisions are what replay plays.
    manifest["command"] = shlex.join(["canasta-sim", "play", "--seed", str(result.seed), "--partner", partner,
                                      "--opponents", opponents, *rules_options(rules),
                                      *([] if time_limit is None else ["--time-limit", f"{time_limit:g}"]),
                                      "--save", str(path)])
    manifest.update(status="complete", ended_at=now_text(), games_done=1)
    recorder = ChunkRecorder()
    recorder.add_game(0, result, (side_a, opponents))
    directory = RunDirectory(path)
    try:
        directory.create()
        directory.mark_parts(settings.seed, settings.rules.options())  # run.json comes last, marking the game written
        directory.write_chunk(0, *recorder.tables())
        directory.write_manifest(manifest)
    except CanastaError as error:
        raise fail(f"--save {path}: {error}") from None
    except OSError as error:
        raise fail(f"--save {path}: {error.strerror or error}") from None
    return f"canasta-sim replay {quote_shown(str(path))} 0"

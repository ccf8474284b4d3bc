"""Exit 0 when the installed canasta-sim plays games on this system, 1 (saying which command failed) otherwise.

cibuildwheel runs it on each wheel it builds, on Linux, macOS and Windows (``[tool.cibuildwheel]`` in
``pyproject.toml``), so that no wheel is released that cannot play: a run of 8 games on 2 worker processes (forked
on Linux, spawned elsewhere) and a ``check-strategy`` game in a process of its own under a decision time limit (the
clock: an alarm on Linux and macOS, a watchdog thread on Windows).  It prints how the system contained the run, as
``run.json`` records it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

GAMES = 8
RUN = ["run", "--games", str(GAMES), "--workers", "2", "--seed", "1", "--rules", "target_score=1000", "--quiet"]
CHECK = ["check-strategy", "greedy", "--games", "2", "--seed", "1", "--time-limit", "10",
         "--rules", "target_score=1000"]
TIMEOUT_SECONDS = 600
"""Seconds each command may take: a hang fails the check rather than the build's own (longer) limit."""


def canasta_sim_command() -> list[str]:
    """``canasta-sim`` as a user types it, the installed entry point (on Windows an ``.exe`` launcher, from which the
    spawned workers must start too); ``python -m canasta_sim`` where it is not installed beside this Python."""
    script = Path(sysconfig.get_path("scripts")) / ("canasta-sim.exe" if os.name == "nt" else "canasta-sim")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "canasta_sim"]


def _failed(words: list[str], done: subprocess.CompletedProcess) -> str:
    said = done.stderr.strip().splitlines()
    return f"check_wheel_plays: canasta-sim {' '.join(words)} failed (exit {done.returncode}): " \
           f"{said[-1] if said else 'nothing said'}"


def main(argv: list[str] | None = None) -> int:
    """Play the run and the check; print what the run recorded; fail at the first command that does not end well."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments:
        print(f"check_wheel_plays: unknown arguments {' '.join(arguments)}; it takes none", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        for words in ([*RUN, "--out", str(out)], CHECK):
            try:
                done = subprocess.run([*canasta_sim_command(), *words], capture_output=True, text=True,
                                      timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                print(f"check_wheel_plays: canasta-sim {' '.join(words)} took over {TIMEOUT_SECONDS} s",
                      file=sys.stderr)
                return 1
            if done.returncode != 0:
                print(_failed(words, done), file=sys.stderr)
                return 1
        manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
        session = manifest["sessions"][-1]
        if manifest.get("games_done") != GAMES or manifest.get("status") != "complete":
            print(f"check_wheel_plays: the run ended {manifest.get('status')} with {manifest.get('games_done')} of "
                  f"{GAMES} games", file=sys.stderr)
            return 1
    print(f"canasta-sim plays here: {GAMES} games on 2 workers ({session.get('containment')}), and a checked game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

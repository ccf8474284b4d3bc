"""A bot that forks until the machine refuses (the limit on a user's processes, ``ulimit -u``): the next bot process
the run starts is refused, and the bot holding the processes is killed with them and charged; the run goes on.

The limit binds no process of root, so the run is played as another user (an unused user id, through ``setpriv``,
which keeps the right to read this checkout and its Python wherever they are) under a low ``ulimit -u``; whatever
that user still runs afterwards is killed.  The test needs root and ``setpriv``, and is skipped, saying why, without
them.  The bots are tests/bots/spawns_processes.py's: one forks until refused at its first request, the other ends
its process at its second turn, so that each game needs new processes."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.helpers import BOTS

SPAWNS = BOTS / "spawns_processes.py"

LIMIT = 80
"""The user's processes and threads: the run needs about ten, the bot forks until it holds the rest."""


def _living(uid: int) -> list[int]:
    """The processes of ``uid`` that are not zombies waiting to be reaped."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith("Z"):
            found.append(int(name))
    return found


def _end_all(uid: int) -> None:
    deadline = time.monotonic() + 10
    while (living := _living(uid)) and time.monotonic() < deadline:
        for pid in living:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


@pytest.fixture
def other_user():
    """``run(argv, **options)``: ``argv`` run as an unused user id under ``ulimit -u`` :data:`LIMIT`; every process of
    that user is killed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the limit on a user's processes binds only a user other than root, and only root "
                    "can become one")
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to play the run as another user")
    uid = next(uid for uid in range(61000 + os.getpid() % 3000, 65000) if not _living(uid))
    wrapper = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
               "--inh-caps=+dac_override", "--ambient-caps=+dac_override"]

    def run(argv, **options):
        return subprocess.run([*wrapper, *argv], capture_output=True, text=True, process_group=0,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NPROC, (LIMIT, LIMIT)), **options)

    try:
        probe = run([sys.executable, "-c", "import canasta_sim"], timeout=60)
        if probe.returncode != 0:
            pytest.skip(f"this Python cannot run as another user here: {probe.stderr.strip()[-300:]}")
        run.uid = uid
        yield run
    finally:
        _end_all(uid)


@pytest.mark.timeout(120)
def test_a_bot_holding_the_users_process_limit_is_killed_and_charged_and_the_run_goes_on(other_user, tmp_path):
    # The run stopped in one line, "a process of bot 'cmd:... exits' cannot be started: Resource temporarily
    # unavailable (the limit on this user's processes ...); the machine's limit, not the bot's failure", the bot that
    # held the processes unnamed.
    # The bots are Python found on PATH through env: the other user may run this Python, not find it (shutil.which).
    forks, exits = (f"cmd:/usr/bin/env python3 {SPAWNS} {how}" for how in ("bomb", "exits"))
    out = tmp_path / "run"
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    result = other_user([sys.executable, "-m", "canasta_sim", "run", "-s", forks, "-s", exits, "--games", "2",
                         "--seed", "3", "--workers", "1", "--on-error", "forfeit", "--rules", "target_score=1000",
                         "-q", "--out", str(out)],
                        timeout=100, cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path), "PATH": path})
    assert result.returncode == 0, result.stderr[-3000:]
    # Nothing the run started outlives it: the bots, and the processes the forking one held.
    assert _living(other_user.uid) == []
    games = pq.read_table(out / "games").to_pylist()
    assert len(games) == 2
    charged = games[1]
    assert charged["forfeit_reason"] == "crash", charged
    assert charged[f"team_{charged['forfeit_team'].lower()}_strategy"] == forks, charged
    assert "killed with the processes it started" in charged["error"], charged
    assert "ulimit -u" in charged["error"], charged

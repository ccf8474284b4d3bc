"""What a run's worker processes take from the machine: memory shared with the run, and the processes, threads and
pipes themselves; the machine's refusal (a container's limits) said in one line.

A locked-down container or CI job gives less than a desktop: a ``/dev/shm`` read-only or absent, a limit on the
processes and threads of its user (``ulimit -u``, a pids limit), few open files (``ulimit -n``), and a share of the
CPU time smaller than the cores it sees (``docker run --cpus=2``, a Kubernetes CPU limit).
"""

from __future__ import annotations

import contextlib
import errno
import math
import mmap
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from canasta_sim.errors import StrategyLoadError, machine_refused

__all__ = ["USERS_FOLDER_MODE", "StopFlag", "WorkerStartError", "cpu_quota", "made_users_folder", "shared_memory",
           "starting", "usable_cores", "users_folder"]


class WorkerStartError(StrategyLoadError):
    """Workers could not start: the strategies do not load there, the machine refuses them, or they die before
    playing anything."""


def shared_memory(context, size: int):
    """``size`` bytes of zeroed memory shared with the processes ``context`` starts, indexed byte by byte, and
    viewable whole (``memoryview``).

    Forked processes share an anonymous mapping, which needs no file.  multiprocessing's shared memory is a file in
    ``/dev/shm``, and a container with that read-only (or absent) stopped every run before its first game.  Spawned
    processes are sent multiprocessing's, which they can open again.
    """
    if context.get_start_method() == "fork":
        return mmap.mmap(-1, size)
    return context.RawArray("B", size)


class StopFlag:
    """The stop signal a run's processes share (``set``, ``is_set``, as :class:`threading.Event` has them): one byte
    of shared memory, written and read whole, with no lock.

    A :class:`multiprocessing.Event` takes a lock shared by every process to be set or read, and a worker killed
    while it held the lock (by a bot that kills its worker, by a signal) left every other process waiting for it
    for ever: a run that never ended.
    """

    def __init__(self, context) -> None:
        self._flag = shared_memory(context, 1)

    def set(self) -> None:
        """Ask every process to stop."""
        self._flag[0] = 1

    def is_set(self) -> bool:
        """Whether a stop was asked."""
        return self._flag[0] == 1


@contextlib.contextmanager
def starting(what: str) -> Iterator[None]:
    """Within the block, the machine refusing ``what`` (``a worker process``) a process, a thread, a pipe or memory
    raises :class:`WorkerStartError` naming the limit, where the ``OSError`` or ``RuntimeError`` ended the command in
    a traceback, or in a message blaming the disk."""
    try:
        yield
    except (OSError, RuntimeError) as error:  # threading's "can't start new thread" is a RuntimeError
        refused = machine_refused(what, error)
        if refused is None:
            refused = f"{what} cannot be started: {getattr(error, 'strerror', None) or error}"
        raise WorkerStartError(refused) from None


def usable_cores(root: Path = Path("/")) -> int:
    """The cores this process may use: those it may run on (its affinity), or fewer when its cgroup's CPU quota
    allows less time than that (:func:`cpu_quota`).

    A container limited to 2 CPUs on a 64-core host may run on all 64, for a fifth of each period: a worker per
    core there starts 64 processes that take turns on 2 CPUs' time, each with its memory and start-up.
    """
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    quota = cpu_quota(root)
    return max(1, cores if quota is None else min(cores, quota))


def cpu_quota(root: Path = Path("/")) -> int | None:
    """The CPUs' worth of time this process's cgroups allow it, rounded up (``None``: no quota, or no cgroups).

    Read from ``proc/self/cgroup`` under ``root`` and the cgroup file systems that ``proc/self/mountinfo`` names
    (:func:`_cgroup_mounts`): cgroup v2's ``cpu.max`` (``200000 100000`` is 2 CPUs) and v1's ``cpu.cfs_quota_us``
    over ``cpu.cfs_period_us``, in the process's own cgroup and each above it, the smallest taken (a quota set on a
    parent holds its children).  A container that sees its own cgroup as the mount's root, while
    ``/proc/self/cgroup`` names the host's path, is read at that root.
    """
    try:
        lines = (root / "proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    v2_mounts, v1_mounts = _cgroup_mounts(root)
    quotas = []
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":
            for mount, mount_root in v2_mounts:
                quotas += _quotas(mount, _below(path, mount_root), _quota_v2)
        elif "cpu" in controllers.split(","):
            for mount, mount_root in v1_mounts:
                quotas += _quotas(mount, _below(path, mount_root), _quota_v1)
    return max(1, math.ceil(min(quotas))) if quotas else None


def _cgroup_mounts(root: Path) -> tuple[list[tuple[Path, str]], list[tuple[Path, str]]]:
    """The cgroup v2 mounts and the v1 mounts of the ``cpu`` controller, each as its folder under ``root`` and the
    cgroup it shows at that folder, from ``proc/self/mountinfo``.

    A system may mount them elsewhere than ``/sys/fs/cgroup`` (a hybrid one has v2 at ``/sys/fs/cgroup/unified``, a
    container may have its own mount point): without a mount of a kind named there (no ``mountinfo``, as where
    ``/proc`` is not Linux's), that kind is looked for where systems mount it by default.
    """
    v2: list[tuple[Path, str]] = []
    v1: list[tuple[Path, str]] = []
    try:
        lines = (root / "proc/self/mountinfo").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        # ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL FIELDS...] - TYPE SOURCE SUPER-OPTIONS
        fields, separator, described = line.partition(" - ")
        before, after = fields.split(), described.split()
        if not separator or len(before) < 5 or len(after) < 3:
            continue
        mount = root / _unescaped(before[4]).lstrip("/")
        if after[0] == "cgroup2":
            v2.append((mount, _unescaped(before[3])))
        elif after[0] == "cgroup" and "cpu" in after[2].split(","):
            v1.append((mount, _unescaped(before[3])))
    if not v2:
        v2 = [(root / "sys/fs/cgroup", "/")]
    if not v1:
        v1 = [(root / "sys/fs/cgroup" / mount, "/") for mount in ("cpu,cpuacct", "cpu", "cpuacct,cpu")
              if (root / "sys/fs/cgroup" / mount).is_dir()][:1]
    return v2, v1


def _unescaped(field: str) -> str:
    """A path of ``mountinfo``, whose spaces, tabs, newlines and backslashes the kernel writes as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda escape: chr(int(escape.group(1), 8)), field)


def _below(path: str, mount_root: str) -> str:
    """Cgroup ``path`` (of ``/proc/self/cgroup``) as seen under a mount showing cgroup ``mount_root`` at its folder;
    as it is when outside it (the mount's folder is the nearest cgroup above it that :func:`_quotas` reads)."""
    mount_root = mount_root.rstrip("/")
    if mount_root and (path == mount_root or path.startswith(mount_root + "/")):
        return path[len(mount_root):] or "/"
    return path


def _quotas(mount: Path, path: str, read) -> list[float]:
    """The quotas ``read`` finds in cgroup ``path`` under ``mount`` and in each cgroup above it, to the mount."""
    found = []
    folder = mount.joinpath(*[part for part in path.split("/") if part])
    while True:
        quota = read(folder)
        if quota is not None:
            found.append(quota)
        if folder == mount:
            return found
        folder = folder.parent


def _quota_v2(folder: Path) -> float | None:
    """cgroup v2's ``cpu.max`` in ``folder`` as CPUs (``max``: no quota)."""
    try:
        quota, period = (folder / "cpu.max").read_text().split()
        return None if quota == "max" else _ratio(int(quota), int(period))
    except (OSError, ValueError):  # absent (the root cgroup) or unreadable: no quota known here
        return None


def _quota_v1(folder: Path) -> float | None:
    """cgroup v1's ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` in ``folder`` as CPUs (``-1``: no quota)."""
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return _ratio(quota, period)


def _ratio(quota: int, period: int) -> float | None:
    return quota / period if quota > 0 and period > 0 else None


def users_folder(name: str) -> Path:
    """The folder ``name`` under the temporary folder (``TMPDIR``) that is this user's: ``name-UID`` where users
    share it (``/tmp``), ``name`` where each has their own (Windows).  :func:`made_users_folder` makes it.

    One folder shared by every user belonged to the first user to make it: on a machine where two users run (a CI
    runner, a cluster's worker machines), every other user's run failed, refused by its mode.
    """
    own = f"{name}-{os.getuid()}" if hasattr(os, "getuid") else name
    return Path(tempfile.gettempdir()) / own


USERS_FOLDER_MODE = 0o700
"""The mode :func:`made_users_folder` makes a folder with: the files in it are this user's runs' (their strategies'
code, matplotlib's settings)."""


def made_users_folder(folder: Path) -> Path:
    """``folder`` (a :func:`users_folder`), made with :data:`USERS_FOLDER_MODE` if absent, and checked to be this
    user's, which no one else may write in.

    :raises PermissionError: naming the folder, when it is another user's or others may write in it: in a
        temporary folder every user shares, anyone may make a folder of that name first, and put code in it.
    """
    folder.mkdir(mode=USERS_FOLDER_MODE, parents=True, exist_ok=True)
    if hasattr(os, "getuid"):
        status = folder.lstat()
        if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o022:
            raise PermissionError(errno.EACCES, "not a folder of this user's that only they may write in; remove it",
                                  str(folder))
    return folder

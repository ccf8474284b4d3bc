"""The cores a run's default workers count: a container's CPU quota (cgroup v2 and v1) under its affinity.

Each test builds a fake root folder (``proc/self/cgroup`` and ``sys/fs/cgroup``, or the mount points a
``proc/self/mountinfo`` names) as a container would show it.
"""

from __future__ import annotations

import os

import pytest

from canasta_sim.runs import machine
from canasta_sim.runs.machine import cpu_quota, usable_cores
from canasta_sim.runs.runner import default_workers


def _root(tmp_path, cgroup: str, files: dict[str, str]):
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(cgroup)
    for path, text in files.items():
        file = tmp_path / "sys/fs/cgroup" / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    return tmp_path


def test_a_cgroup_v2_quota_of_two_cpus_counts_two(tmp_path):
    root = _root(tmp_path, "0::/\n", {"cpu.max": "200000 100000\n"})
    assert cpu_quota(root) == 2


def test_a_quota_of_part_of_a_cpu_is_rounded_up(tmp_path):
    root = _root(tmp_path, "0::/\n", {"cpu.max": "150000 100000\n"})
    assert cpu_quota(root) == 2
    root = _root(tmp_path / "small", "0::/\n", {"cpu.max": "10000 100000\n"})
    assert cpu_quota(root) == 1


def test_no_quota_when_cpu_max_says_max_or_is_absent(tmp_path):
    assert cpu_quota(_root(tmp_path / "max", "0::/\n", {"cpu.max": "max 100000\n"})) is None
    assert cpu_quota(_root(tmp_path / "absent", "0::/\n", {})) is None
    assert cpu_quota(tmp_path / "no-proc") is None


def test_the_processs_own_cgroup_and_those_above_it_are_read_the_smallest_taken(tmp_path):
    root = _root(tmp_path, "0::/kubepods/pod1/box\n", {
        "kubepods/cpu.max": "max 100000\n",
        "kubepods/pod1/cpu.max": "300000 100000\n",
        "kubepods/pod1/box/cpu.max": "600000 100000\n",
        "other/cpu.max": "100000 100000\n",  # another cgroup's quota is not this process's
    })
    assert cpu_quota(root) == 3


def test_a_container_that_sees_its_cgroup_at_the_mounts_root_is_read_there(tmp_path):
    # Without a cgroup namespace /proc/self/cgroup names the host's path, absent from the container's mount.
    root = _root(tmp_path, "0::/system.slice/docker-1234.scope\n", {"cpu.max": "200000 100000\n"})
    assert cpu_quota(root) == 2


def test_a_cgroup_v1_cfs_quota_counts_its_cpus(tmp_path):
    cgroup = "12:memory:/docker/1234\n4:cpu,cpuacct:/docker/1234\n1:name=systemd:/docker/1234\n"
    root = _root(tmp_path, cgroup, {"cpu,cpuacct/docker/1234/cpu.cfs_quota_us": "250000\n",
                                    "cpu,cpuacct/docker/1234/cpu.cfs_period_us": "100000\n"})
    assert cpu_quota(root) == 3


def test_a_cgroup_v1_quota_of_minus_one_is_no_quota(tmp_path):
    root = _root(tmp_path, "3:cpu:/\n", {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"})
    assert cpu_quota(root) is None


def test_an_unreadable_quota_is_no_quota(tmp_path):
    root = _root(tmp_path, "0::/\n", {"cpu.max": "two cpus\n"})
    assert cpu_quota(root) is None


def _mounted(root, mounts: list[str], files: dict[str, str]):
    """``root`` with a ``proc/self/mountinfo`` of ``mounts`` (``ROOT MOUNT-POINT - TYPE SOURCE OPTIONS``) and
    ``files`` at their paths under it."""
    lines = [f"{30 + number} 1 0:{number} {fields.replace(' - ', ' rw,nosuid shared:1 - ', 1)}"
             for number, fields in enumerate(["/ / - ext4 /dev/sda1 rw", *mounts])]
    (root / "proc/self/mountinfo").write_text("\n".join(lines) + "\n")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_cgroup_v2_mounted_elsewhere_than_sys_fs_cgroup_is_read_where_mountinfo_says(tmp_path):
    # A hybrid system mounts v2 at /sys/fs/cgroup/unified; only /sys/fs/cgroup was read, so its quota was missed.
    root = _mounted(_root(tmp_path, "0::/box\n", {}), ["/ /sys/fs/cgroup/unified - cgroup2 cgroup2 rw"],
                    {"sys/fs/cgroup/unified/box/cpu.max": "200000 100000\n"})
    assert cpu_quota(root) == 2


def test_a_cgroup_v1_cpu_controller_mounted_elsewhere_is_read_where_mountinfo_says(tmp_path):
    quota = {"cpu.cfs_quota_us": "300000\n", "cpu.cfs_period_us": "100000\n"}
    other = {"cpu.cfs_quota_us": "100000\n", "cpu.cfs_period_us": "100000\n"}  # in a mount of another controller
    root = _mounted(_root(tmp_path, "5:memory:/job\n4:cpu,cpuacct:/job\n", {}),
                    ["/ /cgroup/memory - cgroup cgroup rw,memory",
                     "/ /cgroup/cpu\\040time - cgroup cgroup rw,cpu,cpuacct"],  # a space, as the kernel writes it
                    {**{f"cgroup/cpu time/job/{name}": text for name, text in quota.items()},
                     **{f"cgroup/memory/job/{name}": text for name, text in other.items()}})
    assert cpu_quota(root) == 3


def test_a_mount_showing_the_containers_cgroup_at_its_folder_reads_the_cgroups_below_it_there(tmp_path):
    # Without a cgroup namespace the mount's root is the host's path of the container's cgroup: a process in a cgroup
    # below it (systemd in the container) has its own quota in the folder below the mount's, not under the host's path.
    root = _mounted(_root(tmp_path, "0::/docker/1234/inner\n", {}),
                    ["/docker/1234 /sys/fs/cgroup - cgroup2 cgroup2 rw"],
                    {"sys/fs/cgroup/cpu.max": "400000 100000\n", "sys/fs/cgroup/inner/cpu.max": "200000 100000\n"})
    assert cpu_quota(root) == 2


def test_without_a_cgroup_mount_in_mountinfo_the_usual_folders_are_read(tmp_path):
    root = _mounted(_root(tmp_path, "0::/\n", {"cpu.max": "200000 100000\n"}), [], {})
    assert cpu_quota(root) == 2


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="the affinity is read where the system has it")
def test_a_run_defaults_to_a_worker_per_cpu_of_the_quota_not_per_core_seen(tmp_path, monkeypatch):
    # A container with --cpus=2 on a 64-core host: all 64 cores in its affinity, two CPUs' time.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    root = _root(tmp_path, "0::/\n", {"cpu.max": "200000 100000\n"})
    assert usable_cores(root) == 2
    monkeypatch.setattr(machine, "cpu_quota", lambda root=None: 2)
    assert default_workers() == 2
    monkeypatch.setattr(machine, "cpu_quota", lambda root=None: 128)  # a quota above the cores: the cores
    assert default_workers() == 64

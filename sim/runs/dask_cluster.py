"""Reaching a Dask cluster for a run (:mod:`canasta_sim.runs.dask_backend`), or starting one on this machine: the
scheduler's address checked, the client connected, and the cluster's worker threads counted and named.

A scheduler that cannot answer ends the run with a one-line :class:`ClusterError` naming its address: at once when the
address is malformed (:func:`normalize_scheduler_address`), when nothing listens there or its host is unknown, and
after Dask's connect timeout (30 s by default) when it does not answer otherwise.  Dask is imported only when a
client connects.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback

from canasta_sim.errors import CanastaError, found_in_chain, machine_refused

logger = logging.getLogger(__name__)

__all__ = ["REFUSED_GRACE_SECONDS", "SCHEDULER_SCHEMES", "WORKER_WAIT_SECONDS", "ClusterError", "LocalWorkers",
           "connect", "normalize_scheduler_address", "played_by", "scheduler_lost", "start_local_cluster",
           "worker_threads"]

WORKER_WAIT_SECONDS = 60.0
"""How long a run waits for a first worker on a scheduler that has none."""

SCHEDULER_SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")
"""Address schemes Dask's communication layer accepts."""

REFUSED_GRACE_SECONDS = 2.0
"""How long a scheduler address that refuses connections is tried again (a scheduler started just before the run may
not listen yet) before the run says so, where Dask's client would try for its connect timeout (30 s by default)."""


class ClusterError(CanastaError):
    """A run on a Dask cluster cannot go on: no scheduler or workers, a strategy the workers cannot load, a
    chunk that hangs or whose workers keep dying, or workers with another engine or strategy version."""


def normalize_scheduler_address(text: str) -> str:
    """Check a scheduler address and return it with its scheme (``host:port`` means ``tcp://host:port``).

    >>> normalize_scheduler_address("10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    >>> normalize_scheduler_address("tls://scheduler.example:8786")
    'tls://scheduler.example:8786'

    :raises ValueError: naming the address and what is accepted.
    """
    address = text.strip()
    scheme, separator, rest = address.rpartition("://")
    if not separator:
        scheme, rest = "tcp", address
    host, colon, port = rest.rpartition(":")
    # A mistyped scheme ("tcp//host:8786") or port ("88610") would otherwise be tried for Dask's connect timeout, and
    # an IPv6 host without its brackets ("::1:8786") ended the run with a traceback of Dask's.
    well_formed = (colon and host and not any(character in host for character in "/\\ @?#")
                   and (":" not in host or (host.startswith("[") and host.endswith("]")))
                   and port.isascii() and port.isdigit() and 0 < int(port) < 65536)
    if scheme not in SCHEDULER_SCHEMES or (not well_formed if scheme != "inproc" else not rest):
        raise ValueError(f"scheduler address {text!r} is not SCHEME://HOST:PORT (e.g. tcp://10.0.0.5:8786, an IPv6 "
                         f"host in brackets, tcp://[::1]:8786, a port from 1 to 65535); schemes: "
                         f"{', '.join(SCHEDULER_SCHEMES)}")
    return f"{scheme}://{rest}"


def start_local_cluster(workers: int, worker_class):
    """A cluster on this machine of ``workers`` worker processes of one thread each, started by ``worker_class`` (a
    nanny), with no dashboard.

    :raises ClusterError: when the machine refuses the worker processes: a limit on processes (named as the local
        backend names it), or a ``/dev/shm`` that cannot be written (a container's), where each nanny takes a
        multiprocessing lock.  The local backend needs neither, and the line says so.
    """
    from distributed import LocalCluster

    try:
        # The scheduler still serves HTTP (health checks), on a free port so that a cluster already holding the
        # usual 8787 causes no warning.
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                            scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR,
                            worker_class=worker_class)
    except (OSError, RuntimeError) as error:  # Dask's "Nanny failed to start." holds the OSError as its cause
        refused = _refused_start(error)
        if refused is None:
            raise
        raise ClusterError(refused) from None


def _refused_start(error: BaseException) -> str | None:
    """The line of a local cluster whose worker processes the machine refused, from the ``OSError`` behind ``error``;
    ``None`` when there is none."""
    error = found_in_chain(error, OSError)
    if error is None:
        return None
    refused = machine_refused("a local Dask worker process", error)
    if refused is not None:
        return refused
    frames = traceback.walk_tb(error.__traceback__)
    if any(frame.f_globals.get("__name__") == "multiprocessing.synchronize" for frame, _ in frames):
        return (f"the local Dask cluster's worker processes cannot be started: {error.strerror or error} (each takes a "
                f"lock in /dev/shm, which this machine does not let it write); the local backend (without --backend "
                f"dask) needs no /dev/shm")
    return None


def connect(address: str):
    """A client of the scheduler at ``address``.

    :raises ClusterError: naming the address, when no scheduler answers there (:func:`_unreachable`).
    """
    from distributed import Client

    why = _unreachable(address)
    if why is not None:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {why}")
    try:
        return Client(address, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}") from None


def _unreachable(address: str) -> str | None:
    """Why no scheduler answers at a TCP-borne address, or ``None`` when one may (then Dask's client connects).

    Dask's client tries a refused connection again for its whole connect timeout, and waits for ever on one taken
    by something that never answers (a scheduler's dashboard port, say, whose server waits for the client to speak
    first).  Here a refusal is known at once (after :data:`REFUSED_GRACE_SECONDS`), as an unknown host is, and over
    ``tcp://`` the silence of what took the connection after the connect timeout: a Dask scheduler speaks first.
    """
    import dask
    from dask.utils import parse_timedelta
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    try:
        get_backend(scheme).get_connector()
    except Exception as error:  # noqa: BLE001 - whatever it is, Dask's client would retry it for ever
        # ucx:// without the package that speaks it: Dask's client failed again and again, with a traceback each time.
        return (f"this Dask cannot connect over {scheme}:// ({type(error).__name__}: {error}); give the scheduler's "
                "tcp:// address")
    if scheme == "inproc":
        # Dask's client waited for ever on an inproc:// address of no scheduler in this process (a command has none).
        if location.split("/")[1:2] != [str(os.getpid())]:
            return ("an inproc:// address names a scheduler inside the process that started it, and this process has "
                    "none; give the address the scheduler printed (Scheduler at: tcp://...)")
        return None
    if scheme not in ("tcp", "tls", "ws", "wss"):
        return None
    host, port = parse_host_port(location)
    wait = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
    deadline = time.monotonic() + REFUSED_GRACE_SECONDS
    while True:
        try:
            connection = socket.create_connection((host, port), timeout=wait)
            break
        except socket.gaierror as error:
            return f"host {host} is not known ({error.strerror}); is the address right?"
        except ConnectionRefusedError:
            if time.monotonic() >= deadline:
                return (f"the connection was refused: nothing listens on port {port} of {host}; give the address the "
                        f"scheduler printed (Scheduler at: ...), or start one there (dask scheduler --port {port})")
            time.sleep(0.1)
        except TimeoutError:
            return f"no answer within {wait:g} s (Dask's connect timeout); is the host up, and the port open to you?"
        except OSError as error:  # no route to the host, say
            return f"{error.strerror or error}; is the address right?"
    with connection:
        if scheme != "tcp":  # over TLS and websockets the client speaks first
            return None
        try:
            said = connection.recv(1)
        except TimeoutError:
            said = None
        except OSError:  # reset: Dask's client finds out what it is
            return None
    if said:
        return None
    silence = "closed the connection unasked" if said == b"" else f"said nothing within {wait:g} s"
    return (f"what listens on port {port} {silence}, as no Dask scheduler does; give the address the scheduler "
            "printed (Scheduler at: ...), not its dashboard's")


def worker_threads(client, *, wait: bool = False, address: str = "") -> int:
    """Worker threads the cluster has now; with ``wait``, wait :data:`WORKER_WAIT_SECONDS` for a first worker."""
    if wait and not client.nthreads():
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except TimeoutError:
            raise ClusterError(f"the Dask scheduler at {address} has no workers (waited {WORKER_WAIT_SECONDS:g} s); "
                               f"start some with: dask worker {address}") from None
    return sum(client.nthreads().values())


def played_by(players: set[tuple[str, int]], address: str) -> str:
    """The worker threads that played a session's chunks on the cluster at ``address``, and their workers, in words.

    >>> played_by({("tcp://10.0.0.7:40000", 1), ("tcp://10.0.0.7:40000", 2), ("tcp://10.0.0.8:40000", 1)},
    ...           "tcp://10.0.0.5:8786")
    'chunks played by 3 worker threads of 2 workers at tcp://10.0.0.5:8786'
    """
    if not players:
        return f"no chunk played by the workers at {address}"
    workers = len({worker for worker, _ in players})
    return (f"chunks played by {len(players)} worker thread{'s' * (len(players) != 1)} of {workers} "
            f"worker{'s' * (workers != 1)} at {address}")


class LocalWorkers:
    """Keeps the local cluster a run started at its number of workers when Dask does not restart a dead one.

    A nanny restarts its worker process when it dies, but under load the new process may take long to come up.  The
    cluster then gives the worker up (after ``distributed.deploy.lost-worker-timeout``, 15 s by default: it closes
    the nanny, which logs ``Failed to restart worker``, and forgets it), or the nanny itself gives up and closes.
    Either way the cluster stays a worker short for good, and with none left the run's chunks would wait for
    ``--task-timeout`` with nothing to play them.  :meth:`check` (called by the thread driving the run, every second
    or so) has the cluster start a new worker for each one given up; the game a worker died in is charged all the
    same, by the chunk's next attempt (:mod:`canasta_sim.runs.dask_journal`).

    :param cluster: the run's ``LocalCluster``, whose nannies live in this process.
    """

    def __init__(self, cluster, workers: int) -> None:
        self.cluster = cluster
        self.workers = workers
        self.started = 0
        """How many workers were started again so far."""
        self._missing: set = set()

    def check(self) -> None:
        """Start a worker for each the cluster gave up on (on the cluster's event loop, not waited for)."""
        from distributed.core import Status

        closed = [name for name, nanny in list(self.cluster.workers.items())
                  if nanny.status in (Status.closing, Status.closed, Status.failed)]
        missing = (set(self.cluster.worker_spec) - set(self.cluster.workers)) | set(closed)
        if missing:
            new = missing - self._missing
            if new:
                self.started += len(new)
                logger.info("%d worker%s of the local Dask cluster died and %s not restarted by Dask; the run starts "
                            "%s again", len(new), "s" * (len(new) != 1), "were" if len(new) > 1 else "was",
                            "them" if len(new) > 1 else "it")
            # Asked again while it starts: the cluster starts only what it lacks, once.
            self.cluster.loop.add_callback(self._start, closed)
        self._missing = missing

    def _start(self, closed) -> None:
        for name in closed:
            # Forgotten, not closed again: a nanny stuck closing would keep the cluster from starting any worker.
            self.cluster.workers.pop(name, None)
        self.cluster.scale(self.workers)  # starts the workers of its spec that it lacks


def scheduler_lost(client) -> ClusterError:
    """The error ending a run whose client lost its scheduler."""
    return ClusterError(f"lost the connection to the Dask scheduler at {client.scheduler.address} (it stopped, or the "
                        "network to it failed); the chunks being played were cancelled")

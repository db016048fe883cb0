"""A count's units as tasks on a Dask cluster (``count --cluster dask``).

Dask's ``distributed`` scheduler runs the same code on a local cluster (one
worker process per job, started here) and on a cluster of many machines
(``--address`` of a running ``dask scheduler``): each unit
(:class:`tilesat.engines.base.Unit`) is one task, the count's shared context
(instance, placements, symmetry group) is sent once to every worker, and a
worker that dies has its tasks rerun elsewhere by the scheduler (up to
``distributed.scheduler.allowed-failures`` times per task).  Dask is an
optional extra: ``pip install "tilesat[cluster]"``.

The parent waits in short polls (:func:`tilesat.running.control.wait_step`), so the
run's deadline, Ctrl-C and the certificate race stop it like any other
count; the local cluster is then torn down without waiting for its workers
to finish their tasks (they are killed).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
import uuid

from .control import STOP_GRACE, deadline, sigint_held, wait_step
from .processes import INTERRUPTING, adopt, disown, make_folder, remove_folder
from ..errors import TilesatError
from .stdout_guard import native_output

BACKENDS = ("dask",)
MISSING = "--cluster dask needs the 'cluster' extra: pip install \"tilesat[cluster]\""

# The loggers Dask writes to: quiet below errors (a worker killed on purpose
# at Ctrl-C, or by a test, is not news to the user).
_LOGGERS = ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker",
            "distributed.core", "distributed.client", "distributed.comm", "distributed.batched",
            "distributed.process", "tornado", "asyncio")


def check_backend(cluster: str | None, address: str | None) -> None:
    """A usage error for a backend we do not have, or an address without one."""
    if cluster is None:
        if address is not None:
            raise TilesatError("--address needs --cluster dask")
        return
    if cluster not in BACKENDS:
        raise TilesatError(f"--cluster {cluster}: available: {', '.join(BACKENDS)}")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise TilesatError(MISSING) from None


# --- on the workers --------------------------------------------------------

_CONTEXTS: dict = {}  # token -> Context, per worker process: built once per count


class Shared:
    """The count's context (anything with ``timed_run(unit)``), wrapped: Dask
    would scatter a bare tuple element by element, and the placements must
    arrive with the very instance object they belong to (one pickle keeps that)."""

    def __init__(self, token: str, context):
        self.token, self.context = token, context


def _context(shared: Shared):
    ctx = _CONTEXTS.get(shared.token)
    if ctx is None:
        _CONTEXTS.clear()  # one count at a time per worker: drop the previous count's placements
        ctx = _CONTEXTS[shared.token] = shared.context
    return ctx


def _run_unit_within(shared: Shared, unit, budget):
    return _context(shared).run_within(unit, budget)


# --- in the parent ----------------------------------------------------------

class DaskRunner:
    """A Dask client (and the local cluster it started, if any) for one count.

    ``workers`` says how many unit-runners the cluster has (a local cluster:
    ``jobs`` once started; a remote one: its worker threads).  Use as a
    context manager: leaving it cancels what is left and closes the local
    cluster at once."""

    def __init__(self, jobs: int, address: str | None = None):
        self.jobs, self.address = jobs, address
        self.client = None
        self.cluster = None
        self._saved_levels: dict[str, int] = {}
        self._starting: threading.Thread | None = None
        self._abandoned = False
        self._adopted: list[int] = []
        self._scratch: str | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _quiet(self) -> None:
        for name in _LOGGERS:
            logger = logging.getLogger(name)
            self._saved_levels.setdefault(name, logger.level)
            logger.setLevel(logging.CRITICAL + 10)  # the scheduler logs a closed client's cancelled tasks as CRITICAL

    def start(self, workers: int | None = None) -> None:
        """Connect to ``address``, or start a local cluster of ``workers`` (default ``jobs``) processes.

        In a thread, with SIGINT, SIGTERM and SIGHUP blocked there: the
        cluster's processes (and the thread running its event loop) inherit
        the mask, so a terminal's Ctrl-C reaches this process alone; and this
        thread waits in polls, so Ctrl-C or the deadline stop the wait at once (a local cluster takes
        seconds to start; the thread closes it when it is up)."""
        if self.client is not None:
            return
        self._quiet()
        box: dict = {}
        thread = threading.Thread(target=self._connect, args=(workers or self.jobs, box), daemon=True)
        self._starting = thread
        thread.start()
        while thread.is_alive():
            thread.join(wait_step())
        self._starting = None
        if "error" in box:
            where = self.address or "a local cluster"
            raise TilesatError(f"--cluster dask: cannot start or reach {where}: {box['error']}")
        self.client, self.cluster = box["client"], box["cluster"]

    def _connect(self, workers: int, box: dict) -> None:
        import dask
        from distributed import Client, LocalCluster

        signal.pthread_sigmask(signal.SIG_BLOCK, set(INTERRUPTING))
        client = cluster = None
        try:
            # the workers inherit fd 1 as it is now: the sink, not the user's stdout
            # the cluster's scratch space: a folder of ours (removed even if this process is killed), not $TMPDIR's
            self._scratch = make_folder("tilesat-dask-") if self.address is None else None
            with dask.config.set({"distributed.worker.daemon": True, "distributed.scheduler.worker-ttl": None,
                                  "temporary-directory": self._scratch}), native_output():
                if self.address is None:
                    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           local_directory=self._scratch,
                                           silence_logs=logging.CRITICAL + 10, dashboard_address=None,
                                           # its HTTP server (health, metrics) on a free port, not 8787
                                           # (another cluster there made it warn)
                                           scheduler_kwargs={"dashboard_address": ":0"})
                    client = Client(cluster, set_as_default=False)
                    # its worker processes: killed by the watchdog should this process die first
                    self._adopted = [proc.pid for proc in _worker_processes()]
                    adopt(self._adopted)
                else:
                    client = Client(self.address, set_as_default=False, timeout=10)
        except Exception as e:  # noqa: BLE001 - reported in one line by start()
            box["error"] = f"{type(e).__name__}: {e}".strip()
        box["client"], box["cluster"] = client, cluster
        if self._abandoned:  # stopped while starting: nobody else will close it
            self._close(client, cluster)
            if self._scratch is not None:
                remove_folder(self._scratch)

    @property
    def workers(self) -> int:
        self.start()
        threads = sum(self.client.nthreads().values())
        return max(1, threads)

    def backend(self, context, todo: int | None = None) -> "DaskBackend":
        """The cluster as a place to run units one by one (a count's ledger hands them out
        as it goes: :func:`tilesat.questions.balance.drive`); ``todo``: how many are known
        now (a local cluster starts no more workers than that)."""
        self.start(min(self.jobs, max(1, todo)) if todo else None)
        return DaskBackend(self, context)

    def close(self) -> None:
        """Close at once: a local cluster's processes are killed, not asked to finish."""
        client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
        if self._starting is not None:
            self._abandoned = True  # the starting thread closes what it started
            _kill_leftover_workers()  # but the workers up so far go now, not when it is up
        self._close(client, cluster)
        if cluster is not None:
            disown(self._adopted)
            if self._scratch is not None:
                remove_folder(self._scratch)
        for name, level in self._saved_levels.items():
            logging.getLogger(name).setLevel(level)
        self._saved_levels.clear()

    @staticmethod
    def _close(client, cluster) -> None:
        procs = []
        if cluster is not None:
            with contextlib.suppress(Exception):
                procs = _cluster_processes(cluster)
        for pid in procs:  # the workers first: closing politely waits for their tasks
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with sigint_held():  # a second Ctrl-C must not cut the close in two
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close(timeout=1)
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.close(timeout=1)
                # A close cut short by its timeout (its workers are dead already) would be tried
                # again by distributed's exit hook for 10 s: the process lingered after its answer.
                cluster.shutdown_on_close = False
        if cluster is not None:
            _kill_leftover_workers()


def _kill_leftover_workers() -> None:
    """Kill the local cluster's worker processes that outlived its close.

    A nanny restarting a worker (after a worker died, or under load) can
    start a process after the pids above were read, and a close that times
    out leaves it running: seen once in a full test run, two idle workers
    alive until the end.  They are this process's multiprocessing children."""
    for proc in _worker_processes():
        with contextlib.suppress(OSError, ValueError):
            proc.kill()
            proc.join(1)


def _worker_processes() -> list:
    """The local cluster's worker processes (this process's multiprocessing children)."""
    import multiprocessing

    return [proc for proc in multiprocessing.active_children() if proc.name.startswith("Dask Worker")]


def _cluster_processes(cluster) -> list[int]:
    """The pids of a local cluster's nannies and their worker processes."""
    pids = []
    for worker in cluster.workers.values():
        process = getattr(worker, "process", None)  # a Nanny's WorkerProcess
        inner = getattr(process, "process", None)  # its AsyncProcess
        pid = getattr(inner, "pid", None)
        if pid:
            pids.append(pid)
    return pids


class DaskBackend:
    """Units as Dask tasks, handed out one by one (``start``) and collected as they
    come back (``ready``): each task runs ``context.run_within(unit, budget)`` on a
    worker (the context sent once to each worker) and hands back its outcome, the
    parts of a unit split where it stood included."""

    def __init__(self, runner: DaskRunner, context):
        self.client = runner.client
        self.token = uuid.uuid4().hex
        self.shared = self.client.scatter(Shared(self.token, context), broadcast=True, hash=False)  # once per worker
        self.capacity = runner.workers + 1  # one waiting at the scheduler: a worker never waits for the parent
        self.futures: dict = {}

    def start(self, i: int, unit, budget: float | None) -> None:
        # the workers do not know the count's deadline: a unit's budget ends there (an engine
        # that splits then hands back what it counted, and the rest)
        left = deadline().remaining()
        if left is not None:
            budget = max(0.0, left) if budget is None else max(0.0, min(budget, left))
        fut = self.client.submit(_run_unit_within, self.shared, unit, budget,
                                 key=f"tilesat-unit-{self.token}-{i}", pure=False, retries=1)
        self.futures[fut] = i

    def ready(self) -> list:
        time.sleep(wait_step())  # raises at the deadline; the race's watcher runs here
        out = []
        for fut in [f for f in self.futures if f.done()]:
            i = self.futures.pop(fut)
            if fut.status == "error":
                error = fut.exception()
                if isinstance(error, TilesatError):
                    raise TilesatError(str(error))
                name = type(error).__name__
                if name == "KilledWorker":
                    raise TilesatError(f"--cluster dask: unit {i} killed every worker it ran on: {error}")
                raise TilesatError(f"--cluster dask: unit {i} failed: {name}: {error}")
            out.append((i, fut.result()))
            fut.release()
        return out

    def stop(self, running: set[int]) -> tuple[list, int]:
        """At the deadline: the units that come back within STOP_GRACE (their budgets ended
        there), and how many running units' work is lost."""
        end = time.monotonic() + STOP_GRACE
        while time.monotonic() < end and not all(f.done() for f in self.futures):
            time.sleep(0.02)
        came_back = [(self.futures.pop(f), f.result()) for f in list(self.futures) if f.status == "finished"]
        return came_back, len(running) - len(came_back)

"""Run costly work on processes of its own, never on the thread that serves a learner's page.

A sandbox replay (up to its CPU bound), an Anki deck build, an import, a reschedule after a
retention change: each takes from tens of milliseconds to seconds of CPU. Run on the
gunicorn worker that serves pages, it would hold that worker, and with threads the
interpreter lock every other request of the worker waits on. So each gunicorn worker hands
such work to a bounded ``concurrent.futures.ProcessPoolExecutor``: processes started with
``spawn`` (a worker serving threads must not fork), each loading the bank once and running at
a lower CPU priority than the workers that serve pages (``nice``; on PostgreSQL also the
idle scheduling policy, ``scheduling_policy``). The request's own thread
waits for the result, while the worker's other threads go on serving other learners
(``quizsvc serve`` runs gunicorn's threaded workers).

The pool has two lanes, each its own processes and queue: ``QUICK`` for sandbox replays
(each bounded to a fraction of a second of CPU) and ``HEAVY`` for everything that can take
seconds (imports, reschedules, deck builds, reports, exports). A learner's replay so never
waits behind someone's import, as a queue per kind of job on a broker would have it.

At most ``queue`` jobs are in one lane of one worker, running or waiting; past that a request
is refused at once (503 ``busy`` with ``Retry-After``) rather than queued without bound. A job
that outlives ``timeout`` is answered 503 too (``Busy``); jobs that write check the same
deadline before they commit (``JobRuntime.deadline``), so a refused job writes nothing. The
deadline counts from the request's hand-over, not from the job's start: a job that waited in
the queue has only what is left of it. The request waits ``COMMIT_GRACE_SECONDS`` past it, so
that a job which checked the deadline just in time has finished its commit before the
learner is told anything.

With no pool (``WORK_PROCESSES=0``: the tests, or a deployment that wants none) the same jobs
run inline, on the calling thread (``run_inline``), with no isolation.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from quizsvc.errors import N_, Busy

T = TypeVar("T")
QUICK = "quick"  # sandbox replays: bounded CPU each, never queued behind heavy work
HEAVY = "heavy"  # imports, reschedules, deck builds, reports, exports
LANES = (QUICK, HEAVY)
POOL_NICENESS = 10  # the pool's processes yield the CPU to the workers that serve pages
BUSY_RETRY_SECONDS = 2
COMMIT_GRACE_SECONDS = 1.0  # a commit begun just before the deadline ends within it


@dataclass
class JobRuntime:
    """What a job may use besides its arguments: the bank and its index, a way to a unit of
    work, the key that signs and seals, the limits, and a deadline the writing jobs check.

    In a pool process it is made once, by ``start_process``; inline, the caller lends its own.
    """

    bank: Any
    index: Any
    unit_of_work: Callable[[], Any]
    secret_key: str
    limits: Any
    deadline: float = field(default=float("inf"))

    def time_left(self) -> float:
        """Return the seconds left before the job's deadline (negative: it has passed)."""
        return self.deadline - time.monotonic()


_RUNTIME: ContextVar[JobRuntime | None] = ContextVar("quizsvc_job_runtime", default=None)
_PROCESS_RUNTIME: JobRuntime | None = None  # a pool process's own, made once


def job_runtime() -> JobRuntime:
    """Return the runtime of the job running now (inline: the app's; in a pool process: its
    own)."""
    found = _RUNTIME.get() or _PROCESS_RUNTIME
    if found is None:
        raise RuntimeError("no job runtime: run jobs through WorkPool.run")
    return found


def start_process(settings: dict[str, Any]) -> None:
    """Prepare a pool process: lower its priority, load the bank, connect to the database.

    ``settings`` are the app's ``DATABASE_URL``, ``SECRET_KEY`` and limits (picklable values).
    """
    global _PROCESS_RUNTIME
    os.nice(POOL_NICENESS)
    policy = scheduling_policy(settings["DATABASE_URL"])
    if policy is not None:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    from quizsvc.bank import load_bank
    from quizsvc.store.database import Database
    from quizsvc.study.bank_index import BankIndex
    from quizsvc.study.limits import Limits

    bank = load_bank(settings.get("BANK_DIR"))
    database = Database()
    database.open(settings["DATABASE_URL"])
    _PROCESS_RUNTIME = JobRuntime(bank, BankIndex.of(bank), database.unit_of_work,
                                  settings["SECRET_KEY"], Limits.from_config(settings))


def scheduling_policy(database_url: str) -> int | None:
    """Return the CPU scheduling policy of the pool's processes on this database (None: the
    platform has no scheduling policies to choose from, e.g. macOS; ``nice`` alone then).

    ``SCHED_IDLE`` (Linux): a job runs only on CPU time no page wants, and a request that
    wakes up takes the CPU from it at once; ``nice`` alone still lets a busy pool delay each
    of the several hand-offs a request makes between a worker and PostgreSQL by a few
    milliseconds (measured with ``bench/simulate_flood.py``). On SQLite a writing job holds
    the database's one writer while it writes, and at ``SCHED_IDLE`` a machine busy with other
    work could leave it holding the writer, with every learner's write waiting behind it: there
    the pool keeps the normal policy at its lower ``nice``, which still gets it a share.
    """
    if not hasattr(os, "sched_setscheduler"):
        return None
    if database_url.startswith("sqlite"):
        return os.SCHED_OTHER
    return os.SCHED_IDLE


def run_with_deadline(deadline: float, job: Callable[..., T], *args: Any) -> T:
    """Run ``job`` in a pool process with the runtime's deadline set (a ``time.monotonic()``
    of the worker that handed it over: Linux's and macOS's monotonic clocks are the
    machine's, alike in every process)."""
    runtime = job_runtime()
    runtime.deadline = deadline
    return job(*args)


def run_inline(runtime: JobRuntime, timeout: float, job: Callable[..., T], *args: Any) -> T:
    """Run a job on the calling thread with ``runtime`` lent to it (no pool, no isolation)."""
    runtime.deadline = time.monotonic() + timeout
    token = _RUNTIME.set(runtime)
    try:
        return job(*args)
    finally:
        _RUNTIME.reset(token)


@dataclass
class Lane:
    """One lane of a worker's pool: its processes, started on first use, and its depth."""

    processes: int
    queue: int
    settings: dict[str, Any]
    on_depth: Callable[[int], None]
    _executor: ProcessPoolExecutor | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _depth: int = 0

    def run(self, timeout: float, job: Callable[..., T], *args: Any) -> T:
        """Run ``job(*args)`` on this lane and return its result, or raise ``Busy``."""
        with self._slot():
            future: Future[T] = self._pool().submit(
                run_with_deadline, time.monotonic() + timeout, job, *args)
            try:
                return future.result(timeout=timeout + COMMIT_GRACE_SECONDS)
            except FutureTimeout:
                raise Busy(N_("This took longer than the server allows (%(seconds)s s); try "
                              "again later."), reason="too_slow",
                           params={"seconds": f"{timeout:g}",
                                   "retry_after": BUSY_RETRY_SECONDS}) from None

    @contextmanager
    def _slot(self) -> Iterator[None]:
        """Hold one of the lane's places for a job, or refuse at once when all are taken."""
        with self._lock:
            if self._depth >= self.queue:
                raise Busy(N_("The server is busy with other learners' heavy work; try again "
                              "in %(retry_after)s s."), reason="busy",
                           params={"retry_after": BUSY_RETRY_SECONDS})
            self._depth += 1
            self.on_depth(self._depth)
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                self.on_depth(self._depth)

    def _pool(self) -> ProcessPoolExecutor:
        """Return the executor, started on first use (after gunicorn forked this worker)."""
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    self._executor = ProcessPoolExecutor(
                        max_workers=self.processes,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=start_process, initargs=(self.settings,))
        return self._executor

    def start(self) -> None:
        """Start the lane's processes now (each loads the bank), without waiting for them."""
        executor = self._pool()
        for _ in range(self.processes):  # the executor spawns a process per waiting job
            executor.submit(os.getpid)

    def shutdown(self) -> None:
        """Stop the lane's processes."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


class WorkPool:
    """One gunicorn worker's pool of processes for costly work, in lanes (``LANES``) of
    ``processes`` processes and ``queue`` places each; ``on_depth(lane, depth)`` hears each
    lane's depth change."""

    def __init__(self, processes: int, queue: int, settings: dict[str, Any],
                 on_depth: Callable[[str, int], None] = lambda lane, depth: None) -> None:
        self.lanes = {name: Lane(processes, queue, settings, partial(on_depth, name))
                      for name in LANES}

    def depth(self, lane: str = HEAVY) -> int:
        """Return how many jobs are in ``lane`` now, running or waiting."""
        return self.lanes[lane]._depth

    def run(self, timeout: float, job: Callable[..., T], *args: Any, lane: str = HEAVY) -> T:
        """Run ``job(*args)`` on ``lane`` and return its result, or raise ``Busy``.

        The job's own exceptions (a ``ServiceError`` such as ``Invalid``) reach the caller
        as raised.
        """
        return self.lanes[lane].run(timeout, job, *args)

    def start(self) -> None:
        """Start every lane's processes (a worker that has just started: ``gunicorn_hooks``),
        so the first jobs do not wait for them."""
        for lane in self.lanes.values():
            lane.start()

    def shutdown(self) -> None:
        """Stop every lane's processes (a worker exiting)."""
        for lane in self.lanes.values():
            lane.shutdown()

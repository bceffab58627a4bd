"""The costly-work pool: jobs run in processes of their own, bounded, refusals reach the caller
whole (issue 21)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from quizsvc.errors import Busy, Invalid
from quizsvc.pool import HEAVY, QUICK, WorkPool, job_runtime
from quizsvc.store import migrate
from quizsvc.store.database import make_engine


def where_am_i() -> tuple[int, int, str, int]:
    """Return the job's process id, its niceness, the bank version its runtime holds and its
    scheduling policy."""
    return os.getpid(), os.nice(0), job_runtime().bank.version, os.sched_getscheduler(0)


def refuse() -> None:
    raise Invalid("answer", "too large: at most %(max)s digits", reason="too_large",
                  params={"max": 18})


def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def time_left() -> float:
    return job_runtime().time_left()


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Yield a one-process pool on a migrated SQLite file, as a gunicorn worker makes one."""
    url = f"sqlite:///{tmp_path_factory.mktemp('pool') / 'pool.sqlite3'}"
    engine = make_engine(url)
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    engine.dispose()
    depths: list[int] = []
    made = WorkPool(1, 2, {"DATABASE_URL": url, "SECRET_KEY": "k"},
                    on_depth=lambda lane, depth: depths.append(depth) if lane == HEAVY else None)
    made.depths = depths  # type: ignore[attr-defined]
    yield made
    made.shutdown()


def test_a_job_runs_in_another_process_at_a_lower_priority_with_the_bank_loaded(pool):
    from quizsvc.bank import load_bank

    pid, niceness, version, policy = pool.run(60, where_am_i)
    assert pid != os.getpid()
    assert niceness >= os.nice(0) + 10  # the workers that serve pages come first
    assert version == load_bank().version
    assert policy == os.SCHED_OTHER  # on SQLite: a writing job must not starve holding the writer


def test_on_postgresql_the_pool_runs_only_on_cpu_time_no_page_wants():
    from quizsvc.pool import scheduling_policy

    assert scheduling_policy("postgresql+psycopg://db/quizsvc") == os.SCHED_IDLE
    assert scheduling_policy("sqlite:///quizsvc.sqlite3") == os.SCHED_OTHER


def test_a_refusal_in_a_job_reaches_the_caller_whole(pool):
    with pytest.raises(Invalid) as raised:
        pool.run(60, refuse)
    error = raised.value
    assert (error.field, error.reason, error.params, error.template) == (
        "answer", "too_large", {"max": 18}, "too large: at most %(max)s digits")


def test_a_job_that_outlives_its_time_is_busy_and_the_pool_goes_on(pool):
    with pytest.raises(Busy) as raised:
        pool.run(0.5, sleep, 3)
    assert raised.value.reason == "too_slow" and raised.value.params["retry_after"]
    assert pool.run(60, sleep, 0) == 0


def test_a_job_that_waited_in_the_queue_has_only_what_is_left_of_its_time(pool):
    """The learner is told "too slow" ``timeout`` after the hand-over, so a job that started
    late must not commit after that: its deadline counts from the hand-over too."""
    ahead = threading.Thread(target=pool.run, args=(60, sleep, 1.5))
    ahead.start()
    deadline = time.monotonic() + 5
    while pool.depth() < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    left = pool.run(5, time_left)  # waits about 1.5 s behind the one ahead
    ahead.join()
    assert left < 4.0


def test_a_full_pool_refuses_at_once_instead_of_queueing(pool):
    started = threading.Event()
    results: list[Any] = []

    def occupy() -> None:
        started.set()
        results.append(pool.run(60, sleep, 2))

    threads = [threading.Thread(target=occupy) for _ in range(2)]  # the pool holds 2
    for thread in threads:
        thread.start()
    started.wait(5)
    deadline = time.monotonic() + 5
    while pool.depth() < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    with pytest.raises(Busy) as raised:
        pool.run(60, sleep, 0)
    assert time.monotonic() - began < 1  # refused at once, not after the queue
    assert raised.value.reason == "busy"
    for thread in threads:
        thread.join()
    assert results == [2, 2]
    assert max(pool.depths) == 2 and pool.depths[-1] == 0


def test_the_pool_starts_no_process_before_its_first_job(tmp_path: Path):
    idle = WorkPool(1, 2, {"DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}",
                           "SECRET_KEY": "k"})
    assert all(lane._executor is None for lane in idle.lanes.values())  # made in the worker


def test_a_quick_job_never_waits_behind_heavy_ones(pool):
    """A sandbox replay has a lane of its own: it does not queue behind an import."""
    assert pool.run(60, sleep, 0, lane=QUICK) == 0  # the lane's process has started
    heavy = [threading.Thread(target=pool.run, args=(60, sleep, 2)) for _ in range(2)]
    for thread in heavy:
        thread.start()
    deadline = time.monotonic() + 5
    while pool.depth(HEAVY) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    assert pool.run(60, sleep, 0, lane=QUICK) == 0
    waited = time.monotonic() - began
    for thread in heavy:
        thread.join()
    assert pool.depth(HEAVY) == 0
    assert waited < 1.5  # behind the heavy jobs it would have waited 4 s


def test_a_worker_starts_its_pool_as_soon_as_it_is_ready(tmp_path: Path):
    """gunicorn's post_worker_init starts every lane's processes before the first job."""
    from types import SimpleNamespace

    from quizsvc import create_app
    from quizsvc.gunicorn_hooks import post_worker_init

    app = create_app({"TESTING": True, "WORK_PROCESSES": 1, "SECRET_KEY": "k",
                      "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}"})
    from quizsvc.runtime import KEY

    pool = app.extensions[KEY].pool
    try:
        post_worker_init(SimpleNamespace(wsgi=app))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(
                lane._executor is not None and len(lane._executor._processes) == 1
                for lane in pool.lanes.values()):
            time.sleep(0.05)
        assert all(len(lane._executor._processes) == 1 for lane in pool.lanes.values())
    finally:
        pool.shutdown()

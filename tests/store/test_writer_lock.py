"""The SQLite writer lock: handed over when freed, given up after the timeout, alarm restored."""

from __future__ import annotations

import fcntl
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quizsvc.store.writer_lock import (
    WriterLockTimeout,
    acquire_writer_lock,
    alarm_is_free,
    release_writer_lock,
)


@pytest.fixture
def lock_path(tmp_path: Path) -> Path:
    """Return the path of a fresh lock file."""
    return tmp_path / "db.sqlite3.writelock"


@pytest.fixture
def open_fd(lock_path: Path) -> Iterator[Callable[[], int]]:
    """Return a function that opens the lock file (each call a separate open file)."""
    fds: list[int] = []

    def opener() -> int:
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        fds.append(fd)
        return fd

    yield opener
    for fd in fds:
        os.close(fd)


def held_elsewhere(fd: int) -> bool:
    """Tell whether some other open file holds the lock (probing with ``fd``)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def test_a_free_lock_is_taken_at_once_and_released(open_fd: Callable[[], int]) -> None:
    mine, probe = open_fd(), open_fd()
    acquire_writer_lock(mine, timeout=1)
    assert held_elsewhere(probe)
    release_writer_lock(mine)
    assert not held_elsewhere(probe)


def wait_for_lock(fd: int, timeout: float, where: str) -> BaseException | None:
    """Wait for the lock on ``fd`` in the main thread or another one; return what it raised."""
    outcome: list[BaseException | None] = []

    def wait() -> None:
        try:
            acquire_writer_lock(fd, timeout=timeout)
            outcome.append(None)
        except BaseException as error:  # reported to the caller
            outcome.append(error)

    if where == "main thread":
        assert alarm_is_free()
        wait()
    else:
        waiting = threading.Thread(target=wait)
        waiting.start()
        waiting.join()
    return outcome[0]


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_a_waiter_gets_the_lock_once_the_holder_lets_go(open_fd: Callable[[], int],
                                                        where: str) -> None:
    holder, waiter = open_fd(), open_fd()
    fcntl.flock(holder, fcntl.LOCK_EX)
    released = threading.Event()

    def release_soon() -> None:
        released.wait(0.2)
        released.set()
        fcntl.flock(holder, fcntl.LOCK_UN)

    releaser = threading.Thread(target=release_soon)
    releaser.start()
    assert wait_for_lock(waiter, 10, where) is None
    releaser.join()
    assert released.is_set()  # it got the lock only after the holder let go
    assert held_elsewhere(open_fd())
    release_writer_lock(waiter)


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_a_waiter_gives_up_after_the_timeout(open_fd: Callable[[], int], where: str) -> None:
    holder, waiter = open_fd(), open_fd()
    fcntl.flock(holder, fcntl.LOCK_EX)
    raised = wait_for_lock(waiter, 0.2, where)
    assert isinstance(raised, WriterLockTimeout)
    assert isinstance(raised, TimeoutError)  # the service answers those 503
    # Nothing is left behind: the alarm is off and its handler restored, and the waiter does
    # not hold the lock once the holder lets go.
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    fcntl.flock(holder, fcntl.LOCK_UN)
    assert not held_elsewhere(open_fd())


def test_someone_elses_alarm_is_left_alone(open_fd: Callable[[], int]) -> None:
    holder, waiter = open_fd(), open_fd()
    fcntl.flock(holder, fcntl.LOCK_EX)
    calls: list[int] = []

    def theirs(signum: int, _frame: object) -> None:
        calls.append(signum)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        assert not alarm_is_free()
        with pytest.raises(WriterLockTimeout):
            acquire_writer_lock(waiter, timeout=0.1)  # polls instead of borrowing SIGALRM
        assert signal.getsignal(signal.SIGALRM) is theirs
        assert calls == []
    finally:
        signal.signal(signal.SIGALRM, previous)
        fcntl.flock(holder, fcntl.LOCK_UN)

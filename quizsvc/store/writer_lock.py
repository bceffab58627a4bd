"""Take SQLite's one writer slot through an exclusive ``flock``, handed over the moment it frees.

Every gunicorn worker (and the CLI) writes the same SQLite file, and SQLite lets one of them
write at a time. SQLite's own busy handler sleeps in growing steps (up to 100 ms) while another
connection writes, so each transaction first takes an exclusive ``flock`` on
``<file>.writelock``: the kernel wakes a blocked waiter as soon as the holder lets go.

A waiter must still give up after a timeout, and ``flock`` has none. In a process's main thread
(gunicorn's sync workers, the CLI) the wait is a blocking ``flock`` cut short by a one-shot
``SIGALRM``, when no one else uses that timer. Elsewhere (threads, or a process that owns
``SIGALRM``) it polls with short sleeps, which hands over later: polling every 0.2-2 ms held two
gunicorn workers to about 70% of the answers per second a blocking handover gives
(``bench/api_bench.py``, 2026-12-01).
"""

from __future__ import annotations

import fcntl
import signal
import threading
import time
from types import FrameType

SQLITE_LOCK_TIMEOUT = 30.0  # seconds a transaction waits for another process's writer
POLL_FIRST_PAUSE = 0.0002  # seconds; the poll doubles it up to POLL_LONGEST_PAUSE
POLL_LONGEST_PAUSE = 0.002


class WriterLockTimeout(TimeoutError):
    """Raised when another process holds the database's writer lock for too long."""

    def __init__(self) -> None:
        super().__init__("another process holds the database for too long")


def acquire_writer_lock(fd: int, timeout: float) -> None:
    """Take the exclusive lock on ``fd``; raise ``WriterLockTimeout`` after ``timeout`` s."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    if alarm_is_free():
        wait_with_alarm(fd, timeout)
    else:
        wait_by_polling(fd, timeout)


def release_writer_lock(fd: int) -> None:
    """Let the next waiter have the lock."""
    fcntl.flock(fd, fcntl.LOCK_UN)


def alarm_is_free() -> bool:
    """Tell whether this thread may borrow ``SIGALRM``: the main thread, no timer or handler set."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


def wait_with_alarm(fd: int, timeout: float) -> None:
    """Block in ``flock`` until the lock is ours, or until a one-shot ``SIGALRM`` ends the wait.

    The handler raises only while ``waiting`` holds: once ``flock`` has returned the lock is
    ours and a late alarm is ignored. An alarm that lands between ``flock`` returning and
    ``waiting`` being cleared ends the wait with the lock taken, so the timeout path always
    unlocks (unlocking a lock not held is harmless).
    """
    waiting = True

    def on_alarm(_signum: int, _frame: FrameType | None) -> None:
        if waiting:
            raise WriterLockTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            waiting = False
        except WriterLockTimeout:
            waiting = False
            release_writer_lock(fd)
            raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def wait_by_polling(fd: int, timeout: float) -> None:
    """Retry a non-blocking ``flock`` with growing pauses until it succeeds or time runs out."""
    deadline = time.monotonic() + timeout
    pause = POLL_FIRST_PAUSE
    while True:
        time.sleep(pause)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise WriterLockTimeout() from None
            pause = min(pause * 2, POLL_LONGEST_PAUSE)

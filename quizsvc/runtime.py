"""Hold the app's runtime: its long-lived collaborators, the question bank, clock and dice.

Not a Flask extension: ``create_app`` makes one ``Runtime`` per app and keeps it in
``app.extensions`` (Flask's place for per-app state). The bank is loaded on first use
(``quizsvc serve`` loads it in the gunicorn master, before the fork) and indexed once; tests
inject ``BANK``, ``CLOCK`` and ``RANDOM_SEED`` through the configuration.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from flask import Flask, current_app

from quizsvc.bank import load_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.http.metrics import set_queue_depth
from quizsvc.memo import Memo
from quizsvc.pool import WorkPool
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.limits import Limits

KEY = "quizsvc.runtime"


def wall_clock() -> datetime:
    """Return the current UTC time (the only place the service reads the clock)."""
    return datetime.now(UTC)


@dataclass
class Runtime:
    """One app's bank (loaded once), clock, random source and limits."""

    bank_source: Callable[[], Any]
    clock: Callable[[], datetime]
    rng: random.Random
    limits: Limits
    pool: WorkPool | None = None  # where costly work runs (None: inline)
    memo: Memo = field(default_factory=Memo)  # values kept while their key names them
    _bank: Any = None
    _index: BankIndex | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def teaching(self) -> tuple[Any, BankIndex]:
        """Return the bank and its index, loading and indexing the bank on first use."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._bank = self.bank_source()
                    self._index = BankIndex.of(self._bank)
        return self._bank, self._index


def init_app(app: Flask) -> Runtime:
    """Create the app's runtime from its configuration (a test app that names no ``BANK``
    loads the repository's, never ``$QUIZSVC_BANK_DIR``)."""
    given = app.config.get("BANK")
    seed = app.config.get("RANDOM_SEED")
    default_bank: Callable[[], Any] = (
        (lambda: load_bank(DEFAULT_BANK_DIR)) if app.testing else load_bank)
    runtime = Runtime(
        bank_source=(lambda: given) if given is not None else default_bank,
        clock=app.config.get("CLOCK") or wall_clock,
        rng=random.Random(seed) if seed is not None else secrets.SystemRandom(),
        limits=Limits.from_config(app.config),
        pool=work_pool(app.config),
    )
    app.extensions[KEY] = runtime
    return runtime


def work_pool(config: Any) -> WorkPool | None:
    """Return the app's costly-work pool, or None when ``WORK_PROCESSES`` is 0 (inline)."""
    processes = int(config.get("WORK_PROCESSES") or 0)
    if processes <= 0:
        return None
    settings = {key: value for key, value in config.items()
                if isinstance(value, str | int | float | bool) or value is None}
    return WorkPool(processes, int(config.get("WORK_QUEUE") or 8), settings,
                    on_depth=lambda lane, depth: set_queue_depth(depth, lane))


def runtime() -> Runtime:
    """Return the current app's runtime."""
    found: Runtime = current_app.extensions[KEY]
    return found


def bank() -> Any:
    """Return the current app's question bank."""
    return runtime().teaching()[0]


def bank_index() -> BankIndex:
    """Return the index of the current app's question bank."""
    return runtime().teaching()[1]


def now() -> datetime:
    """Return the current app's clock reading."""
    return runtime().clock()

"""Gunicorn's server hooks for ``quizsvc serve`` (``--config python:quizsvc.gunicorn_hooks``).

Each worker starts its costly-work pool's processes as soon as it is ready, not on the first
job: a process is spawned and loads the bank in seconds on an idle machine, but on a busy one
(the moment a worker is restarted under load) that can outlast a sandbox replay's whole wait,
and the first learners would be told the server is busy.
"""

from __future__ import annotations

from typing import Any


def post_worker_init(worker: Any) -> None:
    """Start the worker's costly-work pool (gunicorn calls this once the app is loaded)."""
    from quizsvc.runtime import KEY

    runtime = worker.wsgi.extensions.get(KEY)
    if runtime is not None and runtime.pool is not None:
        runtime.pool.start()

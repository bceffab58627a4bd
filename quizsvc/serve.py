"""Offer ``quizsvc serve``: load the bank, say where the service listens, then run gunicorn.

The question bank is loaded first, so a broken bank fails before any worker starts; the
address is printed, then gunicorn runs as this process's child with ``QUIZSVC_WORKERS``
threaded workers, each serving ``quizsvc.app:serving_app()`` (preloaded: the bank is read
once, in the master) with a costly-work pool of its own. When the rate limits would be counted
per worker (``memory://``), a private Redis is started for them so they hold across workers.
What it needs is imported when it runs, so ``quizsvc ledger ...`` never imports Flask.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from quizsvc.config import from_environment

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def gunicorn_argv(host: str, port: int, workers: int, threads: int, access_log: bool = True
                  ) -> list[str]:
    """Return the gunicorn command line that serves ``create_app()``.

    Threaded workers (gthread): a request waiting on the costly-work pool or on the database
    holds one of its worker's threads, never the worker. ``access_log=False`` leaves
    gunicorn's own access log out: the service's JSON logs already write one line per
    request, with its id. The hooks (``quizsvc.gunicorn_hooks``) start each worker's
    costly-work pool as soon as the worker is ready.
    """
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}",
            "--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
            "--preload", "--config", "python:quizsvc.gunicorn_hooks",
            *(["--access-logfile", "-"] if access_log else []),
            "quizsvc.app:serving_app()"]


REDIS_START_SECONDS = 10.0


def start_redis() -> tuple[subprocess.Popen[bytes], str] | None:
    """Start a Redis of this server's own on a Unix socket in a new private folder; return
    the process and its URL (None when no ``redis-server`` is installed).

    It keeps nothing on disk: rate-limit counters are worth keeping only while the service
    runs, and only its owner can reach the socket.
    """
    server = shutil.which("redis-server")
    if server is None:
        return None
    socket_path = Path(tempfile.mkdtemp(prefix="quizsvc-redis-")) / "redis.sock"
    process = subprocess.Popen(
        [server, "--port", "0", "--unixsocket", str(socket_path), "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + REDIS_START_SECONDS
    while not socket_path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit("serve: redis-server did not start")
        time.sleep(0.05)
    return process, f"unix://{socket_path}"


def shared_limits(settings: dict[str, Any]
                  ) -> tuple[dict[str, str], subprocess.Popen[bytes] | None]:
    """Return the environment that makes every worker share its rate-limit counters, and the
    Redis started for it (None when one is configured, or none can be started)."""
    storage = str(settings["RATELIMIT_STORAGE_URI"] or "memory://")
    if not storage.startswith("memory://"):
        return {}, None
    started = start_redis()
    if started is None:
        print("serve: no redis-server here, so every worker counts rate limits on its own "
              "(memory://); install redis-server or set QUIZSVC_RATELIMIT_STORAGE_URI",
              file=sys.stderr, flush=True)
        return {}, None
    process, url = started
    print(f"rate limits shared by every worker in a Redis of its own at {url}", flush=True)
    environment = {"QUIZSVC_RATELIMIT_STORAGE_URI": "redis+" + url}
    if not settings["REDIS_URL"]:
        environment["QUIZSVC_REDIS_URL"] = url
    return environment, process


def run_serve(args: argparse.Namespace) -> int:
    """Load the bank, print the address, start what the workers share, then run gunicorn.

    gunicorn runs as a child, so that the Redis this command may start for the workers'
    rate-limit counters stops with it; SIGTERM and SIGINT are passed on to gunicorn.
    """
    from quizsvc.bank import load_bank
    from quizsvc.config import SECRET_KEY_FILE, instance_secret_key
    from quizsvc.http.metrics import metrics_access, prepare_multiprocess_dir
    from quizsvc.store.migrate import instance_path

    bank = load_bank()
    settings = from_environment()
    workers = args.workers or settings["WORKERS"]
    threads = settings["THREADS"]
    folder = Path(instance_path())
    folder.mkdir(parents=True, exist_ok=True)

    print(f"question bank {bank.version}: {len(bank.questions)} questions, "
          f"{len(bank.lessons)} lesson(s)")
    if not settings["SECRET_KEY"]:
        _, made = instance_secret_key(str(folder))
        print(f"QUIZSVC_SECRET_KEY is not set: {'generated' if made else 'using'} the key in "
              f"{folder / SECRET_KEY_FILE} (every server of one deployment must share it)",
              flush=True)
    environment = dict(os.environ)
    if "QUIZSVC_WORK_PROCESSES" not in environment:
        environment["QUIZSVC_WORK_PROCESSES"] = "1"  # each worker's costly-work pool
    metrics_on, _ = metrics_access(settings["METRICS"])
    if metrics_on:  # every worker writes its counts where /metrics adds them up
        metrics_folder = prepare_multiprocess_dir(environment)
        print(f"metrics at /metrics, kept by the workers in {metrics_folder}", flush=True)
    shared, redis = shared_limits(settings)
    environment.update(shared)
    argv = gunicorn_argv(args.host, args.port, workers, threads,
                         access_log=settings["LOG_FORMAT"] != "json")
    print(f"quizsvc serving on http://{args.host}:{args.port}/ ({workers} workers of "
          f"{threads} threads, {environment['QUIZSVC_WORK_PROCESSES']} pool process(es) each)",
          flush=True)
    server = subprocess.Popen(argv, env=environment)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda received, _frame: server.send_signal(received))
    try:
        return server.wait()
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)


def register(subparsers: Any) -> None:
    """Add the ``serve`` sub-command to the ``quizsvc`` parser."""
    serve = subparsers.add_parser("serve", help="serve the web app and API with gunicorn")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--workers", type=int, default=None,
                       help="worker processes (default QUIZSVC_WORKERS, 2)")
    serve.set_defaults(handler=run_serve)

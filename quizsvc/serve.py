"""Offer ``quizsvc serve``: load the bank, say where the service listens, then run gunicorn.

The question bank is loaded first, so a broken bank fails before any worker starts; the
address is printed, then this process becomes gunicorn with ``QUIZSVC_WORKERS`` workers, each
serving ``quizsvc.app:serving_app()`` (preloaded: the bank is read once, in the master). What
it needs is imported when it runs, so ``quizsvc ledger ...`` never imports Flask.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from quizsvc.config import from_environment

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def gunicorn_argv(host: str, port: int, workers: int, access_log: bool = True) -> list[str]:
    """Return the gunicorn command line that serves ``create_app()``.

    ``access_log=False`` leaves gunicorn's own access log out: the service's JSON logs already
    write one line per request, with its id.
    """
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}",
            "--workers", str(workers), "--preload",
            *(["--access-logfile", "-"] if access_log else []),
            "quizsvc.app:serving_app()"]


def run_serve(args: argparse.Namespace) -> int:
    """Load the bank, print the address, then replace this process with gunicorn."""
    from quizsvc.bank import load_bank
    from quizsvc.config import SECRET_KEY_FILE, instance_secret_key
    from quizsvc.http.metrics import metrics_access, prepare_multiprocess_dir
    from quizsvc.store.migrate import instance_path

    bank = load_bank()
    settings = from_environment()
    workers = args.workers or settings["WORKERS"]

    print(f"question bank {bank.version}: {len(bank.questions)} questions, "
          f"{len(bank.lessons)} lesson(s)")
    print(f"quizsvc serving on http://{args.host}:{args.port}/ ({workers} workers)", flush=True)
    if not settings["SECRET_KEY"]:
        _, made = instance_secret_key(instance_path())
        print(f"QUIZSVC_SECRET_KEY is not set: {'generated' if made else 'using'} the key in "
              f"{Path(instance_path()) / SECRET_KEY_FILE} (every server of one deployment "
              "must share it)", flush=True)
    metrics_on, _ = metrics_access(settings["METRICS"])
    if metrics_on:  # every worker writes its counts where /metrics adds them up
        folder = prepare_multiprocess_dir(os.environ)
        print(f"metrics at /metrics, kept by the workers in {folder}", flush=True)
    argv = gunicorn_argv(args.host, args.port, workers,
                         access_log=settings["LOG_FORMAT"] != "json")
    os.execv(argv[0], argv)
    return 0  # not reached: execv does not return


def register(subparsers: Any) -> None:
    """Add the ``serve`` sub-command to the ``quizsvc`` parser."""
    serve = subparsers.add_parser("serve", help="serve the web app and API with gunicorn")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--workers", type=int, default=None,
                       help="worker processes (default QUIZSVC_WORKERS, 2)")
    serve.set_defaults(handler=run_serve)

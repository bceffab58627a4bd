"""Offer ``quizsvc db upgrade|downgrade|current|backup|restore`` and ``quizsvc serve``.

The database URL is the app's (``QUIZSVC_DATABASE_URL``, else the SQLite file in the instance
folder); ``--database-url`` overrides it for one command. ``serve`` loads the question bank
first (so a broken bank fails before any worker starts), prints the address and runs
gunicorn with ``QUIZSVC_WORKERS`` workers.
"""

from __future__ import annotations

import argparse
import json
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


def database_url(args: argparse.Namespace) -> str:
    """Return the URL the command works on."""
    from quizsvc.store.migrate import resolve_database_url

    return args.database_url or resolve_database_url()


def describe(url: str) -> str:
    """Return the URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def run_upgrade(args: argparse.Namespace) -> int:
    """Apply migrations up to ``--revision`` (default head)."""
    from quizsvc.store import migrate

    return move_to_revision(args, migrate.upgrade)


def run_downgrade(args: argparse.Namespace) -> int:
    """Revert migrations down to the given revision (``base`` drops every table)."""
    from quizsvc.store import migrate

    return move_to_revision(args, migrate.downgrade)


def move_to_revision(args: argparse.Namespace, step: Any) -> int:
    """Run ``step(connection, args.revision)`` (an upgrade or a downgrade), commit, report."""
    from quizsvc.store import migrate
    from quizsvc.store.database import make_engine

    url = database_url(args)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            step(connection, args.revision)
            connection.commit()
            revision = migrate.current_revision(connection)
    finally:
        engine.dispose()
    print(f"database {describe(url)} at revision {revision}")
    return 0


def run_current(args: argparse.Namespace) -> int:
    """Print the database's revision and the newest one; exit 1 if they differ."""
    from quizsvc.store import migrate
    from quizsvc.store.database import make_engine

    engine = make_engine(database_url(args))
    try:
        with engine.connect() as connection:
            revision = migrate.current_revision(connection)
    finally:
        engine.dispose()
    head = migrate.head_revision()
    print(f"current {revision} head {head}")
    return 0 if revision == head else 1


def run_backup(args: argparse.Namespace) -> int:
    """Write every table to a JSON file (``-`` for stdout)."""
    from quizsvc.store import backup
    from quizsvc.store.database import make_engine

    engine = make_engine(database_url(args))
    try:
        with engine.connect() as connection:
            document = backup.dump(connection)
    finally:
        engine.dispose()
    text = json.dumps(document, ensure_ascii=False, sort_keys=True)
    if args.file == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(args.file).write_text(text + "\n", encoding="utf-8")
    rows = sum(len(rows) for rows in document["tables"].values())
    print(f"backed up {rows} rows at revision {document['revision']}", file=sys.stderr)
    return 0


def run_prune(args: argparse.Namespace) -> int:
    """Delete the learners that hold nothing and are older than ``--older-than`` days."""
    from datetime import UTC, datetime, timedelta

    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork

    if args.older_than < 0:
        print("prune: --older-than must be a number of days, 0 or more", file=sys.stderr)
        return 2
    engine = make_engine(database_url(args))
    try:
        with UnitOfWork(engine=engine) as uow, uow.write():
            deleted = uow.learners.delete_empty_learners(
                datetime.now(UTC) - timedelta(days=args.older_than))
    finally:
        engine.dispose()
    print(f"deleted {deleted} empty learner(s) older than {args.older_than} days")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Load a backup into an empty database migrated to the backup's revision."""
    from quizsvc.store import backup
    from quizsvc.store.database import make_engine

    source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    try:
        document: Any = json.load(source)
    except json.JSONDecodeError as error:
        print(f"restore: {args.file}: not JSON ({error})", file=sys.stderr)
        return 2
    finally:
        if source is not sys.stdin:
            source.close()
    engine = make_engine(database_url(args))
    try:
        with engine.connect() as connection:
            try:
                counts = backup.load(connection, document)
            except backup.BackupError as error:
                print(f"restore: {error}", file=sys.stderr)
                return 1
            connection.commit()
    finally:
        engine.dispose()
    print(f"restored {sum(counts.values())} rows", file=sys.stderr)
    return 0


def gunicorn_argv(host: str, port: int, workers: int, threads: int, access_log: bool = True
                  ) -> list[str]:
    """Return the gunicorn command line that serves ``create_app()``.

    Threaded workers (gthread): a request waiting on the costly-work pool or on the database
    holds one of its worker's threads, never the worker. ``access_log=False`` leaves
    gunicorn's own access log out: the service's JSON logs already write one line per
    request, with its id.
    """
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}",
            "--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
            "--preload", *(["--access-logfile", "-"] if access_log else []),
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
    """Add the ``db`` and ``serve`` sub-commands to the ``quizsvc`` parser."""
    db = subparsers.add_parser("db", help="migrate, back up and restore the database")
    db_commands = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)

    def with_url(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--database-url", default=None,
                            help="override QUIZSVC_DATABASE_URL for this command")
        return parser

    upgrade = with_url(db_commands.add_parser("upgrade", help="apply migrations"))
    upgrade.add_argument("--revision", default="head")
    upgrade.set_defaults(handler=run_upgrade)

    downgrade = with_url(db_commands.add_parser("downgrade", help="revert migrations"))
    downgrade.add_argument("revision", help="target revision, e.g. -1 or base")
    downgrade.set_defaults(handler=run_downgrade)

    current = with_url(db_commands.add_parser("current", help="show the schema revision"))
    current.set_defaults(handler=run_current)

    backup = with_url(db_commands.add_parser("backup", help="write all rows as JSON"))
    backup.add_argument("file", help="output file, or - for stdout")
    backup.set_defaults(handler=run_backup)

    restore = with_url(db_commands.add_parser("restore", help="load a JSON backup"))
    restore.add_argument("file", help="backup file, or - for stdin")
    restore.set_defaults(handler=run_restore)

    prune = with_url(db_commands.add_parser(
        "prune", help="delete learners that hold nothing (no answers, cards or ratings)"))
    prune.add_argument("--older-than", type=int, default=30, metavar="DAYS",
                       help="only learners created at least DAYS days ago (default 30)")
    prune.set_defaults(handler=run_prune)

    serve = subparsers.add_parser("serve", help="serve the web app and API with gunicorn")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--workers", type=int, default=None,
                       help="worker processes (default QUIZSVC_WORKERS, 2)")
    serve.set_defaults(handler=run_serve)

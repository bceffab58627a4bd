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
import sys
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
        uow = UnitOfWork(engine=engine)
        with uow.write():
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

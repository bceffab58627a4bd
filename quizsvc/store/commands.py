"""Offer ``quizsvc db upgrade|downgrade|current|backup|restore|prune``.

The database URL is the app's (``QUIZSVC_DATABASE_URL``, else the SQLite file in the instance
folder); ``--database-url`` overrides it for one command. (``quizsvc serve`` is
``quizsvc.serve``.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


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
    """Delete the learners that hold nothing and are older than ``--older-than`` days, and
    the learners of imports that never finished (begun over an hour ago: an import is refused
    after its deadline of seconds, so one that old is dead)."""
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
            unfinished = uow.learners.delete_unfinished_imports(
                datetime.now(UTC) - timedelta(hours=1))
    finally:
        engine.dispose()
    print(f"deleted {deleted} empty learner(s) older than {args.older_than} days")
    print(f"deleted {unfinished} unfinished import(s) begun over an hour ago")
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


def register(subparsers: Any) -> None:
    """Add the ``db`` sub-commands to the ``quizsvc`` parser."""
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
        "prune", help="delete learners that hold nothing (no answers, cards or ratings) and "
        "imports that never finished"))
    prune.add_argument("--older-than", type=int, default=30, metavar="DAYS",
                       help="only learners created at least DAYS days ago (default 30)")
    prune.set_defaults(handler=run_prune)

"""Offer ``quizsvc export FORMAT``: the bank written for other programs.

``anki`` (``quizsvc.bank.anki_commands``) writes a lesson's study deck; ``moodle`` and
``qti`` (``quizsvc.bank.lms.commands``) write randomized exercises for an LMS, and record
every variant they hold in the database first (``quizsvc.study.lms_export``), so serving never
hands out a variant whose answer a class has. Each format adds its own sub-command here, so
the group is made once. The database is the app's (``QUIZSVC_DATABASE_URL``, else the SQLite
file in the instance folder) unless ``--database-url`` names another; ``--no-record`` writes
the file without recording (for a file that never reaches learners of this service).
"""

from __future__ import annotations

import argparse
from typing import Any

from quizsvc.bank import anki_commands
from quizsvc.bank.lms import commands as lms_commands
from quizsvc.bank.lms.exercises import ExerciseSet


def register(subparsers: Any) -> None:
    """Add ``export`` and its formats to the ``quizsvc`` parser."""
    export = subparsers.add_parser("export", help="export the bank for other programs")
    actions = export.add_subparsers(dest="export_command", metavar="FORMAT", required=True)
    anki_commands.add_format(actions)
    for parser in lms_commands.add_formats(actions, handler=run_lms_export):
        parser.add_argument("--database-url", default=None,
                            help="the database that records the exported variants, so the "
                                 "service never serves them (default: the app's)")
        parser.add_argument("--no-record", action="store_true", dest="no_record",
                            help="write the file without recording its variants (only for "
                                 "a file no learner of this service will see)")


def run_lms_export(args: argparse.Namespace) -> int:
    """Write an LMS export, recording its variants in the database first."""
    return lms_commands.run_export(args, record=None if args.no_record else record_variants)


def record_variants(args: argparse.Namespace, exercises: ExerciseSet) -> str:
    """Record an export's variants in the database; return the line to print."""
    from datetime import UTC, datetime

    from sqlalchemy.exc import SQLAlchemyError

    from quizsvc.store.commands import database_url, describe
    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import lms_export

    url = database_url(args)
    engine = make_engine(url)
    try:
        with UnitOfWork(engine=engine) as uow:
            added = lms_export.record_export(uow, exercises, args.lms_format,
                                             datetime.now(UTC))
    except SQLAlchemyError as error:
        raise lms_commands.NotRecorded(
            f"cannot record the exported variants in database {describe(url)} "
            f"({type(error).__name__}; is it migrated? quizsvc db upgrade)") from None
    finally:
        engine.dispose()
    total = sum(len(item.variants) for item in exercises.items)
    return (f"recorded {total} variant(s) as exported in database {describe(url)} "
            f"({added} new): the service will never serve them")

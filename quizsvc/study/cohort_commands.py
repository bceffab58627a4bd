"""Offer ``quizsvc cohort create`` and ``quizsvc cohort rotate``: an author's cohorts from the
command line, as ``POST /api/author/cohorts`` makes them.

The secrets are printed once (the database keeps only their sha256), with the join page and
the instructor page under ``--base-url`` when given. The database is the app's unless
``--database-url`` names another; the lesson is checked against the question bank.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any


def address(base_url: str | None, path: str) -> str:
    """Return ``path`` under ``base_url`` (the path alone without one)."""
    return (base_url.rstrip("/") + path) if base_url else path


def run_create(args: argparse.Namespace) -> int:
    """Make a cohort; print its id, join code and instructor token with their pages."""
    from quizsvc.bank import BankError, load_bank
    from quizsvc.errors import Invalid
    from quizsvc.store.commands import database_url
    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import cohorts
    from quizsvc.study.bank_index import BankIndex

    try:
        index = BankIndex.of(load_bank(args.bank_dir))
    except BankError as error:
        print(f"cohort create: the question bank cannot be read: {error}", file=sys.stderr)
        return 2
    engine = make_engine(database_url(args))
    try:
        with UnitOfWork(engine=engine) as uow:
            issued = cohorts.create_cohort(uow, index, args.lesson, args.name,
                                           datetime.now(UTC))
    except Invalid as error:
        print(f"cohort create: {error.message}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(f"made cohort {issued.id} ({issued.name!r}) for lesson {issued.lesson}")
    print(f"join code: {issued.join_code}")
    print(f"join page: {address(args.base_url, cohorts.join_path(issued.join_code))}")
    print(f"instructor token: {issued.instructor_token}")
    print("instructor page: "
          f"{address(args.base_url, cohorts.instructor_path(issued.id, issued.instructor_token))}")
    print("these secrets are shown only now; the database keeps only their hashes")
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    """Give a cohort a new instructor token and print it; the old one stops working."""
    from quizsvc.errors import NotFound
    from quizsvc.store.commands import database_url
    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import cohorts

    engine = make_engine(database_url(args))
    try:
        with UnitOfWork(engine=engine) as uow:
            issued = cohorts.rotate_instructor_token(uow, args.cohort, datetime.now(UTC))
    except NotFound:
        print(f"cohort rotate: no cohort {args.cohort}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(f"cohort {issued.id}: new instructor token: {issued.instructor_token}")
    print("instructor page: "
          f"{address(args.base_url, cohorts.instructor_path(issued.id, issued.instructor_token))}")
    print("the old token and page no longer work")
    return 0


def register(subparsers: Any) -> None:
    """Add ``cohort create`` and ``cohort rotate`` to the ``quizsvc`` parser."""
    cohort = subparsers.add_parser("cohort", help="make cohorts and rotate instructor tokens")
    actions = cohort.add_subparsers(dest="cohort_command", metavar="ACTION", required=True)

    def common(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--database-url", default=None,
                            help="override QUIZSVC_DATABASE_URL for this command")
        parser.add_argument("--base-url", default=None,
                            help="the service's address, e.g. https://quiz.example.org, to "
                                 "print whole page addresses")
        return parser

    create = common(actions.add_parser(
        "create", help="make a cohort of a lesson: a join code and an instructor token"))
    create.add_argument("--lesson", required=True, help="lesson id, e.g. vllm-v1-ledger")
    create.add_argument("--name", required=True, help="the name learners see when joining")
    create.add_argument("--bank-dir", default=None,
                        help="question bank directory (to check --lesson)")
    create.set_defaults(handler=run_create)

    rotate = common(actions.add_parser(
        "rotate", help="give a cohort a new instructor token (the old one stops working)"))
    rotate.add_argument("--cohort", required=True, type=int, help="the cohort's id")
    rotate.set_defaults(handler=run_rotate)

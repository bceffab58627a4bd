"""Offer ``quizsvc fsrs optimize``: fit FSRS to the learners' reviews and reschedule by it.

The database is the app's (``QUIZSVC_DATABASE_URL``, else the SQLite file in the instance
folder) unless ``--database-url`` names another. The command reads the clock once, here, and
hands the time to the use case (``quizsvc.study.fsrs_tuning.optimize``).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from quizsvc.review.optimizer import MIN_REVIEWS, Fit, NoFit

REASONS = {
    "too_few_reviews": "{count} reviews to learn from, and a fit needs at least {needed} "
                       "(--min-reviews)",
    "optimizer_kept_defaults": "fsrs-rs found too little in {count} reviews to move its "
                               "defaults",
    "no_better_than_defaults": "a fit to {count} reviews predicted them no better than the "
                               "defaults",
    "out_of_bounds": "fsrs-rs fitted {count} reviews to parameters fsrs would refuse "
                     "({detail})",
    "optimizer_failed": "fsrs-rs could not fit {count} reviews ({detail})",
}


def explain(result: NoFit) -> str:
    """Say in one phrase why a log gave no parameters."""
    return REASONS[result.reason].format(count=result.review_count, needed=result.needed,
                                         detail=result.detail)


def describe_fit(result: Fit) -> str:
    """Say what a fit scored, on how many reviews."""
    return (f"{result.review_count} reviews, log loss {result.log_loss:.4f} "
            f"(defaults {result.default_log_loss:.4f})")


def report_lines(report: Any) -> list[str]:
    """Return what ``fsrs optimize`` prints for a ``TuningReport``."""
    scope = f"lesson {report.lesson}" if report.lesson else "every lesson"
    when = report.fitted_at.strftime("%Y-%m-%d %H:%M UTC")
    lines = []
    if isinstance(report.pooled, Fit):
        lines.append(f"fitted FSRS parameters to all learners' reviews of {scope} at {when}: "
                     f"{describe_fit(report.pooled)}")
    else:
        lines.append(f"kept the parameters in force for {scope} (fsrs's defaults unless an "
                     f"earlier fit holds): {explain(report.pooled)}")
    own = [(learner, result) for learner, result in report.learners if isinstance(result, Fit)]
    lines.append(f"learners with parameters of their own: {len(own)} of "
                 f"{len(report.learners)} with reviews (each needs a log large enough)")
    lines += [f"  learner {learner}: {describe_fit(result)}" for learner, result in own]
    lines.append(f"rescheduled {report.rescheduled_cards} card(s) of "
                 f"{report.rescheduled_learners} learner(s) from their review logs")
    return lines


def run_optimize(args: argparse.Namespace) -> int:
    """Fit, store, reschedule, and print what was done (or why nothing was)."""
    from quizsvc.store.commands import database_url
    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import fsrs_tuning

    if args.lesson is not None:
        from quizsvc.bank import BankError, load_bank

        try:
            lessons = load_bank(args.bank_dir).lessons
        except BankError as error:
            print(f"fsrs optimize: the question bank cannot be read: {error}", file=sys.stderr)
            return 2
        if args.lesson not in lessons:
            print(f"fsrs optimize: no lesson {args.lesson!r} in the question bank",
                  file=sys.stderr)
            return 2
    engine = make_engine(database_url(args))
    try:
        with UnitOfWork(engine=engine) as uow:
            report = fsrs_tuning.optimize(uow, datetime.now(UTC), args.lesson,
                                          args.min_reviews)
    finally:
        engine.dispose()
    print("\n".join(report_lines(report)))
    return 0


def at_least_one(value: str) -> int:
    """Parse a whole number of at least 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


def register(subparsers: Any) -> None:
    """Add ``fsrs optimize`` to the ``quizsvc`` parser."""
    fsrs = subparsers.add_parser("fsrs", help="tune FSRS to the learners' own reviews")
    actions = fsrs.add_subparsers(dest="fsrs_command", metavar="ACTION", required=True)
    optimize = actions.add_parser(
        "optimize", help="fit FSRS parameters to the pooled review log (and each learner's "
        "own, when large enough), store them and reschedule the cards")
    optimize.add_argument("--lesson", default=None,
                          help="fit only this lesson's reviews, for this lesson's cards")
    optimize.add_argument("--min-reviews", type=at_least_one, default=MIN_REVIEWS,
                          help=f"fewest reviews a fit needs, pooled or one learner's "
                          f"(default {MIN_REVIEWS})")
    optimize.add_argument("--database-url", default=None,
                          help="override QUIZSVC_DATABASE_URL for this command")
    optimize.add_argument("--bank-dir", default=None,
                          help="question bank directory (to check --lesson)")
    optimize.set_defaults(handler=run_optimize)

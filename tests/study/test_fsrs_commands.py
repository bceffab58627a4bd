"""``quizsvc fsrs optimize`` on a database of its own (its commits are real)."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from quizsvc.cli import main
from quizsvc.store.database import make_engine
from quizsvc.store.models import FsrsParameters
from tests.support.databases import committed_database
from tests.support.population import Population, settings_with, simulate
from tests.support.simulated_log import put_log

LESSON = "vllm-v1-ledger"
FAST = settings_with(w0=0.1, w1=0.6, w2=1.2, w3=4.0, w8=2.3)


@pytest.fixture(scope="module")
def reviews():
    """Simulate one learner's long log."""
    return simulate(Population(FAST, learners=1, cards=200, days=90, new_per_day=10),
                    random.Random(8))


@pytest.fixture
def url(backend, tmp_path, reviews):
    """Yield a migrated database of this backend holding the simulated log."""
    with committed_database(backend, tmp_path, "fsrs_cli") as database_url:
        engine = make_engine(database_url)
        try:
            with Session(engine) as session:
                put_log(session, reviews, lessons=(LESSON, "another-lesson"))
                session.commit()
        finally:
            engine.dispose()
        yield database_url


def fits(url: str) -> int:
    """Count the stored fits."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return connection.scalar(select(func.count()).select_from(FsrsParameters))
    finally:
        engine.dispose()


def test_optimize_fits_stores_and_reschedules(url, capsys):
    assert main(["fsrs", "optimize", "--database-url", url, "--min-reviews", "200"]) == 0
    out = capsys.readouterr().out
    assert "fitted FSRS parameters to all learners' reviews of every lesson" in out
    assert "log loss" in out and "(defaults " in out
    assert "learners with parameters of their own: 1 of 1" in out
    assert "rescheduled" in out and "card(s) of 1 learner(s)" in out
    assert fits(url) == 2  # everyone's, and the one learner's own


def test_optimize_with_too_few_reviews_keeps_the_defaults_and_says_why(url, capsys):
    assert main(["fsrs", "optimize", "--database-url", url, "--min-reviews", "100000"]) == 0
    out = capsys.readouterr().out
    assert "kept the parameters in force for every lesson" in out
    assert "a fit needs at least 100000 (--min-reviews)" in out
    assert "rescheduled 0 card(s) of 0 learner(s)" in out
    assert fits(url) == 0


def test_reviews_no_one_vouches_for_never_teach_the_pooled_fit(url, capsys):
    """An import no one vouched for keeps its reviews for its own learner's schedule only."""
    from sqlalchemy import update

    from quizsvc.store.models import ReviewLog

    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(update(ReviewLog).values(vouched=False))
    finally:
        engine.dispose()
    assert main(["fsrs", "optimize", "--database-url", url, "--min-reviews", "200"]) == 0
    out = capsys.readouterr().out
    assert "kept the parameters in force for every lesson" in out
    assert "0 reviews to learn from" in out
    assert "learners with parameters of their own: 1 of 1" in out  # its own log is its own
    assert fits(url) == 1


def test_a_fit_fsrs_would_refuse_is_said_and_never_stored():
    from quizsvc.review.optimizer import NoFit
    from quizsvc.study.fsrs_commands import explain

    said = explain(NoFit("out_of_bounds", 900, 400, "parameters[20] = 0.95 outside [0.1, 0.8]"))
    assert said == ("fsrs-rs fitted 900 reviews to parameters fsrs would refuse "
                    "(parameters[20] = 0.95 outside [0.1, 0.8])")
    assert explain(NoFit("optimizer_failed", 900, 400, "boom")) == (
        "fsrs-rs could not fit 900 reviews (boom)")


def test_optimize_for_one_lesson_names_it(url, capsys):
    assert main(["fsrs", "optimize", "--database-url", url, "--lesson", LESSON,
                 "--min-reviews", "100"]) == 0
    assert f"reviews of lesson {LESSON}" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--lesson", "no-such-lesson"], "no lesson 'no-such-lesson'"),
    (["--min-reviews", "0"], "at least 1"),
])
def test_optimize_refuses_bad_arguments(url, args, message, capsys):
    try:
        status = main(["fsrs", "optimize", "--database-url", url, *args])
    except SystemExit as stop:  # argparse's refusal
        status = stop.code
    assert status == 2
    assert message in capsys.readouterr().err
    assert fits(url) == 0

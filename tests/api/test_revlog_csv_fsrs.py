"""The review-log CSV the service exports loads into fsrs-rs-python as it stands.

``GET /api/export?format=fsrs-csv`` writes fsrs-optimizer's columns; read back with
``optimizer.read_revlog_csv`` it gives the optimizer the very reviews the database holds,
and fsrs-rs fits and evaluates them.
"""

from __future__ import annotations

import csv
import io
import math
import random
from typing import Any

from fsrs_rs_python import FSRS
from sqlalchemy import select

from quizsvc.review import optimizer
from quizsvc.review.optimizer import DEFAULT_PARAMETERS
from quizsvc.store.models import Learner
from tests.support.fake_bank import LESSON_ID
from tests.support.population import Population, settings_with, simulate
from tests.support.repos import repos
from tests.support.simulated_log import put_log

FAST = settings_with(w0=0.1, w1=0.6, w2=1.2, w3=4.0, w8=2.3)


def exported_csv(browser: Any) -> str:
    """Return this learner's review log as the export endpoint writes it."""
    response = browser.get("/api/export?format=fsrs-csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    return response.get_data(as_text=True)


def test_a_studied_learners_csv_loads_into_fsrs_rs(study: Any, clock: Any) -> None:
    """Three days of study through the API, then the CSV into fsrs-rs."""
    for _ in range(3):
        session = study.start(LESSON_ID, mode="review", size=4)
        while not (item := study.next(session["id"]))["done"]:
            served = item["question"]
            self_rated = {"flashcard": None, "explain": "because"}
            answer = (self_rated[served["kind"]] if served["kind"] in self_rated
                      else study.right_answer(served["variant_id"]))
            attempt = study.answer(served["variant_id"], answer)
            assert attempt.status_code == 201
            if served["kind"] in self_rated:  # self-rated: reviewed when rated
                assert study.browser.post(f"/api/attempts/{attempt.json['id']}/rating",
                                          json={"rating": "good"}).status_code == 200
        clock.advance(days=3)
    text = exported_csv(study.browser)
    assert next(csv.reader(io.StringIO(text))) == list(optimizer.CSV_COLUMNS)
    reviews = optimizer.read_revlog_csv(text)
    assert len(reviews) == len(text.splitlines()) - 1 >= 8  # 4 cards, 2-3 days
    histories = optimizer.training_histories(reviews)
    assert histories  # reviews on a later day: what fsrs-rs learns from
    items = [optimizer.fsrs_item(h) for h in histories]
    assert len(FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)) == 21
    assert math.isfinite(FSRS(list(DEFAULT_PARAMETERS)).evaluate(items).log_loss)


def test_a_long_logs_csv_gives_fsrs_rs_the_reviews_the_database_holds(browser: Any,
                                                                       db: Any) -> None:
    learner = db.scalars(select(Learner.id)).one()
    reviews = simulate(Population(FAST, learners=1, cards=200, days=90, new_per_day=10),
                       random.Random(8))
    put_log(db, reviews, lessons=(LESSON_ID, LESSON_ID), learners={0: learner})
    db.commit()
    from_csv = optimizer.read_revlog_csv(exported_csv(browser))
    from_db = repos(db).settings.review_log()[learner]
    assert optimizer.card_histories(from_csv) == optimizer.card_histories(from_db)
    fitted = optimizer.fit(from_csv, min_reviews=200)
    assert isinstance(fitted, optimizer.Fit)
    assert fitted.log_loss < fitted.default_log_loss

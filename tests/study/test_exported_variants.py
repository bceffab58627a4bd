"""Variants exported to an LMS are recorded, and serving never hands their contents out."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, select

from quizsvc.bank import read_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.bank.content import content_key
from quizsvc.bank.lms.exercises import exercise_set
from quizsvc.bank.publication import SERVED_SEED_BITS
from quizsvc.cli import main
from quizsvc.store.exports import Exported
from quizsvc.store.models import ExportedVariant, ServedVariant
from quizsvc.study import variants
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context
from quizsvc.study.limits import Limits
from quizsvc.study.serving import draw_variant
from tests.api.test_item_analysis import take_quiz
from tests.support.fake_bank import LESSON_ID, FakeBank
from tests.support.repos import repos

LESSON = "vllm-v1-ledger"
NOW = datetime(2026, 12, 2, tzinfo=UTC)


@pytest.fixture(scope="module")
def real_bank():
    return read_bank(DEFAULT_BANK_DIR)


@pytest.fixture
def database(tmp_path):
    url = f"sqlite:///{tmp_path / 'quizsvc.sqlite3'}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    return url


def recorded(url: str) -> set[tuple[str, str, int, str]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(select(
                ExportedVariant.question_id, ExportedVariant.content_key, ExportedVariant.seed,
                ExportedVariant.export_format)).all()
    finally:
        engine.dispose()
    return {tuple(row) for row in rows}


@pytest.mark.parametrize("export_format", ["moodle", "qti"])
def test_an_export_records_every_variant_it_holds(tmp_path, capsys, database, real_bank,
                                                  export_format):
    args = ["export", export_format, "--lesson", LESSON, "--questions",
            "spec-demand,order-computed-path", "--variants", "3", "--seeds-from", "5",
            "--out", str(tmp_path / "class.out"), "--database-url", database]
    assert main(args) == 0
    exercises = exercise_set(real_bank, LESSON, ["spec-demand", "order-computed-path"], 3, 5)
    assert recorded(database) == {
        (item.question.id, content_key(variant), variant.seed, export_format)
        for item in exercises.items for variant in item.variants}
    assert "recorded 6 variant(s) as exported" in capsys.readouterr().out
    assert main(args) == 0  # the same export again records nothing twice
    assert "(0 new)" in capsys.readouterr().out
    assert len(recorded(database)) == 6


def test_without_a_migrated_database_no_file_is_written(tmp_path, capsys):
    out = tmp_path / "class.xml"
    status = main(["export", "moodle", "--lesson", LESSON, "--questions", "spec-demand",
                   "--variants", "1", "--seeds-from", "5", "--out", str(out),
                   "--database-url", f"sqlite:///{tmp_path / 'empty.sqlite3'}"])
    assert status == 2 and not out.exists()
    assert "cannot record the exported variants" in capsys.readouterr().err


def test_no_record_writes_the_file_alone(tmp_path, database):
    out = tmp_path / "class.xml"
    assert main(["export", "moodle", "--lesson", LESSON, "--questions", "spec-demand",
                 "--variants", "1", "--seeds-from", "5", "--out", str(out),
                 "--database-url", database, "--no-record"]) == 0
    assert out.exists() and recorded(database) == set()


def test_drawing_skips_an_exported_content_the_partition_would_serve():
    """The fake bank's concept check publishes nothing (three contents): every content is
    servable, so only the record keeps the exported one from being served."""
    bank = FakeBank()
    index = BankIndex.of(bank)
    question = index.questions["running-first"]
    assert not index.publication.publishes(question)
    exported = content_key(bank.variant(question.id, 0))
    ctx = Context(uow=None, bank=bank, index=index, identity=None,  # type: ignore[arg-type]
                  now=NOW, rng=random.Random(7), limits=Limits())
    drawn = {content_key(draw_variant(ctx, question, exported=frozenset({exported}))[1])
             for _ in range(60)}
    assert exported not in drawn and len(drawn) == 2
    assert exported in {content_key(draw_variant(ctx, question)[1]) for _ in range(60)}


def test_serving_never_hands_out_an_exported_content(app, db, bank):
    question = bank.questions["running-first"]
    exported = content_key(bank.variant(question.id, 0))
    assert repos(db).exports.record(
        [Exported(question.id, exported, 0, bank.version)], "moodle", NOW) == 1
    for _ in range(8):
        take_quiz(app, db, bank, right=True)
    served = set(db.scalars(select(ServedVariant.content_key)
                            .where(ServedVariant.question_id == question.id)))
    assert len(served) == 2 and exported not in served


def test_a_new_variant_never_hands_out_an_exported_content(learner, bank):
    """A practice variant honours the export record as serving does: the content the next
    draw would give is recorded as exported, and the new variant is another."""
    attempt = None
    for _ in range(20):  # questions come in the session's order: answer until the numeric one
        session = learner.start(LESSON_ID, mode="quiz", size=1)
        question = learner.next(session.id).question
        if question.question_id == "budget-split":
            attempt = learner.answer(question.variant_id,
                                     learner.wrong_answer(question.variant_id))
            learner.explain(attempt.id, "I split the budget the wrong way round")
            break
        learner.answer(question.variant_id, learner.right_answer(question.variant_id))
    assert attempt is not None, "the fake bank's numeric question was never served"
    ctx = learner.ctx
    probe = random.Random()
    probe.setstate(ctx.rng.getstate())
    seed = probe.getrandbits(SERVED_SEED_BITS)
    exported = content_key(bank.variant("budget-split", seed))
    with learner.uow.write():
        assert learner.uow.exports.record(
            [Exported("budget-split", exported, seed, bank.version)], "moodle", NOW) == 1
    served = variants.new_variant(ctx, attempt.id)
    assert served.question_id == "budget-split"
    assert content_key(learner.variant(served.variant_id)) != exported

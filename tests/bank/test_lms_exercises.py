"""Which questions and variants an LMS export takes, and that they come back from the seed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from quizsvc.bank import BankError, NotFound
from quizsvc.bank.catalog import Bank
from quizsvc.bank.kinds import GRADED
from quizsvc.bank.lms.exercises import (
    SEED_CEILING,
    SEED_FLOOR,
    exercise_set,
    graded_questions,
    publishable_variants,
)
from quizsvc.bank.model import QuestionKind, Variant
from tests.support.isolation import WEB_OR_DATABASE, pulled_in

LESSON = "vllm-v1-ledger"


class PickyBank:
    """Wrap the real bank, refusing the seeds ``refuse`` picks, as a template that finds no
    usable numbers does."""

    def __init__(self, bank: Bank, refuse: Callable[[int], bool]) -> None:
        self.bank = bank
        self.kinds = bank.kinds
        self.refuse = refuse

    def variant(self, question_id: str, seed: int) -> Variant:
        """Return the real variant, or raise for a refused seed."""
        if self.refuse(seed):
            raise BankError(question_id, "seed", "no usable numbers")
        return self.bank.variant(question_id, seed)


def test_variant_seeds_lie_in_the_range_the_service_never_serves(bank):
    from quizsvc.bank.publication import SERVED_SEED_BITS

    assert 2**SERVED_SEED_BITS <= SEED_FLOOR < SEED_CEILING
    for question in graded_questions(bank, LESSON, None):
        for variant in publishable_variants(bank, question, 4, 11):
            assert SEED_FLOOR <= variant.seed < SEED_CEILING


def test_the_same_seed_gives_the_same_variants_and_another_seed_others(bank):
    question = bank.questions["mixed-step-allocation"]
    first = publishable_variants(bank, question, 5, 2026)
    assert publishable_variants(bank, question, 5, 2026) == first
    assert len({v.seed for v in first}) == 5
    assert {v.seed for v in publishable_variants(bank, question, 5, 2027)}.isdisjoint(
        {v.seed for v in first})
    assert all(v == bank.variant(question.id, v.seed) for v in first)


def test_a_seed_without_usable_numbers_is_passed_over(bank):
    question = bank.questions["spec-demand"]
    wanted = [v.seed for v in publishable_variants(bank, question, 3, 5)]
    picky = PickyBank(bank, lambda seed: seed == wanted[0])
    got = [v.seed for v in publishable_variants(picky, question, 3, 5)]  # type: ignore[arg-type]
    assert got[:2] == wanted[1:] and wanted[0] not in got and len(got) == 3


def test_a_question_that_yields_no_variant_is_refused(bank):
    question = bank.questions["spec-demand"]
    barren = PickyBank(bank, lambda seed: True)
    with pytest.raises(BankError, match="no usable published variant"):
        publishable_variants(barren, question, 2, 5)  # type: ignore[arg-type]


def test_a_question_too_small_to_spare_a_content_is_refused_and_left_out(bank):
    from quizsvc.bank.publication import Publication

    publication = Publication(bank)
    small = next(q for q in bank.questions_for(LESSON)
                 if q.kind.value == "anchor" and not publication.publishes(q))
    with pytest.raises(BankError, match="too few different things"):
        publishable_variants(bank, small, 1, 5)
    assert small not in graded_questions(bank, LESSON, None)


@pytest.mark.parametrize("count", [0, 51])
def test_the_variant_count_is_bounded(bank, count):
    with pytest.raises(BankError, match="variants"):
        publishable_variants(bank, bank.questions["spec-demand"], count, 1)


def test_by_default_every_graded_question_of_the_lesson_goes_in_teaching_order(bank):
    from quizsvc.bank.publication import Publication

    publication = Publication(bank)
    chosen = graded_questions(bank, LESSON, None)
    assert [q.id for q in chosen] == [q.id for q in bank.questions_for(LESSON)
                                      if q.kind in GRADED and publication.publishes(q)]
    # An anchor asks one thing (one content), so it can spare none and never publishes.
    assert {q.kind for q in chosen} == set(GRADED) - {QuestionKind.ANCHOR}
    assert not {QuestionKind.FLASHCARD, QuestionKind.EXPLAIN} & {q.kind for q in chosen}


def test_named_questions_go_in_the_order_named_once_each(bank):
    chosen = graded_questions(bank, LESSON, ["spec-demand", "choice-seats", "spec-demand"])
    assert [q.id for q in chosen] == ["spec-demand", "choice-seats"]


@pytest.mark.parametrize(("lesson", "ids", "error", "words"), [
    ("nope", None, NotFound, "no lesson"),
    (LESSON, ["nope"], NotFound, "no question"),
    (LESSON, ["card-num-computed-tokens"], BankError, "not graded"),
    (LESSON, ["explain-computed-not-generated"], BankError, "not graded"),
])
def test_an_unknown_or_ungraded_question_is_refused(bank, lesson, ids, error, words):
    with pytest.raises(error, match=words):
        graded_questions(bank, lesson, ids)


def test_the_record_holds_every_seed_the_export_used(bank):
    exercises = exercise_set(bank, LESSON, ["spec-demand", "order-computed-path"], 3, 99)
    record = exercises.record()
    assert record["seeds_from"] == 99 and record["bank_version"] == bank.version
    assert record["variants"] == 3 and record["seed_range"] == [SEED_FLOOR, SEED_CEILING]
    assert record["questions"] == {item.question.id: list(item.seeds)
                                   for item in exercises.items}
    again = exercise_set(bank, LESSON, ["spec-demand", "order-computed-path"], 3, 99)
    assert again == exercises


def test_the_lms_exports_import_no_web_or_database_code():
    modules = ("quizsvc.bank.lms.moodle", "quizsvc.bank.lms.qti", "quizsvc.bank.lms.commands",
               "quizsvc.study.export_commands")  # the database only when a command runs
    # The bank validates its files with marshmallow; the web and the database stay out.
    assert pulled_in(modules, WEB_OR_DATABASE - {"marshmallow"}) == []

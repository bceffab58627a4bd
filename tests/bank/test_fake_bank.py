"""The service tests' fake bank writes its variants by hand but grades with the bank's own
code: a grading bug cannot hide behind a copy of the grader in the tests."""

from __future__ import annotations

from quizsvc.bank import grading
from quizsvc.bank.catalog import Bank
from quizsvc.bank.kinds import KINDS
from tests.support.fake_bank import FakeBank


def test_the_fake_bank_grades_with_the_real_banks_grader() -> None:
    for name in ("grade", "grade_key"):
        assert name not in vars(FakeBank), f"FakeBank must not define its own {name}"
        assert getattr(FakeBank, name) is getattr(Bank, name) is getattr(grading.Grader, name)
    assert FakeBank().kinds is KINDS


def test_a_fake_variant_is_graded_as_the_grading_module_grades_it() -> None:
    bank = FakeBank()
    for question_id in ("budget-split", "running-first"):
        variant = bank.variant(question_id, 3)
        for answer in (variant.answer, variant.misconceptions[0].answer):
            assert bank.grade(variant, answer) == grading.grade(variant, answer, KINDS)

"""The pure rules of a diagnosis: what counts as a sentence, which rules are offered, and
accuracy by week."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from quizsvc.bank.model import Lesson, Question, Rule, Section, Text
from quizsvc.review.diagnosis import (
    DiagnosisWeek,
    accuracy_by_week,
    diagnosis_matched,
    offered_rules,
    written_enough,
)


@pytest.mark.parametrize(("text", "enough"), [
    ("?", False), ("", False), ("?? !! ...", False), ("two words", False),
    ("three whole words", True), ("don't split-it evenly", True),
    ("看错了", False), ("我看错了题目", True), ("C 回退了", False), ("C 回退了两次", True),
    ("1 2 3", True), ("— — —", False),
])
def test_a_sentence_is_three_words_or_six_chinese_characters(text, enough):
    assert written_enough(text) is enough


def rule(rule_id: str, section: str) -> Rule:
    return Rule(rule_id, Text(zh=rule_id, en=rule_id), section)


LESSON = Lesson("l", Text(zh="l", en="l"), (Section("a", Text(zh="a", en="a")),),
                rules=(rule("r1", "a"), rule("r2", "a"), rule("r3", "b"), rule("r4", "c"),
                       rule("r5", "b")))


def test_the_offered_rules_are_the_questions_the_broken_ones_and_their_sections():
    question = Question("q", "l", "choice", "a", (), (), Text(zh="q", en="q"), rules=("r2",))
    offered = offered_rules(LESSON, question, ["r3"])
    assert [r.id for r in offered] == ["r1", "r2", "r3", "r5"]  # teaching order, no r4


def test_a_diagnosis_is_graded_only_against_a_matched_wrong_model():
    assert diagnosis_matched("r1", "r1") is True
    assert diagnosis_matched("r2", "r1") is False
    assert diagnosis_matched("r1", None) is None
    assert diagnosis_matched(None, "r1") is None


def test_accuracy_is_counted_by_week_from_monday_utc():
    monday = datetime(2026, 11, 2, 0, 30, tzinfo=UTC)
    sunday = datetime(2026, 11, 8, 23, 59, tzinfo=UTC)
    next_week = datetime(2026, 11, 9, 8, 0, tzinfo=UTC)
    weeks = accuracy_by_week([(next_week, False), (monday, True), (sunday, False)])
    assert weeks == (DiagnosisWeek(date(2026, 11, 2), 2, 1),
                     DiagnosisWeek(date(2026, 11, 9), 1, 0))
    assert weeks[0].rate == 0.5

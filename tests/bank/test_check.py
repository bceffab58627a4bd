"""``quizsvc bank check`` over the real bank: every file valid, 200 seeds of every template."""

from __future__ import annotations

import pytest

from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.bank.check import check_bank
from quizsvc.bank.model import QuestionKind
from quizsvc.cli import main


@pytest.fixture(scope="module")
def report():
    return check_bank(DEFAULT_BANK_DIR, seeds=200)


def test_the_real_bank_passes_the_full_check_with_200_seeds_per_template(report):
    assert report.errors == []
    numeric = [s for s in report.stats if s.kind == "numeric"]
    assert all(s.variants == 200 for s in numeric)


def test_every_numeric_family_varies_its_answer_across_seeds(report):
    for stats in report.stats:
        if stats.kind == "numeric":
            assert stats.distinct_answers >= 3, stats.question_id


def test_every_numeric_family_names_at_least_one_wrong_model_in_most_variants(report):
    for stats in report.stats:
        if stats.kind == "numeric":
            best = max(stats.misconceptions.values(), default=0)
            assert best >= stats.variants // 2, (stats.question_id, stats.misconceptions)


def test_the_bank_holds_the_content_the_issue_asks_for(bank):
    kinds: dict[QuestionKind, int] = {}
    for question in bank.questions.values():
        kinds[question.kind] = kinds.get(question.kind, 0) + 1
    assert kinds[QuestionKind.NUMERIC] >= 12
    assert kinds[QuestionKind.CHOICE] + kinds[QuestionKind.MULTI] + kinds[QuestionKind.ORDER] >= 12
    assert kinds[QuestionKind.ANCHOR] >= 10
    assert kinds[QuestionKind.FLASHCARD] >= 30


def test_every_section_of_the_lesson_is_drilled(bank):
    for lesson in bank.lessons.values():
        drilled = {q.section for q in bank.questions_for(lesson.id)}
        assert drilled == {section.id for section in lesson.sections}


def test_every_catalogued_misconception_is_used_somewhere(bank):
    used = set()
    for question_id in bank.questions:
        spec = bank.entry(question_id).spec
        used.update(spec.get("misconceptions", []))
        for option in spec.get("options", []):
            if option.get("misconception"):
                used.add(option["misconception"])
    for lesson_id in bank.lessons:
        assert set(bank.misconception_names(lesson_id)) <= used


def test_the_check_command_exits_0_on_the_real_bank(capsys):
    assert main(["bank", "check", "--seeds", "3"]) == 0
    assert "ok" in capsys.readouterr().out


def test_the_check_command_exits_1_and_names_the_file_on_a_broken_bank(tiny_bank, capsys):
    broken = tiny_bank / "tiny-lesson" / "questions" / "pick-one.yaml"
    broken.write_text(broken.read_text().replace("answer: running", "answer: nobody"))
    assert main(["bank", "check", "--bank-dir", str(tiny_bank)]) == 1
    err = capsys.readouterr().err
    assert "pick-one.yaml: answer:" in err
    assert "'nobody' is not an option id" in err


def test_the_check_can_be_limited_to_one_question(capsys):
    assert main(["bank", "check", "--seeds", "2", "--question", "spec-rollback", "-v"]) == 0
    out = capsys.readouterr().out
    assert "spec-rollback" in out
    assert "1 questions" in out

"""Every concept check serves enough distinct contents that a few reveals cannot cover them.

Mastery needs two right closed-book answers on variants that differ in content; a question
with only a handful of contents can be covered by revealing each on a throwaway account. The
bound is ``MIN_DISTINCT_CONTENTS`` over ``CONTENT_SEEDS`` seeds, for choice, multi and order
questions (anchors stay one form and are never mastered on their own).
"""

from __future__ import annotations

import re

import pytest

from quizsvc.bank import BankError, read_bank
from quizsvc.bank.check import check_bank
from quizsvc.bank.content import (
    CONTENT_SEEDS,
    MIN_DISTINCT_CONTENTS,
    content_key,
    distinct_contents,
)
from quizsvc.bank.kinds import VARIED
from quizsvc.bank.model import QuestionKind
from quizsvc.bank.publication import Publication
from quizsvc.cli import main
from tests.support.tiny_bank import LESSON, choice_data, text, write_tiny_bank, write_yaml

# Words that point a prompt at another question's scenario instead of restating it.
NOT_ALONE = re.compile(r"same scenario|same two prompts|同一场景|同样的两个")


def concept_checks(bank):
    return sorted(qid for qid, q in bank.questions.items() if q.kind in VARIED)


def test_every_choice_multi_and_order_question_serves_enough_distinct_contents(bank):
    """Counted after the share kept for decks and exports: what the service itself serves."""
    publication = Publication(bank)
    served = {qid: publication.servable_contents(bank.questions[qid])
              for qid in concept_checks(bank)}
    assert len(served) >= 25
    short = {qid: n for qid, n in served.items() if n < MIN_DISTINCT_CONTENTS}
    assert short == {}, f"below {MIN_DISTINCT_CONTENTS} contents over {CONTENT_SEEDS} seeds"
    assert all(served[qid] <= distinct_contents(bank, qid) for qid in served)


def test_distinct_contents_counts_what_is_asked_not_seeds(bank):
    """A reshuffle of the same options is the same content; anchors keep their one form."""
    anchor = next(qid for qid, q in sorted(bank.questions.items())
                  if q.kind is QuestionKind.ANCHOR)
    shuffled = {tuple(o.id for o in bank.variant(anchor, seed).input.options)
                for seed in range(30)}
    assert len(shuffled) > 1
    assert distinct_contents(bank, anchor, range(30)) == 1
    assert distinct_contents(bank, "choice-seats", range(200)) == len(
        {content_key(bank.variant("choice-seats", seed)) for seed in range(200)})


def test_the_check_fails_a_concept_check_with_too_few_contents(tiny_bank):
    report = check_bank(tiny_bank, seeds=5)
    assert [error for error in report.errors if "distinct contents" in error] == [
        f"pick-one: only 1 distinct contents served over {CONTENT_SEEDS} seeds "
        f"(at least {MIN_DISTINCT_CONTENTS}: a few reveals must not cover them; "
        "decks and exports keep 0 of its 1)"]
    assert report.stats[0].contents == 1


def test_check_v_prints_each_question_s_contents(capsys):
    assert main(["bank", "check", "--seeds", "2", "--question", "choice-seats",
                 "--question", "spec-rollback", "-v"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"choice-seats .* (\d+) contents/{CONTENT_SEEDS} seeds", out)
    assert re.search(r"spec-rollback .* \d+ contents/2 seeds", out)


def pool_bank(tmp_path, draw, answer):
    """Write the tiny bank with one choice pool: two right statements, four wrong ones."""
    root = write_tiny_bank(tmp_path)
    data = choice_data()
    data["options"] = [
        {"id": "running", "text": text("先 running", "running first")},
        {"id": "running-loop", "text": text("running 循环先", "the running loop first")},
        {"id": "waiting", "text": text("先 waiting", "waiting first"),
         "misconception": "waiting-first"},
        {"id": "arrival", "text": text("按到达", "by arrival")},
        {"id": "shortest", "text": text("最短先", "the shortest first")},
        {"id": "even", "text": text("平分", "shared evenly")},
    ]
    data["answer"] = answer
    if draw is not None:
        data["draw"] = draw
    write_yaml(root / LESSON / "questions" / "pick-one.yaml", data)
    return root


def test_a_choice_pool_shows_one_right_statement_and_its_draw_of_wrong_ones(tmp_path):
    root = pool_bank(tmp_path, {"right": 1, "wrong": 3}, ["running", "running-loop"])
    bank = read_bank(root)
    rights = set()
    for seed in range(200):
        variant = bank.variant("pick-one", seed)
        shown = [o.id for o in variant.input.options]
        assert len(shown) == 4
        assert variant.answer in {"running", "running-loop"} and variant.answer in shown
        assert len({"running", "running-loop"} & set(shown)) == 1
        assert bank.grade(variant, variant.answer).correct
        assert not any(bank.grade(variant, other).correct for other in shown
                       if other != variant.answer)
        assert [m.id for m in variant.misconceptions] == (
            ["waiting-first"] if "waiting" in shown else [])
        rights.add(variant.answer)
    assert rights == {"running", "running-loop"}
    # A content is the prompt and the right statement: the wrong ones drawn beside it are not
    # another question, so 2 right statements are 2 contents, whatever C(4, 3) draws of wrong.
    assert distinct_contents(bank, "pick-one", range(200)) == 2


@pytest.mark.parametrize(("draw", "answer", "field", "reason"), [
    (None, ["running", "running-loop"], "answer", "several right options need a draw"),
    ({"right": 2, "wrong": 1}, ["running", "running-loop"], "draw", "must draw 1 right option"),
    ({"right": 1, "wrong": 5}, ["running", "running-loop"], "draw", "must draw 1 right option"),
    ({"right": 1, "wrong": 3}, ["running", "nobody"], "answer", "'nobody' is not an option id"),
    ({"right": 1, "wrong": 3}, ["running", "waiting"], "options",
     "cannot carry a misconception"),
    ({"right": 1, "wrong": 3}, [], "answer", "must be an option id or a list"),
], ids=["several right without a draw", "a draw of two right", "more wrong than the pool",
        "an unknown right id", "a right option tagged wrong", "an empty answer"])
def test_a_bad_choice_pool_fails_with_field_and_reason(tmp_path, draw, answer, field, reason):
    root = pool_bank(tmp_path, draw, answer)
    with pytest.raises(BankError) as raised:
        read_bank(root)
    assert raised.value.field == field
    assert reason in raised.value.reason


def test_every_concept_check_prompt_stands_alone(bank):
    """No prompt leans on another form's scenario ("the same scenario") without restating it."""
    for qid in concept_checks(bank):
        for form in bank.entry(qid).spec["forms"]:
            for lang in ("zh", "en"):
                assert not NOT_ALONE.search(form["prompt"][lang]), (qid, lang)

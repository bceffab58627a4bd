"""Item analysis: facility, spread over variants, timing, discrimination, misconceptions,
per-rule accuracy, from first closed-book answers; and a simulated class whose items have
known difficulty and discrimination."""

from __future__ import annotations

import random
import statistics

import pytest

from quizsvc.review.item_analysis import (
    MIN_LEARNERS,
    FirstAttempt,
    analyse,
    discrimination_index,
)
from tests.support.population import (
    CLASS_DIFFICULTIES,
    CLASS_DISCRIMINATIONS,
    class_items,
    simulate_class,
)


def answer(learner: int, question: str, correct: bool, variant: str = "c1", seed: int = 1,
           duration_ms: int = 1000, misconception: str | None = None,
           explained: bool = False, diagnosed: str | None = None) -> FirstAttempt:
    return FirstAttempt(learner, question, variant, seed, correct, duration_ms, misconception,
                        explained, diagnosed)


QUESTIONS = {"qa": ("budget",), "qb": ("budget", "rollback"), "qc": ("rollback",)}
RULES = ["budget", "rollback", "unused"]
BREAKS = {"m-double": "budget", "m-late": "rollback"}


def test_facility_is_the_share_right_and_time_is_the_median():
    attempts = [answer(1, "qa", True, duration_ms=1000), answer(2, "qa", False, duration_ms=5000),
                answer(3, "qa", True, duration_ms=2000), answer(4, "qa", True, duration_ms=9000)]
    item = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0]
    assert (item.answers, item.right, item.learners) == (4, 3, 4)
    assert item.facility == 0.75
    assert item.median_ms == 3500


def test_a_question_nobody_answered_has_no_figures_but_keeps_its_row():
    result = analyse([answer(1, "qa", True)], QUESTIONS, RULES, BREAKS)
    unanswered = {item.question_id: item for item in result.items}["qc"]
    assert unanswered.answers == 0 and unanswered.facility is None
    assert unanswered.median_ms is None and unanswered.spread is None
    assert unanswered.discrimination.index is None


def test_answers_to_questions_out_of_scope_are_left_out():
    result = analyse([answer(1, "gone", True), answer(1, "qa", False)], QUESTIONS, RULES, BREAKS)
    assert result.answers == 1
    assert [item.question_id for item in result.items] == ["qa", "qb", "qc"]


def test_the_spread_compares_variants_with_enough_answers_hardest_first():
    attempts = ([answer(i, "qa", True, variant="easy", seed=7) for i in range(5)]
                + [answer(10 + i, "qa", i < 1, variant="hard", seed=3) for i in range(5)]
                + [answer(20, "qa", False, variant="rare", seed=9)])
    item = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0]
    assert [v.variant for v in item.variants] == ["rare", "hard", "easy"]
    assert item.variants[1].seed == 3 and item.variants[1].facility == 0.2
    assert item.spread is not None
    assert (item.spread.compared, item.spread.lowest, item.spread.highest) == (2, 0.2, 1.0)
    assert item.spread.gap == pytest.approx(0.8)


def test_one_variant_gives_no_spread():
    item = analyse([answer(i, "qa", True) for i in range(9)], QUESTIONS, RULES, BREAKS).items[0]
    assert item.spread is None


def test_discrimination_is_the_correlation_with_the_rest_score():
    # Learners 0..24: the strong half right on qa and on qb; the weak half wrong on both.
    attempts = [a for i in range(25) for a in (answer(i, "qa", i >= 12), answer(i, "qb", i >= 12))]
    item = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0]
    assert item.discrimination.learners == 25
    assert item.discrimination.index == pytest.approx(1.0)


def test_a_question_the_weak_get_right_discriminates_negatively():
    attempts = [a for i in range(25) for a in (answer(i, "qa", i < 12), answer(i, "qb", i >= 12))]
    assert analyse(attempts, QUESTIONS, RULES, BREAKS).items[0].discrimination.index == \
        pytest.approx(-1.0)


def test_no_discrimination_is_shown_under_the_minimum_count_of_learners():
    n = MIN_LEARNERS - 1
    attempts = [a for i in range(n) for a in (answer(i, "qa", i % 2 == 0),
                                               answer(i, "qb", i % 2 == 0))]
    item = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0]
    assert item.discrimination.learners == n and item.discrimination.index is None
    assert analyse(attempts, QUESTIONS, RULES, BREAKS, min_learners=n).items[0] \
        .discrimination.index == pytest.approx(1.0)


def test_learners_who_answered_nothing_else_give_no_rest_score():
    attempts = [answer(i, "qa", i % 2 == 0) for i in range(30)]
    item = analyse(attempts, QUESTIONS, RULES, BREAKS, min_learners=2).items[0]
    assert item.discrimination.learners == 0 and item.discrimination.index is None


@pytest.mark.parametrize(("item", "rest"), [
    ([1.0] * 25, [i / 25 for i in range(25)]),  # everyone right: the item does not vary
    ([float(i % 2) for i in range(25)], [0.5] * 25),  # the rest does not vary
])
def test_no_index_without_variation(item, rest):
    assert discrimination_index(item, rest) is None


def test_misconceptions_by_frequency_with_the_rule_they_break():
    attempts = [answer(1, "qa", False, misconception="m-late"),
                answer(2, "qa", False, misconception="m-double"),
                answer(3, "qa", False, misconception="m-double"),
                answer(4, "qa", False), answer(5, "qa", True)]
    found = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0].misconceptions
    assert [(m.misconception_id, m.breaks, m.count) for m in found] == [
        ("m-double", "budget", 2), ("m-late", "rollback", 1)]
    assert found[0].share_of_wrong == 0.5
    assert found[0].diagnosed_share is None  # nothing explained: no figure


def test_the_diagnosed_share_counts_explanations_whose_diagnosis_named_the_broken_rule():
    attempts = [answer(1, "qa", False, misconception="m-double", explained=True,
                       diagnosed="budget"),
                answer(2, "qa", False, misconception="m-double", explained=True,
                       diagnosed="rollback"),
                answer(3, "qa", False, misconception="m-double", explained=False)]
    found = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0].misconceptions
    assert (found[0].explained, found[0].diagnosed_share) == (2, 0.5)


def test_an_explanation_written_before_diagnoses_named_a_rule_is_left_out_of_the_share():
    attempts = [answer(1, "qa", False, misconception="m-double", explained=True,
                       diagnosed="budget"),
                answer(2, "qa", False, misconception="m-double", explained=True)]
    found = analyse(attempts, QUESTIONS, RULES, BREAKS).items[0].misconceptions
    assert (found[0].explained, found[0].diagnosed_share) == (2, 1.0)


def test_rule_accuracy_covers_every_question_that_tests_it():
    attempts = [answer(1, "qa", True), answer(1, "qb", False, misconception="m-late"),
                answer(1, "qc", False, misconception="m-late"), answer(2, "qa", True)]
    rules = {rule.rule_id: rule for rule in analyse(attempts, QUESTIONS, RULES, BREAKS).rules}
    assert rules["budget"].questions == ("qa", "qb")
    assert (rules["budget"].answers, rules["budget"].right) == (3, 2)
    assert (rules["rollback"].answers, rules["rollback"].accuracy) == (2, 0.0)
    assert rules["rollback"].misconception_answers == 2
    assert rules["unused"].answers == 0 and rules["unused"].accuracy is None


# The simulated class: 40 learners of skill spread from -2.5 to 2.5, 20 two-parameter
# logistic items (5 difficulties x 4 discriminations), each with a variant one step harder.

def simulated_analysis():
    items = class_items()
    attempts = simulate_class(40, items, random.Random(2026))
    result = analyse(attempts, {item.question_id: ("r",) for item in items}, ["r"], {})
    return items, {stats.question_id: stats for stats in result.items}, result


def test_the_simulated_class_has_forty_learners_answering_twenty_questions():
    _, _, result = simulated_analysis()
    assert (result.learners, result.answers, len(result.items)) == (40, 800, 20)
    assert all(stats.discrimination.learners == 40 for stats in result.items)


def test_facility_falls_in_the_order_the_simulation_made_the_difficulties():
    items, stats, _ = simulated_analysis()
    by_level = [statistics.mean(stats[i.question_id].facility for i in items
                                if i.difficulty == level) for level in CLASS_DIFFICULTIES]
    assert by_level == sorted(by_level, reverse=True), by_level
    # over single items too: harder items are rarely easier than easier ones
    order = statistics.correlation([i.difficulty for i in items],
                                   [stats[i.question_id].facility for i in items])
    assert order < -0.9, order


def test_discrimination_rises_in_the_order_the_simulation_made_it():
    items, stats, _ = simulated_analysis()
    by_level = [statistics.mean(stats[i.question_id].discrimination.index for i in items
                                if i.discrimination == level) for level in CLASS_DISCRIMINATIONS]
    assert by_level == sorted(by_level), by_level
    assert all(index > 0 for index in by_level)


def test_the_harder_variant_is_the_hardest_of_most_questions():
    items, stats, _ = simulated_analysis()
    hardest = [stats[i.question_id].variants[0].variant.endswith("/v2") for i in items]
    assert sum(hardest) >= 15

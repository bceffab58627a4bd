"""Variants: the same (question, seed, bank version) always gives the same variant."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsvc.bank import BankError, read_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.bank.export import variant_to_dict
from quizsvc.bank.model import QuestionKind
from quizsvc.bank.pointer import resolve
from quizsvc.ledger import replay


def test_the_same_seed_gives_the_same_variant_in_a_fresh_bank(bank):
    again = read_bank(DEFAULT_BANK_DIR)
    assert again.version == bank.version
    for question_id in bank.questions:
        assert again.variant(question_id, 11) == bank.variant(question_id, 11)


def test_different_seeds_give_different_numbers(bank):
    prompts = {bank.variant("mixed-step-allocation", seed).prompt.en for seed in range(20)}
    assert len(prompts) >= 15


def test_choice_options_are_shuffled_by_seed_and_drawn_from_their_own_form(bank):
    forms = bank.entry("choice-running-first").spec["forms"]
    orders: dict[tuple[int, frozenset[str]], set[tuple[str, ...]]] = {}
    for seed in range(200):
        variant = bank.variant("choice-running-first", seed)
        shown = tuple(o.id for o in variant.input.options)
        assert set(shown) <= {o["id"] for o in forms[variant.form]["options"]}
        orders.setdefault((variant.form, frozenset(shown)), set()).add(shown)
    assert {form for form, _ in orders} == set(range(len(forms)))
    assert any(len(seen) > 1 for seen in orders.values())  # the same options, reshuffled


@pytest.mark.parametrize("seed", [-1, 2**63, True, "3", 1.0, None])
def test_a_bad_seed_is_refused_with_the_field(bank, seed):
    with pytest.raises(BankError) as caught:
        bank.variant("spec-rollback", seed)
    assert caught.value.field == "seed"


def test_the_bank_version_changes_when_content_changes(bank_copy, bank):
    card = bank_copy / "vllm-v1-ledger" / "questions" / "flashcard" / "card-null-block.yaml"
    assert read_bank(bank_copy).version == bank.version
    card.write_text(card.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert read_bank(bank_copy).version != bank.version


def test_questions_are_listed_in_lesson_section_order(bank):
    lesson = bank.lessons["vllm-v1-ledger"]
    order = [s.id for s in lesson.sections]
    listed = [order.index(q.section) for q in bank.questions_for(lesson.id)]
    assert listed == sorted(listed)
    assert len(listed) == len(bank.questions)


def test_a_numeric_variant_hides_nothing_it_needs_and_shows_nothing_it_should_not(bank):
    variant = bank.variant("spec-rollback", 3)
    public = variant_to_dict(variant, reveal=False)
    assert {"answer", "solution", "misconceptions", "scenario", "answer_ref"}.isdisjoint(public)
    assert not any(key.startswith("_") for key in variant.params)
    assert json.dumps(public)


def test_the_lessons_spec_example_is_reproduced_by_the_rollback_template(bank):
    """N=11, C=10, 3 drafts, 1 accepted -> C=12, N=13, 2 tokens (the lesson's own numbers)."""
    generator = bank.entry("spec-rollback").generator
    params = {"num_spec": 3, "prompt": 10, "warmups": 0, "accepted_1": 0, "accepted_2": 0,
              "drafts": 3, "accepted": 1}
    built = generator.build(params)
    trace = replay(built.scenario)
    step = trace["steps"][built.step]["requests"]["R"]
    assert (step["before_schedule"]["num_tokens"], step["before_schedule"]["num_computed_tokens"],
            step["before_schedule"]["num_spec_token_ids"]) == (11, 10, 3)
    assert step["after_schedule"]["num_computed_tokens"] == 14
    assert (step["after_update"]["num_computed_tokens"], step["after_update"]["num_tokens"]) == (
        12, 13)


def test_the_lessons_161_allocation_is_reproduced_by_the_mixed_step_template(bank):
    generator = bank.entry("mixed-step-allocation").generator
    built = generator.build({"budget": 8, "prompt_a": 5, "remaining_b": 6, "prompt_c": 5})
    trace = replay(built.scenario)
    assert trace["steps"][built.step]["schedule"]["num_scheduled_tokens"] == {
        "A": 1, "B": 6, "C": 1}


@settings(max_examples=60, deadline=None)
@given(question=st.sampled_from(["mixed-step-allocation", "spec-demand", "kv-preemption-victim",
                                 "async-placeholders", "prefix-cache-hit", "eos-in-spec-step"]),
       seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_any_seed_of_a_numeric_template_gives_a_consistent_variant(bank, question, seed):
    variant = bank.variant(question, seed)
    assert variant.kind is QuestionKind.NUMERIC
    trace = replay(variant.scenario)
    values = [resolve(trace, ref) for ref in variant.answer_ref]
    assert (values if variant.input.type == "vector" else values[0]) == variant.answer
    assert bank.grade(variant, variant.answer).correct
    assert "{" not in variant.prompt.zh and "{" not in variant.prompt.en

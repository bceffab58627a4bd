"""A wrong model the ledger replays can be shown as the asked step, beside the real one."""

from __future__ import annotations

import pytest

from quizsvc.bank import load_bank


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def test_running_first_against_waiting_first_in_the_worked_solutions_table(bank) -> None:
    variant = bank.variant("mixed-step-allocation", 3)
    step = bank.model_step("mixed-step-allocation", 3, "waiting-before-running", "en",
                           variant.answer)
    assert step is not None and step.step == variant.extra["step"]
    assert step.header[0] == "request" and len(step.header) == len(step.real[0])
    real, wrong = {r[0]: r for r in step.real}, {r[0]: r for r in step.wrong}
    assert real.keys() == wrong.keys() == {"A", "B", "C"}
    # Waiting first: C takes its whole demand, so B (served after it) is cut short.
    assert wrong["C"][4] == "its demand" and real["C"][4] == "token_budget"
    chinese = bank.model_step("mixed-step-allocation", 3, "waiting-before-running", "zh",
                              variant.answer)
    assert chinese.header[0] == "请求"


def test_a_model_computed_by_formula_or_another_answer_shows_nothing(bank) -> None:
    variant = bank.variant("mixed-step-allocation", 3)
    assert bank.model_step("mixed-step-allocation", 3, "demand-ignores-computed", "en",
                           variant.answer) is None
    assert bank.model_step("mixed-step-allocation", 3, "waiting-before-running", "en",
                           [0, 0, 0]) is None


def test_every_replayed_model_of_the_bank_differs_from_the_real_step_where_shown(bank) -> None:
    shown = 0
    for question in bank.questions.values():
        if question.kind.value != "numeric":
            continue
        for seed in range(3):
            variant = bank.variant(question.id, seed)
            for model in variant.misconceptions:
                step = bank.model_step(question.id, seed, model.id, "en", variant.answer)
                if step is not None:
                    shown += 1
                    assert step.real != step.wrong, (question.id, seed, model.id)
    assert shown >= 10

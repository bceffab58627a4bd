"""A numeric prompt names every value that binds: ``bank check`` proves the rest cannot.

Small fake templates in the tiny bank show each way a prompt can leave a binding value unsaid
(and the honest one that passes); the real bank passes the same check.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from quizsvc.bank.catalog import read_bank
from quizsvc.bank.check import check_bank, prompt_problems
from quizsvc.bank.model import QuestionKind
from quizsvc.bank.stated import AMPLE, MODES, SETTING_KEYS, shape_of, unsaid_problems
from quizsvc.ledger import replay
from tests.support.tiny_bank import LESSON, choice_data, text, write_yaml

# Two prompts of 12 arrive together; A gets all of its 12, B what is left of the budget.
SPLIT = '''
from quizsvc.bank.numeric import Build, request, scenario, scheduled


def build(p):
    config = {"max_num_batched_tokens": p["budget"], "max_model_len": 64, "block_size": 4,
              "num_gpu_blocks": 64, "long_prefill_token_threshold": p.get("threshold", 0)}
    requests = [request("A", p["prompt_a"], max_tokens=2), request("B", 12, max_tokens=2)]
    body = scenario("split", config, requests, max_steps=1)
    return Build(body, 0, (scheduled(0, "A"), scheduled(0, "B")), labels=("A", "B"))


def describe(ctx):
    return {"budget": ctx.p["budget"], "A_P": ctx.p["prompt_a"]}
'''
HONEST = text(
    "同步调度、无投机，token_budget = input_budget = {budget}，其余限制都足够宽松。"
    "第 0 步 A（prompt {A_P}）与 B（prompt 12）一起到达。按 [A, B] 作答。",
    "Sync scheduling, no speculation, token_budget = input_budget = {budget}; every other "
    "limit is ample. A (prompt {A_P}) and B (prompt 12) arrive in step 0. Answer as [A, B].",
)
SILENT = text(
    "同步调度、无投机，其余限制都足够宽松。第 0 步 A（prompt {A_P}）与 B（prompt 12）一起到达。"
    "按 [A, B] 作答。",
    "Sync scheduling, no speculation; every other limit is ample. A (prompt {A_P}) and B "
    "(prompt 12) arrive in step 0. Answer as [A, B].",
)
BUDGET_BINDS = {"budget": {"min": 13, "max": 20}, "prompt_a": {"choices": [12]}}


def write_template(root: Path, qid: str, prompt: dict[str, str], states: list[str],
                   params: dict | None = None) -> str:
    """Add a numeric template folder ``qid`` to the tiny bank at ``root``."""
    data = choice_data(qid)
    for key in ("options", "answer", "solution"):
        del data[key]
    data.update(kind="numeric", params=params or BUDGET_BINDS, misconceptions=[],
                prompt=prompt, states=states)
    folder = root / LESSON / "questions" / qid
    write_yaml(folder / "question.yaml", data)
    (folder / "generator.py").write_text(SPLIT, encoding="utf-8")
    return qid


def prompt_errors(root: Path, qid: str) -> list[str]:
    """Run ``bank check`` on one template and keep what it says about the prompt."""
    report = check_bank(root, seeds=20, only=[qid])
    said = ("unsaid", "does not write", "does not say", "must state", "at once")
    return [error for error in report.errors
            if error.startswith(f"{qid} seed") and any(word in error for word in said)]


def test_a_prompt_that_names_the_binding_budget_passes(tiny_bank):
    qid = write_template(tiny_bank, "honest-split", HONEST, [*MODES, "max_num_batched_tokens"])
    assert prompt_errors(tiny_bank, qid) == []


def test_a_prompt_that_leaves_the_binding_budget_unsaid_fails(tiny_bank):
    qid = write_template(tiny_bank, "silent-split", SILENT, list(MODES))
    errors = prompt_errors(tiny_bank, qid)
    assert errors, "the check must refuse a prompt that hides the budget B is cut by"
    assert all("leaves max_num_batched_tokens unsaid" in error for error in errors)
    assert len(errors) == 20  # every seed: the budget always binds B here


def test_the_check_fails_when_two_unsaid_limits_bind_at_the_same_value(tiny_bank):
    """Budget and threshold both cut B to 8: raising either alone changes nothing, both do."""
    params = {"budget": {"choices": [16]}, "prompt_a": {"choices": [8]},
              "threshold": {"choices": [8]}}
    qid = write_template(tiny_bank, "twice-bound", SILENT, list(MODES), params)
    errors = prompt_errors(tiny_bank, qid)
    assert errors and all("every unsaid setting loosened at once" in e for e in errors)


def test_a_stated_value_must_be_written_in_the_prompt(tiny_bank):
    qid = write_template(tiny_bank, "claims-budget", SILENT, [*MODES, "max_num_batched_tokens"])
    errors = prompt_errors(tiny_bank, qid)
    assert errors and all("states max_num_batched_tokens, but the prompt" in e for e in errors)


def test_a_prompt_must_say_the_rest_is_ample_and_state_its_modes(tiny_bank):
    quiet = {lang: body.replace(AMPLE.get(lang), "more").replace("其余限制都足够宽松", "更多")
             for lang, body in HONEST.items()}
    qid = write_template(tiny_bank, "no-phrase", quiet, ["max_num_batched_tokens"])
    errors = prompt_errors(tiny_bank, qid)
    assert any("does not say 'every other limit is ample'" in e for e in errors)
    assert any("does not say '其余限制都足够宽松'" in e for e in errors)
    assert any("must state async_scheduling, num_speculative_tokens, spec_method" in e
               for e in errors)


def test_a_template_must_declare_what_its_prompt_states(tiny_bank):
    from quizsvc.bank.errors import BankError

    qid = write_template(tiny_bank, "undeclared", HONEST, [*MODES, "max_num_batched_tokens"])
    path = tiny_bank / LESSON / "questions" / qid / "question.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["states"]
    write_yaml(path, data)
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "states"


@pytest.mark.parametrize("key", [k for k in SETTING_KEYS if k not in MODES])
def test_every_limit_or_switch_it_loosens_still_replays(key):
    """Each loosening builds a scenario the ledger accepts (a refused one would read as a
    changed answer and blame the prompt for the check's own mistake)."""
    from quizsvc.bank.stated import BY_KEY

    scenario = {"name": "tight", "config": {
        "max_num_batched_tokens": 8, "max_num_seqs": 2, "max_model_len": 16, "block_size": 4,
        "num_gpu_blocks": 9, "long_prefill_token_threshold": 4, "watermark": 0.1,
        "max_num_scheduled_tokens": 6, "num_speculative_tokens": 2, "spec_method": "eagle"},
        "requests": [{"id": "A", "prompt_len": 9, "max_tokens": 3},
                     {"id": "B", "prompt_len": 7, "max_tokens": 3},
                     {"id": "C", "prompt_len": 5, "max_tokens": 3}]}
    loosen = BY_KEY[key].loosen
    assert loosen is not None
    loosened = loosen(scenario, shape_of(scenario))
    assert loosened is not None and loosened != scenario
    replay(loosened)


def test_every_numeric_prompt_of_the_real_bank_names_what_binds(bank):
    checked = 0
    for question_id in sorted(bank.questions):
        entry = bank.entry(question_id)
        if entry.question.kind is not QuestionKind.NUMERIC:
            continue
        assert set(MODES) <= set(entry.spec["states"]), question_id
        for seed in range(5):
            variant = bank.make_variant(entry, seed)
            assert prompt_problems(variant, entry.spec["states"]) == []
            checked += 1
    assert checked >= 17 * 5


def test_the_real_check_would_catch_a_real_prompt_that_dropped_a_binding_value(bank):
    """mixed-step-allocation's budget cuts C: declared unsaid, the same prompt fails."""
    entry = bank.entry("mixed-step-allocation")
    variant = bank.make_variant(entry, 0)
    unsaid = [key for key in entry.spec["states"] if key != "max_num_batched_tokens"]
    problems = unsaid_problems(variant, unsaid, replay)
    assert any("leaves max_num_batched_tokens unsaid" in problem for problem in problems)

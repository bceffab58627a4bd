"""The lesson's worked examples: the opening's, computed by the ledger (SPEC S1, S2, S11, S16), and
the teaching sections', replayed from their scenarios and checked against the real scheduler's
recorded traces where a scenario is a copy of one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from quizsvc.ledger import replay

from .builders import mixed_step, step_of


def test_mixed_step_allocates_1_6_1_and_computed_becomes_10_10_1() -> None:
    trace = replay(mixed_step())
    record = step_of(trace, 2)
    before = {rid: record["requests"][rid]["before_schedule"] for rid in "ABC"}
    assert (before["A"]["num_tokens"], before["A"]["num_computed_tokens"]) == (10, 9)
    assert (before["B"]["num_tokens"], before["B"]["num_computed_tokens"]) == (10, 4)
    assert before["C"]["status"] == "WAITING"
    assert record["schedule"]["num_scheduled_tokens"] == {"A": 1, "B": 6, "C": 1}
    computed = [record["requests"][rid]["after_schedule"]["num_computed_tokens"] for rid in "ABC"]
    assert computed == [10, 10, 1]
    # A and B commit one output token each; C is still in prefill and commits nothing.
    after = {rid: record["requests"][rid]["after_update"] for rid in "ABC"}
    assert [after[rid]["num_output_tokens"] for rid in "ABC"] == [2, 1, 0]
    assert record["schedule"]["sampling_req_ids"] == ["A", "B"]
    limits = record["schedule"]["limits"]
    assert [limits[rid]["bound"] for rid in "ABC"] == ["demand", "demand", "token_budget"]


def spec_scenario(accepted: int, async_scheduling: bool = False) -> dict[str, Any]:
    """Prefill 10 tokens (N=11, C=10 after it), propose 3 drafts, then verify them."""
    return {
        "name": f"lesson_spec_{accepted}",
        "config": {"max_num_batched_tokens": 32, "max_model_len": 64, "block_size": 4,
                   "num_gpu_blocks": 64, "num_speculative_tokens": 3,
                   "async_scheduling": async_scheduling},
        "requests": [{"id": "A", "prompt_len": 10, "max_tokens": 12}],
        "default_outcome": {"accepted": 0, "drafts": 3},
        "outcomes": {"1": {"A": {"accepted": accepted}}},
    }


@pytest.mark.parametrize(
    ("accepted", "computed_after", "num_tokens_after"),
    [(0, 11, 12), (1, 12, 13), (2, 13, 14), (3, 14, 15)],
)
def test_spec_step_demand_4_then_rollback_keeps_n_minus_c_at_1(
    accepted: int, computed_after: int, num_tokens_after: int
) -> None:
    record = step_of(replay(spec_scenario(accepted)), 1)
    entry = record["requests"]["A"]
    before = entry["before_schedule"]
    assert (before["num_tokens"], before["num_computed_tokens"], before["num_spec_token_ids"]) == (
        11, 10, 3)
    assert record["schedule"]["num_scheduled_tokens"] == {"A": 4}
    assert record["schedule"]["scheduled_spec_decode_tokens"] == {"A": 3}
    assert entry["after_schedule"]["num_computed_tokens"] == 14
    after = entry["after_update"]
    assert after["num_computed_tokens"] == computed_after
    assert after["num_tokens"] == num_tokens_after
    assert after["num_output_tokens"] == 1 + 1 + accepted
    assert after["num_tokens"] - after["num_computed_tokens"] == 1


def test_async_invariant_n_plus_placeholders_minus_c_is_1_after_every_update() -> None:
    scenario = spec_scenario(1, async_scheduling=True)
    scenario["outcomes"] = {"2": {"A": {"accepted": 1}}, "3": {"A": {"accepted": 0}},
                            "4": {"A": {"accepted": "all"}}}
    scenario["requests"][0]["max_tokens"] = 30
    trace = replay(scenario)
    checked = 0
    for record in trace["steps"]:
        update = record["update"]
        entry = record["requests"].get("A")
        if update is None or entry is None or "A" not in update["returned"]:
            continue
        after = entry["after_update"]
        if after["status"] != "RUNNING" or update["returned"]["A"]["partial_prefill"]:
            continue
        assert (after["num_tokens"] + after["num_output_placeholders"]
                - after["num_computed_tokens"]) == 1
        checked += 1
    assert checked >= 4


def test_async_mixed_step_still_allocates_1_6_1_with_c_counting_in_flight_work() -> None:
    scenario = {
        "name": "s16",
        "config": {"max_num_batched_tokens": 13, "max_num_seqs": 8, "max_model_len": 64,
                   "block_size": 4,
                   "num_gpu_blocks": 64, "async_scheduling": True},
        "requests": [
            {"id": "A", "prompt_len": 9, "max_tokens": 5},
            {"id": "B", "prompt_len": 10, "max_tokens": 5},
        ],
    }
    trace = replay(scenario)
    assert step_of(trace, 0)["schedule"]["num_scheduled_tokens"] == {"A": 9, "B": 4}


# ---------------------------------------------------------------- the teaching sections' examples

GOLDEN = Path(__file__).resolve().parent / "golden"
# Worked examples whose scenario is a copy of a trace recorded from the real vLLM 0.33.0
# scheduler: their numbers must be the recorded ones, not only the ledger's.
FROM_GOLDEN = {
    "counters": "a_budget_split", "demand": "a_budget_split", "commit-output": "a_budget_split",
    "rollback": "b_spec_decode", "kv-all-or-nothing": "d_kv_preemption",
    "preempted-restart": "d_kv_preemption", "scheduler-output": "d_kv_preemption",
    "kv-blocks": "k_lookahead_blocks", "eagle-hash-lookahead": "l_eagle_prefix_lookahead",
    "eagle-hash-lookahead-same": "l_eagle_prefix_lookahead",
    "async-batch-queue": "h_async_budget_split", "output-update": "i_eos_abort",
}


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    from quizsvc.bank import read_bank

    bank = read_bank()
    return dict(bank.lesson_entry("vllm-v1-ledger").examples)


@pytest.mark.parametrize(("example_id", "golden"), sorted(FROM_GOLDEN.items()))
def test_a_worked_example_copied_from_a_golden_trace_shows_the_real_schedulers_numbers(
    examples: dict[str, Any], example_id: str, golden: str
) -> None:
    example = examples[example_id]
    assert example.scenario["requests"] == json.loads(
        (GOLDEN / f"{golden}.json").read_text())["requests"]
    recorded = step_of(json.loads((GOLDEN / f"{golden}.trace.json").read_text()), example.step)
    replayed = step_of(example.trace, example.step)
    assert replayed["schedule"]["num_scheduled_tokens"] == recorded["schedule"][
        "num_scheduled_tokens"]
    for rid, entry in recorded["requests"].items():
        mine = replayed["requests"][rid]
        for phase in ("after_schedule", "after_update"):
            if entry.get(phase) is None:
                continue
            for field in ("num_computed_tokens", "num_tokens", "status"):
                assert mine[phase][field] == entry[phase][field], (rid, phase, field)


def test_every_worked_example_is_shown_in_both_languages_with_every_quote_filled(
    examples: dict[str, Any],
) -> None:
    from quizsvc.bank import read_bank

    bank = read_bank()
    for lang in ("zh", "en"):
        text = bank.lesson_text("vllm-v1-ledger", lang)
        assert "{{" not in text and "}}" not in text
        shown = text.count("/simulator?")
        assert shown >= len(examples)
    raw = (Path(bank.root) / "vllm-v1-ledger" / "lesson.zh.md").read_text(encoding="utf-8")
    assert sorted(set(re.findall(r"\{\{example ([a-z0-9-]+)\}\}", raw))) == sorted(examples)


def test_the_mixed_step_example_renders_the_lessons_1_6_1_from_the_replay() -> None:
    from quizsvc.bank import read_bank

    text = read_bank().lesson_text("vllm-v1-ledger", "en")
    assert "The allocation is\n[1, 6, 1], 8 in total." in text
    assert "| A | running | 10 | 9 | 1 | 8 | 1 | its demand |" in text
    assert "| C | waiting | 5 | 0 | 5 | 1 | 1 | token_budget |" in text


def test_a_worked_solution_explains_first_then_tabulates_then_folds_the_trace() -> None:
    from quizsvc.ledger.explain import worked_solution

    trace = replay(mixed_step())
    zh = worked_solution(trace, 2, "zh")
    why, table, fold = zh.split("\n\n", 2)
    assert "C 受 token_budget 约束：轮到它时只剩 1，少于需求（5）" in why
    assert "C 还在 prefill 中间" in why
    assert table.startswith("| 请求 |")
    assert "| C | waiting | 5 | 1 | token_budget | 0 → 1 → 1 | 5 |" in table
    assert fold.startswith("::: details 逐步账本（第 2 步）") and fold.rstrip().endswith(":::")
    en = worked_solution(trace, 2, "en")
    assert "A and B get their whole demand (1, 6)" in en
    assert "At the output update, A and B return 1 token each; C is mid-prefill" in en
    assert "输出更新时，A、B 各返回 1 个 token；C 还在 prefill 中间" in why
    for body in (zh, en):
        assert "{'" not in body and "['" not in body and "SPEC" not in body


def test_a_worked_solution_says_who_was_preempted_instead_of_cutting_n() -> None:
    from quizsvc.ledger.explain import worked_solution

    trace = replay(json.loads((GOLDEN / "d_kv_preemption.json").read_text()))
    why = worked_solution(trace, 5, "en").split("\n\n")[0]
    assert why == ("A gets its whole demand (1): no limit is smaller. A needs 1 new KV block "
                   "with 0 free, so B is preempted; A's n is not cut (a KV allocation is all or "
                   "nothing). At the output update, A returns 1 token.")


def test_a_worked_solution_tells_the_victim_from_a_waiting_request_left_out() -> None:
    """B (preempted in the running loop) and W (waiting, skipped because of it) share the bound
    "preempted" but not the reason; the preemption is said before the waiting loop."""
    from quizsvc.ledger.explain import worked_solution

    scenario = json.loads((GOLDEN / "d_kv_preemption.json").read_text())
    scenario["requests"].append({"id": "W", "prompt_len": 2, "max_tokens": 2, "arrival_step": 5})
    why = worked_solution(replay(scenario), 5, "en").split("\n\n")[0]
    assert why.endswith("so B is preempted; A's n is not cut (a KV allocation is all or "
                        "nothing). W is not admitted: this step preempted, so the waiting loop "
                        "is skipped. At the output update, A returns 1 token.")
    assert "B and W" not in why


# ---------------------------------------------------------------- the rules issue 23 asked to work

def _request(example: Any, step: int, rid: str) -> dict[str, Any]:
    return step_of(example.trace, step)["requests"][rid]


def test_the_max_tokens_skip_schedules_one_below_the_boundary_with_n_uncut(
    examples: dict[str, Any],
) -> None:
    """O + 1 < max_tokens: scheduled with the whole 1 + K although one output at most can follow
    the step in flight; a step in flight that reaches max_tokens by itself wastes it; at
    O + 1 = max_tokens the next schedule() skips."""
    example = examples["async-max-tokens-below"]
    config = example.scenario["config"]
    for rid in "AB":
        entry = _request(example, 3, rid)
        before = entry["before_schedule"]
        max_tokens = next(r["max_tokens"] for r in example.scenario["requests"] if r["id"] == rid)
        assert before["num_output_tokens"] + 1 == max_tokens - 1
        assert before["num_output_placeholders"] > 0
        assert entry["num_scheduled_tokens"] == 1 + config["num_speculative_tokens"]
    assert _request(example, 3, "B")["after_update"]["status"] == "FINISHED_LENGTH_CAPPED"
    skipped = _request(example, 4, "A")
    assert skipped["before_schedule"]["num_output_tokens"] + 1 == 4
    assert skipped["num_scheduled_tokens"] == 0
    assert step_of(example.trace, 4)["schedule"]["limits"]["A"]["bound"] == "skipped"


def test_async_placeholders_rise_by_one_plus_the_drafts_verified_when_the_budget_cuts_k(
    examples: dict[str, Any],
) -> None:
    example = examples["async-placeholders-short"]
    k_max = example.scenario["config"]["num_speculative_tokens"]
    entry = _request(example, 2, "B")
    before, after = entry["before_schedule"], entry["after_schedule"]
    k = entry["num_scheduled_spec_tokens"]
    assert 0 < k < k_max
    # k from the state before this dispatch: n + C - N - ph, which is n - 1 with a step in flight.
    n = entry["num_scheduled_tokens"]
    assert k == n + before["num_computed_tokens"] - before["num_tokens"] - before[
        "num_output_placeholders"] == n - 1
    assert after["num_output_placeholders"] - before["num_output_placeholders"] == 1 + k
    a = _request(example, 2, "A")
    assert a["after_schedule"]["num_output_placeholders"] - a["before_schedule"][
        "num_output_placeholders"] == 1 + k_max


def test_a_fcfs_requester_preempts_the_requests_behind_it_then_itself(
    examples: dict[str, Any],
) -> None:
    """B needs blocks: C (last) goes first, then B itself; A (ahead) keeps its token; nothing is
    admitted; every victim's blocks are free at the end of the step."""
    example = examples["preemption-self"]
    record = step_of(example.trace, 4)
    assert record["schedule"]["num_scheduled_tokens"] == {"A": 1}
    assert sorted(record["schedule"]["preempted_ids"]) == ["B", "C"]
    assert record["schedule"]["limits"]["B"]["note"].startswith("preempted itself")
    assert record["running"] == ["A"]
    previous = step_of(example.trace, 3)
    assert previous["kv_free_blocks"] == 0
    block_size = example.scenario["config"]["block_size"]
    held = sum(-(-previous["requests"][rid]["after_update"]["num_computed_tokens"] // block_size)
               for rid in "BC")
    assert record["kv_free_blocks"] == held == 9


def test_identical_prompts_hit_under_eagle_as_without_the_hash_lookahead(
    examples: dict[str, Any],
) -> None:
    example = examples["eagle-hash-lookahead-same"]
    limit = step_of(example.trace, 3)["schedule"]["limits"]["R"]
    prompt = len(example.scenario["requests"][2]["prompt_token_ids"])
    block_size = example.scenario["config"]["block_size"]
    assert limit["prefix_hit"] == (prompt - 1) // block_size * block_size == 12
    ngram = json.loads(json.dumps(example.scenario))
    ngram["config"]["spec_method"] = "ngram"
    assert step_of(replay(ngram), 3)["schedule"]["limits"]["R"]["prefix_hit"] == 12

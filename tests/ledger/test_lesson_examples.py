"""The lesson's own worked examples, computed by the ledger (SPEC S1, S2, S11, S16)."""

from __future__ import annotations

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

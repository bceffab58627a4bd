"""Wrong models run on purpose: each changes the answer the way the misconception predicts."""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc.ledger import WrongRule, replay

from .builders import mixed_step, step_of


def test_real_scheduler_is_the_default_and_says_nothing_about_wrong_rules() -> None:
    trace = replay(mixed_step())
    assert "wrong_rules" not in trace
    assert step_of(trace, 2)["schedule"]["num_scheduled_tokens"] == {"A": 1, "B": 6, "C": 1}


def test_waiting_before_running_gives_the_waiting_request_its_whole_prompt() -> None:
    trace = replay(mixed_step(), wrong_rules=[WrongRule.WAITING_BEFORE_RUNNING],
                   wrong_from_step=2)
    assert (trace["wrong_rules"], trace["wrong_from_step"]) == (["waiting_before_running"], 2)
    assert step_of(trace, 1)["schedule"]["num_scheduled_tokens"] == {"A": 4, "B": 4}
    assert step_of(trace, 2)["schedule"]["num_scheduled_tokens"] == {"C": 5, "A": 1, "B": 2}


def spec_step(budget: int = 32) -> dict[str, Any]:
    return {
        "config": {"max_num_batched_tokens": budget, "max_model_len": 64, "block_size": 4,
                   "num_gpu_blocks": 64, "num_speculative_tokens": 3},
        "requests": [{"id": "A", "prompt_len": 10, "max_tokens": 12}],
        "default_outcome": {"accepted": 1, "drafts": 3},
    }


def test_counting_drafts_twice_asks_for_seven_instead_of_four() -> None:
    real = step_of(replay(spec_step()), 1)["schedule"]["num_scheduled_tokens"]
    wrong = step_of(replay(spec_step(), wrong_rules=["drafts_counted_twice"], wrong_from_step=1), 1)
    assert real == {"A": 4}
    assert wrong["schedule"]["num_scheduled_tokens"] == {"A": 7}


def test_threshold_for_a_lone_request_chunks_it() -> None:
    scenario = {"config": {"long_prefill_token_threshold": 4, "block_size": 4},
                "requests": [{"id": "X", "prompt_len": 10, "max_tokens": 2}]}
    assert step_of(replay(scenario), 0)["schedule"]["num_scheduled_tokens"] == {"X": 10}
    wrong = replay(scenario, wrong_rules=["threshold_for_lone_request"])
    assert step_of(wrong, 0)["schedule"]["num_scheduled_tokens"] == {"X": 4}


def test_kv_shortage_shrinks_the_chunk_instead_of_preempting() -> None:
    scenario = {
        "config": {"max_num_batched_tokens": 16, "block_size": 4, "num_gpu_blocks": 6,
                   "max_model_len": 64},
        "requests": [{"id": "A", "prompt_len": 6, "max_tokens": 6},
                     {"id": "B", "prompt_len": 8, "max_tokens": 8}],
    }
    real = replay(scenario)
    assert step_of(real, 3)["schedule"]["preempted_ids"] == ["B"]
    wrong = replay(scenario, wrong_rules=["kv_shrinks_chunk"])
    assert all(not record["schedule"]["preempted_ids"] for record in wrong["steps"]
               if record["schedule"])


def test_unknown_wrong_rule_is_refused() -> None:
    with pytest.raises(ValueError):
        replay(spec_step(), wrong_rules=["drafts_counted_thrice"])

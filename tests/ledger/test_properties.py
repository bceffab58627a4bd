"""Invariants that must hold for any scenario, checked on random ones (hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizsvc.ledger import Engine, SchedulerCrash, parse_scenario
from quizsvc.ledger.kv_cache import KVCacheManager

SPEC_METHODS = ["ngram", "draft_model", "draft_model_parallel", "eagle", "eagle_parallel"]


@st.composite
def scenarios(draw: st.DrawFn, async_scheduling: bool | None = None) -> dict[str, Any]:
    """Draw a small scenario covering budgets, threshold, KV pressure, spec and async."""
    max_model_len = draw(st.sampled_from([32, 48, 64]))
    block_size = draw(st.sampled_from([2, 4, 8]))
    num_spec = draw(st.integers(0, 3))
    config = {
        "max_num_batched_tokens": draw(st.integers(5, 40)),
        "max_num_seqs": draw(st.integers(1, 5)),
        "max_model_len": max_model_len,
        "long_prefill_token_threshold": draw(st.sampled_from([0, 0, 3, 5, 8])),
        "long_prefill_token_threshold_adaptive": draw(st.booleans()),
        "block_size": block_size,
        "num_gpu_blocks": draw(st.integers(max_model_len // block_size + 2, 60)),
        "enable_prefix_caching": draw(st.booleans()),
        "num_speculative_tokens": num_spec,
        "spec_method": draw(st.sampled_from(SPEC_METHODS)),
        "async_scheduling": draw(st.booleans()) if async_scheduling is None
        else async_scheduling,
        "policy": draw(st.sampled_from(["fcfs", "fcfs", "priority"])),
        "max_steps": 120,
    }
    num_requests = draw(st.integers(1, 5))
    shared_prefix = [5000 + j for j in range(draw(st.integers(0, 12)))]
    requests = []
    for index in range(num_requests):
        request: dict[str, Any] = {
            "id": f"r{index}",
            "max_tokens": draw(st.integers(1, 10)),
            "arrival_step": draw(st.integers(0, 6)),
            "priority": draw(st.integers(0, 3)),
        }
        length = draw(st.integers(1, max_model_len - 12))
        if shared_prefix and draw(st.booleans()):
            tail = [9000 + 100 * index + j for j in range(length)]
            request["prompt_token_ids"] = (shared_prefix + tail)[: max_model_len - 2]
        else:
            request["prompt_len"] = length
        requests.append(request)
    outcomes: dict[str, dict[str, Any]] = {}
    for step in range(draw(st.integers(0, 12))):
        target = f"r{draw(st.integers(0, num_requests - 1))}"
        outcome: dict[str, Any] = {"accepted": draw(st.integers(0, 3))}
        if draw(st.integers(0, 9)) == 0:
            outcome["eos"] = True
        outcomes[str(step)] = {target: outcome}
    return {
        "name": "random",
        "config": config,
        "requests": requests,
        "default_outcome": {"accepted": draw(st.integers(0, 3)), "drafts": draw(st.integers(0, 3))},
        "outcomes": outcomes,
    }


def run(raw: dict[str, Any]) -> Engine | None:
    """Replay ``raw``; return None when vLLM 0.33.0 itself would crash (SPEC S20)."""
    engine = Engine(parse_scenario(raw))
    try:
        while not engine.done and engine.step_index < engine.config.max_steps:
            engine.step()
            check_block_accounting(engine.scheduler.kv)
    except SchedulerCrash:
        return None
    return engine


def check_block_accounting(kv: KVCacheManager) -> None:
    """Held and free blocks partition the pool; reference counts are never negative."""
    held: dict[int, int] = {}
    for blocks in kv.req_to_blocks.values():
        for block in blocks:
            held[block.block_id] = held.get(block.block_id, 0) + 1
    for block_id in held:
        assert block_id not in kv.free_queue, f"block {block_id} both held and free"
    usage = {b.block_id: b.ref_cnt for blocks in kv.req_to_blocks.values() for b in blocks}
    for block_id, ref_cnt in usage.items():
        assert ref_cnt == held[block_id] >= 1
    for block in kv.free_queue.values():
        assert block.ref_cnt == 0
    assert len(held) + kv.num_free_blocks <= len(held) + len(kv.free_queue)
    total = len(set(held) | set(kv.free_queue))
    assert total == len(held) + kv.num_free_blocks


def scheduled_steps(engine: Engine) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Yield (step record, its schedule) for every step in which schedule() ran."""
    for record in engine.steps:
        if record["schedule"] is not None:
            yield record, record["schedule"]


PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(scenarios())
def test_budgets_are_never_overspent(raw: dict[str, Any]) -> None:
    engine = run(raw)
    if engine is None:
        return
    config = engine.config
    for _record, schedule in scheduled_steps(engine):
        counts = schedule["num_scheduled_tokens"]
        assert sum(counts.values()) == schedule["total_num_scheduled_tokens"]
        assert sum(counts.values()) <= config.token_budget
        assert sum(n + config.draft_slots for n in counts.values()) <= config.input_budget
        assert schedule["token_budget_left"] >= 0 and schedule["input_budget_left"] >= 0
        assert len(engine.steps) <= config.max_steps


@PROPERTY_SETTINGS
@given(scenarios())
def test_drafts_verified_never_exceed_drafts_held(raw: dict[str, Any]) -> None:
    engine = run(raw)
    if engine is None:
        return
    for record, schedule in scheduled_steps(engine):
        for request_id, verified in schedule["scheduled_spec_decode_tokens"].items():
            before = record["requests"][request_id]["before_schedule"]
            padded = request_id in schedule["new_req_ids"] + schedule["resumed_req_ids"]
            held = engine.config.num_speculative_tokens if padded else before["num_spec_token_ids"]
            assert 0 < verified <= held


@PROPERTY_SETTINGS
@given(scenarios(async_scheduling=False))
def test_sync_decode_keeps_n_minus_c_at_one_after_every_update(raw: dict[str, Any]) -> None:
    engine = run(raw)
    if engine is None:
        return
    for record in engine.steps:
        update = record["update"]
        if update is None:
            continue
        for request_id, returned in update["returned"].items():
            if returned["sampled"] == 0 or request_id not in record["requests"]:
                continue
            after = record["requests"][request_id]["after_update"]
            assert after["num_tokens"] - after["num_computed_tokens"] == 1, request_id


@PROPERTY_SETTINGS
@given(scenarios())
def test_preempted_request_restarts_from_zero(raw: dict[str, Any]) -> None:
    engine = run(raw)
    if engine is None:
        return
    for record, schedule in scheduled_steps(engine):
        for request_id in schedule["preempted_ids"]:
            entry = record["requests"].get(request_id)
            if entry is None or "after_schedule" not in entry:
                continue
            assert entry["after_schedule"]["status"] == "PREEMPTED"
            assert entry["after_schedule"]["num_computed_tokens"] == 0
            assert entry["after_schedule"]["num_output_placeholders"] == 0
        for request_id in schedule["new_req_ids"] + schedule["resumed_req_ids"]:
            hit = schedule["new_req_num_computed_tokens"][request_id]
            assert hit % engine.config.block_size == 0
        assert not (set(schedule["preempted_ids"]) and schedule["new_req_ids"])


@PROPERTY_SETTINGS
@given(scenarios())
def test_every_request_ends_finished_or_still_counted(raw: dict[str, Any]) -> None:
    engine = run(raw)
    if engine is None:
        return
    final = engine.final()
    for spec in engine.scenario.requests:
        outcome = final[spec.request_id]
        if outcome["status"].startswith("FINISHED"):
            assert 1 <= outcome["num_output_tokens"] <= spec.max_tokens
    if engine.done:
        assert engine.scheduler.kv.num_free_blocks == engine.config.num_gpu_blocks - 1

"""SPEC.md §12's worked scenarios (S3-S21) and the §3-§8 rules they illustrate, replayed.

Every test builds a FORMAT.md scenario that reaches SPEC's state with warm-up steps (never by
setting counters) and reads the answer from ``replay``'s trace. Step numbers here are the
trace's engine-loop steps, counted from 0; SPEC's S9 and S21 tables count from 1. Where SPEC
measured a scenario with budgets changed between steps, which one scenario cannot express, the
test uses an equivalent scenario that exercises the same rule, and its docstring says so.

S1 and S2 live in ``test_lesson_examples.py``. S14 (paused states) is not here: FORMAT.md
scenarios have no way to pause the scheduler.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc.ledger import SchedulerCrash, replay

Trace = dict[str, Any]


# ---- scenario and trace helpers -----------------------------------------------------------------
def req(request_id: str, prompt_len: int, max_tokens: int = 16, arrival_step: int = 0,
        **fields: Any) -> dict[str, Any]:
    """Describe one request the way FORMAT.md spells it."""
    return {"id": request_id, "prompt_len": prompt_len, "max_tokens": max_tokens,
            "arrival_step": arrival_step, **fields}


def tokens_req(request_id: str, prompt_token_ids: list[int], max_tokens: int = 16,
               arrival_step: int = 0) -> dict[str, Any]:
    """Describe a request by explicit token ids, so that prefix-cache hits can be arranged."""
    return {"id": request_id, "prompt_token_ids": prompt_token_ids, "max_tokens": max_tokens,
            "arrival_step": arrival_step}


def scenario(name: str, requests: list[dict[str, Any]], *,
             default_outcome: dict[str, Any] | None = None,
             outcomes: dict[str, dict[str, dict[str, Any]]] | None = None,
             **config: Any) -> dict[str, Any]:
    """Build a scenario on SPEC §12's common settings (bs 4, mml 64, ample KV, 4 seats)."""
    settings: dict[str, Any] = {"block_size": 4, "max_model_len": 64, "num_gpu_blocks": 1000,
                                "max_num_seqs": 4, "max_steps": 40}
    settings.update(config)
    built: dict[str, Any] = {"name": name, "config": settings, "requests": requests}
    if default_outcome is not None:
        built["default_outcome"] = default_outcome
    if outcomes is not None:
        built["outcomes"] = outcomes
    return built


def step_of(trace: Trace, step: int) -> dict[str, Any]:
    """Return the trace record of engine-loop ``step``."""
    return next(record for record in trace["steps"] if record["step"] == step)


def scheduled(trace: Trace, step: int) -> dict[str, int]:
    """Return ``num_scheduled_tokens`` of ``step`` (drafts included)."""
    return step_of(trace, step)["schedule"]["num_scheduled_tokens"]


def verified(trace: Trace, step: int) -> dict[str, int]:
    """Return how many drafts each request verifies in ``step``."""
    return step_of(trace, step)["schedule"]["scheduled_spec_decode_tokens"]


def limit(trace: Trace, step: int, request_id: str) -> dict[str, Any]:
    """Return the ledger's record of which limit bound ``request_id`` in ``step``."""
    return step_of(trace, step)["schedule"]["limits"][request_id]


def snap(trace: Trace, step: int, request_id: str, phase: str) -> dict[str, Any]:
    """Return a request's snapshot (``before_schedule``, ``after_schedule``, ``after_update``)."""
    return step_of(trace, step)["requests"][request_id][phase]


def ledger(trace: Trace, step: int, request_id: str, phase: str) -> tuple[int, int]:
    """Return ``(num_tokens, num_computed_tokens)`` of a request at a phase of ``step``."""
    state = snap(trace, step, request_id, phase)
    return state["num_tokens"], state["num_computed_tokens"]


# ---- S3: drafts trimmed by the budget -----------------------------------------------------------
def test_budget_smaller_than_demand_verifies_only_the_drafts_the_allocation_covers() -> None:
    """S3 on 3-token prompts: after prefill A and B have N=4, C=3 and 3 drafts; budget 6.

    A takes min(4, 6) = 4 and verifies all 3 drafts; B takes min(4, 2) = 2, so it covers
    k = n + C - N = 1 draft. The other two are dropped, not carried to the next step.
    """
    trace = replay(scenario(
        "s03_trim", [req("A", 3), req("B", 3)],
        max_num_batched_tokens=6, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 3},
        outcomes={"1": {"A": {"accepted": 2}, "B": {"accepted": 1}}},
    ))
    for request_id in "AB":
        assert ledger(trace, 1, request_id, "before_schedule") == (4, 3)
        assert snap(trace, 1, request_id, "before_schedule")["num_spec_token_ids"] == 3
    assert scheduled(trace, 1) == {"A": 4, "B": 2}
    assert verified(trace, 1) == {"A": 3, "B": 1}
    assert limit(trace, 1, "A")["bound"] == "demand"
    assert limit(trace, 1, "B")["bound"] == "token_budget"
    assert snap(trace, 1, "B", "after_schedule")["num_spec_token_ids"] == 0
    assert snap(trace, 1, "A", "after_schedule")["num_computed_tokens"] == 7
    assert snap(trace, 1, "B", "after_schedule")["num_computed_tokens"] == 5
    # A: 3 tokens back (a=2, r=1) -> C=6, N=7. B: 2 tokens back (a=1, r=0) -> C=5, N=6.
    assert ledger(trace, 1, "A", "after_update") == (7, 6)
    assert ledger(trace, 1, "B", "after_update") == (6, 5)


# ---- S4: the long-prefill threshold -------------------------------------------------------------
def test_threshold_caps_every_prefill_and_leaves_budget_unused() -> None:
    """S4a: thr=4, budget 16, A decoding, B and C waiting with 10-token prompts: {1, 4, 4}."""
    trace = replay(scenario(
        "s04a_threshold", [req("A", 3, 8), req("B", 10, arrival_step=1),
                           req("C", 10, arrival_step=1)],
        max_num_batched_tokens=16, long_prefill_token_threshold=4,
    ))
    assert scheduled(trace, 0) == {"A": 3}
    assert ledger(trace, 1, "A", "before_schedule") == (4, 3)
    for step in (1, 2):
        assert scheduled(trace, step) == {"A": 1, "B": 4, "C": 4}
        assert step_of(trace, step)["schedule"]["total_num_scheduled_tokens"] == 9
        assert step_of(trace, step)["schedule"]["token_budget_left"] == 7
        assert [limit(trace, step, rid)["bound"] for rid in "BC"] == ["threshold", "threshold"]
        assert limit(trace, step, "A")["threshold"] == 4


@pytest.mark.parametrize(
    ("adaptive", "num_requests", "threshold", "chunk"),
    [
        (False, 3, 4, 4),   # E = 3 > 1: the configured threshold
        (True, 3, 5, 5),    # max(4, 16 // 3)
        (True, 2, 8, 8),    # max(4, 16 // 2)
        (True, 4, 4, 4),    # max(4, 16 // 4): the configured value is the floor
        (False, 1, None, 10),  # E = 1: a lone request is never capped
        (True, 1, None, 10),
    ],
)
def test_threshold_is_off_for_a_lone_request_and_adaptive_floors_it_at_budget_over_e(
    adaptive: bool, num_requests: int, threshold: int | None, chunk: int
) -> None:
    """S4b-d: requests with 10-token prompts under thr=4 and budget 16."""
    trace = replay(scenario(
        "s04_adaptive", [req(f"R{i}", 10) for i in range(num_requests)],
        max_num_batched_tokens=16, long_prefill_token_threshold=4,
        long_prefill_token_threshold_adaptive=adaptive, max_num_seqs=8, max_steps=1,
    ))
    assert scheduled(trace, 0) == {f"R{i}": chunk for i in range(num_requests)}
    assert limit(trace, 0, "R0")["threshold"] == threshold


def test_threshold_caps_a_decode_with_drafts_so_it_verifies_fewer_of_them() -> None:
    """S4e: thr=2, ngram K=3; decodes with demand 1 + 3 drafts are cut to 2 (one draft each)."""
    trace = replay(scenario(
        "s04e_threshold_spec", [req("A", 3), req("B", 3)],
        max_num_batched_tokens=16, long_prefill_token_threshold=2, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 3},
    ))
    assert scheduled(trace, 0) == {"A": 2, "B": 2}
    assert scheduled(trace, 1) == {"A": 1, "B": 1}
    assert snap(trace, 2, "A", "before_schedule")["num_spec_token_ids"] == 3
    assert scheduled(trace, 2) == {"A": 2, "B": 2}
    assert verified(trace, 2) == {"A": 1, "B": 1}
    assert limit(trace, 2, "A")["demand"] == 4
    assert limit(trace, 2, "A")["bound"] == "threshold"


# ---- S5: seats ----------------------------------------------------------------------------------
def test_max_num_seqs_stops_admissions_with_budget_left_over() -> None:
    """S5: 2 seats, budget 32. A decodes; B takes the last seat; C and D wait with 26 unused."""
    trace = replay(scenario(
        "s05_seats", [req("A", 3)] + [req(rid, 5, arrival_step=1) for rid in "BCD"],
        max_num_batched_tokens=32, max_num_seqs=2, max_steps=3,
    ))
    assert scheduled(trace, 1) == {"A": 1, "B": 5}
    assert step_of(trace, 1)["schedule"]["token_budget_left"] == 26
    assert limit(trace, 1, "C")["bound"] == "seats"
    assert step_of(trace, 1)["waiting"] == ["C", "D"]
    assert scheduled(trace, 2) == {"A": 1, "B": 1}


# ---- S6: budget spent inside the running loop ---------------------------------------------------
def test_budget_spent_mid_running_loop_leaves_later_running_and_waiting_requests_nothing() -> None:
    """S6, equivalent form: running order [D1, P1, D2], budget 8, W waiting.

    SPEC cut the budget from 16 to 8 between steps; one scenario keeps the budget, so D1 is made
    to need more in the target step (1 + 3 drafts) than in the step that admitted P1 and D2.
    D1 takes 4, P1 takes the remaining 4 of its 15, and the loop ends: D2 gets nothing (it
    keeps its drafts, since only scheduled requests get new ones) and W is not admitted.
    """
    trace = replay(scenario(
        "s06_exhaust",
        [req("D1", 2), req("P1", 20, arrival_step=1), req("D2", 2, arrival_step=1),
         req("W", 3, arrival_step=2)],
        max_num_batched_tokens=8, long_prefill_token_threshold=5, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 3}, outcomes={"0": {"D1": {"drafts": 0}}},
        max_steps=3,
    ))
    assert scheduled(trace, 1) == {"D1": 1, "P1": 5, "D2": 2}
    assert step_of(trace, 1)["running"] == ["D1", "P1", "D2"]
    assert scheduled(trace, 2) == {"D1": 4, "P1": 4}
    assert limit(trace, 2, "P1")["bound"] == "token_budget"
    assert limit(trace, 2, "D2")["bound"] == "token_budget"
    assert limit(trace, 2, "W")["bound"] == "token_budget"
    assert step_of(trace, 2)["schedule"]["token_budget_left"] == 0
    d2_before = snap(trace, 2, "D2", "before_schedule")
    assert snap(trace, 2, "D2", "after_update") == d2_before
    assert d2_before["num_spec_token_ids"] == 3
    assert snap(trace, 2, "W", "after_update")["status"] == "WAITING"


# ---- S7: the two budgets ------------------------------------------------------------------------
def test_input_budget_minus_draft_slots_binds_before_token_budget() -> None:
    """S7: draft_model K=3 (ds=1, L=3), budget 8; A and B decode with 3 drafts, C waits.

    A: min(4, 8, 8-1) = 4 (TB 4, IB 3). B: min(4, 4, 3-1) = 2, one draft (TB 2, IB 0).
    IB 0 <= ds 1 stops both loops, so C is not admitted although token_budget is 2.
    """
    trace = replay(scenario(
        "s07_draft_slots", [req("A", 3, 8), req("B", 3, 8), req("C", 5, arrival_step=1)],
        max_num_batched_tokens=8, num_speculative_tokens=3, spec_method="draft_model",
        default_outcome={"accepted": 0}, max_steps=2,
    ))
    effective = trace["effective_config"]
    assert (effective["draft_slots"], effective["num_lookahead_tokens"]) == (1, 3)
    for request_id in "AB":
        assert ledger(trace, 1, request_id, "before_schedule") == (4, 3)
    assert scheduled(trace, 1) == {"A": 4, "B": 2}
    assert verified(trace, 1) == {"A": 3, "B": 1}
    assert limit(trace, 1, "B")["bound"] == "input_budget"
    assert limit(trace, 1, "B")["input_budget_minus_draft_slots"] == 2
    assert limit(trace, 1, "C")["bound"] == "input_budget"
    schedule = step_of(trace, 1)["schedule"]
    assert (schedule["token_budget_left"], schedule["input_budget_left"]) == (2, 0)


def test_prefills_pay_draft_slots_too() -> None:
    """S7: three 3-token prompts, budget 8, ds=1: A 3 (IB 4), B min(3, 5, 3) = 3 (IB 0), C none."""
    trace = replay(scenario(
        "s07_prefill_slots", [req("A", 3), req("B", 3), req("C", 3)],
        max_num_batched_tokens=8, num_speculative_tokens=3, spec_method="draft_model",
        max_steps=1,
    ))
    assert scheduled(trace, 0) == {"A": 3, "B": 3}
    assert limit(trace, 0, "B")["input_budget_minus_draft_slots"] == 3
    assert limit(trace, 0, "C")["bound"] == "input_budget"
    schedule = step_of(trace, 0)["schedule"]
    assert (schedule["token_budget_left"], schedule["input_budget_left"]) == (2, 0)


def test_max_num_scheduled_tokens_below_max_num_batched_tokens_makes_token_budget_bind() -> None:
    """S7: token_budget 6, input_budget 16, two 5-token prompts, no spec: {5, 1}."""
    trace = replay(scenario(
        "s07_token_budget", [req("A", 5), req("B", 5)],
        max_num_scheduled_tokens=6, max_num_batched_tokens=16, max_steps=1,
    ))
    assert scheduled(trace, 0) == {"A": 5, "B": 1}
    assert limit(trace, 0, "B")["bound"] == "token_budget"
    schedule = step_of(trace, 0)["schedule"]
    assert (schedule["token_budget_left"], schedule["input_budget_left"]) == (0, 10)


# ---- S8: the max_model_len clamp ----------------------------------------------------------------
def test_max_model_len_clamp_cuts_verified_drafts_and_the_request_ends_length_capped() -> None:
    """S8: mml 16, ngram K=3, A with 13 prompt tokens: N=14, C=13, 3 drafts after prefill.

    Demand 4, clamp 16 - 13 - 1 = 2, so n=2 and one draft is verified (C=15). [d1, t] come
    back: N reaches 16 = mml, so A is LENGTH_CAPPED with C still 15, announced next step.
    """
    trace = replay(scenario(
        "s08_mml", [req("A", 13, 16)], max_model_len=16, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 3}, outcomes={"1": {"A": {"accepted": 1}}},
    ))
    assert ledger(trace, 1, "A", "before_schedule") == (14, 13)
    assert scheduled(trace, 1) == {"A": 2}
    assert verified(trace, 1) == {"A": 1}
    assert limit(trace, 1, "A")["max_model_len_room"] == 2
    assert limit(trace, 1, "A")["bound"] == "max_model_len"
    assert snap(trace, 1, "A", "after_schedule")["num_computed_tokens"] == 15
    after = snap(trace, 1, "A", "after_update")
    assert (after["status"], after["num_tokens"], after["num_computed_tokens"]) == (
        "FINISHED_LENGTH_CAPPED", 16, 15)
    assert step_of(trace, 1)["update"]["finish_reasons"] == {"A": "length"}
    assert scheduled(trace, 2) == {}
    assert step_of(trace, 2)["schedule"]["finished_ids_notified"] == ["A"]


# ---- S9: KV preemption (sync, FCFS) -------------------------------------------------------------
def s09_scenario(extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Build S9: 5 usable blocks, budget 16, A (prompt 6, max_tokens 6) and B (prompt 8)."""
    return scenario("s09_preempt", [req("A", 6, 6), req("B", 8, 8)] + (extra or []),
                    max_num_batched_tokens=16, num_gpu_blocks=6)


@pytest.mark.parametrize(
    ("step", "num_scheduled", "preempted", "free_blocks"),
    [
        (0, {"A": 6, "B": 8}, [], 1),      # 2 + 2 blocks
        (1, {"A": 1, "B": 1}, [], 0),      # B reaches 9 slots: a 3rd block
        (2, {"A": 1, "B": 1}, [], 0),
        (3, {"A": 1}, ["B"], 2),           # A needs a 3rd block: running[-1] = B goes
        (4, {"A": 1}, [], 2),              # B's gate: ceil(11/4) = 3 > 2
        (5, {"A": 1}, [], 5),              # A reaches max_tokens 6, frees 3 blocks
        (6, {"B": 11}, [], 2),             # B recomputes prompt + 3 outputs
        (7, {"B": 1}, [], 2),
        (8, {"B": 1}, [], 1),              # C=12 -> 13 slots -> a 4th block
    ],
)
def test_kv_shortage_preempts_running_last_and_readmits_it_once_it_fits(
    step: int, num_scheduled: dict[str, int], preempted: list[str], free_blocks: int
) -> None:
    """S9's table, shifted to steps counted from 0."""
    record = step_of(replay(s09_scenario()), step)
    assert record["schedule"]["num_scheduled_tokens"] == num_scheduled
    assert record["schedule"]["preempted_ids"] == preempted
    assert record["kv_free_blocks"] == free_blocks


def test_preempted_request_keeps_its_outputs_and_is_recomputed_from_zero() -> None:
    """S9: B's C drops to 0 with N=11 kept; its readmission schedules all 11 tokens."""
    trace = replay(s09_scenario())
    assert ledger(trace, 3, "B", "before_schedule") == (11, 10)
    preempted = snap(trace, 3, "B", "after_schedule")
    assert (preempted["status"], preempted["num_tokens"], preempted["num_computed_tokens"]) == (
        "PREEMPTED", 11, 0)
    assert preempted["num_preemptions"] == 1
    gate = limit(trace, 4, "B")
    assert (gate["bound"], gate["kv_blocks_needed"], gate["kv_free_blocks"]) == ("kv", 3, 2)
    assert limit(trace, 6, "B")["demand"] == 11
    assert ledger(trace, 6, "B", "after_schedule") == (11, 11)
    assert step_of(trace, 6)["schedule"]["finished_ids_notified"] == ["A"]
    assert trace["final"]["B"]["num_preemptions"] == 1


@pytest.mark.parametrize(
    ("use_v2_model_runner", "new_req_ids", "resumed_req_ids"),
    [
        pytest.param(None, ["B"], [], id="default-v2"),
        pytest.param(True, ["B"], [], id="v2"),
        pytest.param(False, [], ["B"], id="v1"),
    ],
)
def test_readmitted_request_is_listed_as_new_under_the_v2_runner_and_resumed_under_v1(
    use_v2_model_runner: bool | None, new_req_ids: list[str], resumed_req_ids: list[str]
) -> None:
    """S9 / §9: the V2 runner (the default) gets resumed requests as new ones; V1 as cached."""
    built = s09_scenario()
    if use_v2_model_runner is not None:
        built["config"]["use_v2_model_runner"] = use_v2_model_runner
    schedule = step_of(replay(built), 6)["schedule"]
    assert schedule["num_scheduled_tokens"] == {"B": 11}
    assert (schedule["new_req_ids"], schedule["resumed_req_ids"]) == (
        new_req_ids, resumed_req_ids)


def test_no_waiting_request_is_admitted_in_a_step_that_preempted() -> None:
    """S9 with W (1-token prompt, would fit) arriving in the preempting step: W waits behind B."""
    trace = replay(s09_scenario([req("W", 1, 2, arrival_step=3)]))
    assert step_of(trace, 3)["schedule"]["preempted_ids"] == ["B"]
    assert scheduled(trace, 3) == {"A": 1}
    assert limit(trace, 3, "W")["bound"] == "preempted"
    assert step_of(trace, 3)["waiting"] == ["B", "W"]


# ---- S10, S11, S16, S17: async scheduling -------------------------------------------------------
def s10_scenario() -> dict[str, Any]:
    """Build S10: async, A (prompt 5, max_tokens 3), budget 16."""
    return scenario("s10_async", [req("A", 5, 3)], max_num_batched_tokens=16,
                    async_scheduling=True)


@pytest.mark.parametrize(
    ("step", "num_scheduled", "after_schedule", "after_update"),
    [
        # step, n, (C, ph, N) after schedule, (C, ph, N, O) after the update run in that step
        (0, 5, (5, 1, 5), None),                  # sched1; nothing processed yet
        (1, 1, (6, 2, 5), (6, 1, 6, 1)),          # sched2 D = 5+0+1-5; proc1
        (2, 1, (7, 2, 6), (7, 1, 7, 2)),          # sched3: 6+2-1 = 7 < 8; proc2
        (3, 0, (7, 1, 7), (7, 0, 8, 3)),          # sched4: 7+2-1 = 8 >= 8 -> skipped; proc3
    ],
)
def test_async_placeholders_count_the_output_in_flight(
    step: int, num_scheduled: int, after_schedule: tuple[int, int, int],
    after_update: tuple[int, int, int, int] | None,
) -> None:
    """S10's table: async, A (prompt 5, max_tokens 3), budget 16, one step in flight."""
    trace = replay(s10_scenario())
    assert scheduled(trace, step).get("A", 0) == num_scheduled
    state = snap(trace, step, "A", "after_schedule")
    assert (state["num_computed_tokens"], state["num_output_placeholders"],
            state["num_tokens"]) == after_schedule
    if after_update is not None:
        state = snap(trace, step, "A", "after_update")
        assert (state["num_computed_tokens"], state["num_output_placeholders"],
                state["num_tokens"], state["num_output_tokens"]) == after_update


def test_async_skips_a_request_whose_step_in_flight_already_reaches_max_tokens() -> None:
    """S10: at sched4 C + 2 - ph = 8 >= P + max_tokens = 8, so the step is empty, not wasted."""
    trace = replay(s10_scenario())
    assert scheduled(trace, 3) == {}
    assert limit(trace, 3, "A")["bound"] == "skipped"
    assert snap(trace, 3, "A", "after_update")["status"] == "FINISHED_LENGTH_CAPPED"
    assert trace["final"]["A"]["num_output_tokens"] == 3


@pytest.mark.parametrize(
    ("step", "num_scheduled", "num_verified", "after_schedule", "after_update"),
    [
        # step, n, drafts, (C, ph, N) after schedule, (C, ph, N) after that step's update
        (0, 10, 0, (10, 1, 10), None),            # prefill; 2 placeholders at once
        (1, 3, 2, (13, 4, 10), (13, 3, 11)),      # D = 10+2+1-10 = 3; proc1: 1 token
        (2, 3, 2, (16, 6, 11), (15, 3, 13)),      # proc2: a=1, r=1
        (3, 3, 2, (18, 6, 13), (16, 3, 14)),      # proc3: a=0, r=2
        (4, 3, 2, (19, 6, 14), (19, 3, 17)),      # proc4: a=2, r=0
    ],
)
def test_async_spec_placeholders_keep_c_minus_ph_equal_to_n_minus_1(
    step: int, num_scheduled: int, num_verified: int, after_schedule: tuple[int, int, int],
    after_update: tuple[int, int, int] | None,
) -> None:
    """S11: async, ngram K=2, A (prompt 10); acceptances 1, 0, 2 in schedule calls 1-3."""
    trace = replay(scenario(
        "s11_async_spec", [req("A", 10, 20)], max_num_batched_tokens=32,
        num_speculative_tokens=2, async_scheduling=True, max_steps=5,
        default_outcome={"accepted": 0},
        outcomes={"1": {"A": {"accepted": 1}}, "2": {"A": {"accepted": 0}},
                  "3": {"A": {"accepted": 2}}},
    ))
    assert scheduled(trace, step) == {"A": num_scheduled}
    state = snap(trace, step, "A", "after_schedule")
    assert (state["num_computed_tokens"], state["num_output_placeholders"],
            state["num_tokens"]) == after_schedule
    assert state["num_spec_token_ids"] == 2
    assert verified(trace, step).get("A", 0) == num_verified
    if after_update is not None:
        state = snap(trace, step, "A", "after_update")
        computed, placeholders, num_tokens = after_update
        assert (state["num_computed_tokens"], state["num_output_placeholders"],
                state["num_tokens"]) == after_update
        assert computed - placeholders == num_tokens - 1


def test_async_mixed_step_is_1_6_1_with_outputs_committed_one_step_later() -> None:
    """S16, equivalent form at a constant budget 8: D and A's first chunk fill step 0.

    A's last 4 prompt tokens and B's first 4 make step 1 (D, in flight with its only token,
    is skipped). Step 2 is SPEC's sched2: A (C=9, ph=1) D=1, B D=6, C gets 1.
    """
    trace = replay(scenario(
        "s16_async_161",
        [req("D", 3, 1), req("A", 9, 5), req("B", 10, 5, arrival_step=1),
         req("C", 5, 2, arrival_step=2)],
        max_num_batched_tokens=8, async_scheduling=True, max_steps=4,
    ))
    a_before = snap(trace, 2, "A", "before_schedule")
    assert (a_before["num_computed_tokens"], a_before["num_output_placeholders"]) == (9, 1)
    assert scheduled(trace, 2) == {"A": 1, "B": 6, "C": 1}
    placeholders = {rid: snap(trace, 2, rid, "after_schedule")["num_output_placeholders"]
                    for rid in "ABC"}
    computed = {rid: snap(trace, 2, rid, "after_schedule")["num_computed_tokens"]
                for rid in "ABC"}
    assert (computed, placeholders) == ({"A": 10, "B": 10, "C": 1}, {"A": 2, "B": 1, "C": 0})
    assert snap(trace, 2, "A", "after_update")["num_tokens"] == 10
    assert scheduled(trace, 3) == {"A": 1, "B": 1, "C": 4}
    assert ledger(trace, 3, "A", "after_update")[0] == 11
    assert ledger(trace, 3, "B", "after_update")[0] == 11


def test_async_preemption_turns_the_in_flight_token_stale() -> None:
    """S17: S9's pool under async. B is preempted at sched4 with a token in flight.

    That token is still appended (N 10 -> 11, O=3) without touching C or ph, and B is
    readmitted with all 11 tokens at sched8, once A's last output has freed its blocks.
    """
    scenario_ = s09_scenario()
    scenario_["config"]["async_scheduling"] = True
    trace = replay(scenario_)
    assert step_of(trace, 3)["schedule"]["preempted_ids"] == ["B"]
    preempted = snap(trace, 3, "B", "after_schedule")
    assert (preempted["status"], preempted["num_tokens"], preempted["num_computed_tokens"],
            preempted["num_output_placeholders"]) == ("PREEMPTED", 10, 0, 0)
    stale = snap(trace, 3, "B", "after_update")
    assert (stale["num_tokens"], stale["num_output_tokens"], stale["num_computed_tokens"],
            stale["num_output_placeholders"]) == (11, 3, 0, 0)
    readmitted = [record["step"] for record in trace["steps"] if "B" in record["requests"]
                  and record["requests"]["B"]["before_schedule"]["status"] == "PREEMPTED"
                  and record["requests"]["B"]["after_schedule"]["status"] == "RUNNING"]
    assert readmitted == [7]
    assert scheduled(trace, 7) == {"B": 11}
    assert trace["final"]["A"]["finished_step"] == 6


# ---- S12: prefix-cache hits ---------------------------------------------------------------------
X_TOKENS = [5000 + j for j in range(12)]


@pytest.mark.parametrize(
    ("probe", "hit"),
    [
        (X_TOKENS, 8),                              # Y = X: cap floor(11/4) = 2 blocks
        ([*X_TOKENS[:10], 9001, 9002], 8),          # Z: third block differs
        ([*X_TOKENS, 9001, 9002, 9003], 12),        # V: cap floor(14/4) = 3 blocks
        (X_TOKENS[:9], 8),                          # U: cap 2 blocks
        (X_TOKENS[:8], 4),                          # T: cap floor(7/4) = 1 block
        (X_TOKENS[:7], 4),                          # S: 1 full block, cap 1
    ],
    ids=["Y", "Z", "V", "U", "T", "S"],
)
def test_prefix_hit_is_whole_cached_blocks_capped_at_n_minus_1_over_block_size(
    probe: list[int], hit: int
) -> None:
    """S12: X (12 tokens) runs and finishes, leaving 3 full cached blocks; a probe arrives."""
    trace = replay(scenario(
        "s12_prefix", [tokens_req("X", X_TOKENS, 1), tokens_req("P", probe, 2, arrival_step=1)],
        enable_prefix_caching=True, max_steps=2,
    ))
    assert trace["final"]["X"]["finished_step"] == 0
    assert limit(trace, 1, "P")["prefix_hit"] == hit
    assert scheduled(trace, 1) == {"P": len(probe) - hit}
    assert step_of(trace, 1)["schedule"]["new_req_num_computed_tokens"] == {"P": hit}
    assert snap(trace, 1, "P", "after_schedule")["num_computed_tokens"] == len(probe)


def test_prefix_hit_on_unreferenced_cached_blocks_still_takes_them_from_the_free_pool() -> None:
    """S12: with 3 usable blocks, Y (= X) hits 2 evictable blocks and needs 1 more: free 0."""
    trace = replay(scenario(
        "s12_evictable", [tokens_req("X", X_TOKENS, 1), tokens_req("Y", X_TOKENS, 2, 1)],
        enable_prefix_caching=True, num_gpu_blocks=4, max_steps=2,
    ))
    assert step_of(trace, 0)["kv_free_blocks"] == 3
    assert scheduled(trace, 1) == {"Y": 4}
    assert step_of(trace, 1)["kv_free_blocks"] == 0


# ---- S13: stops inside a spec step --------------------------------------------------------------
@pytest.mark.parametrize(
    ("outcome", "max_tokens", "rolled_back", "trimmed", "status", "reason"),
    [
        # [d1, EOS, d3, t]: stop at the 2nd token, trim 2
        ({"accepted": 3, "eos_index": 1}, 16, 0, 2, "FINISHED_STOPPED", "stop"),
        # [d1, d2, t], O 1 -> 3 at the 2nd token: reject 1, trim 1
        ({"accepted": 2}, 3, 1, 1, "FINISHED_LENGTH_CAPPED", "length"),
        # 4 tokens, O 1 -> 3 at the 2nd: trim 2
        ({"accepted": 3}, 3, 0, 2, "FINISHED_LENGTH_CAPPED", "length"),
    ],
)
def test_stop_inside_a_spec_step_trims_c_so_n_minus_c_stays_1(
    outcome: dict[str, Any], max_tokens: int, rolled_back: int, trimmed: int,
    status: str, reason: str,
) -> None:
    """S13: ngram K=3, N=11 and C=10 before the step, n=4 (C=14), then C=12 and N=13."""
    trace = replay(scenario(
        "s13_stop", [req("A", 10, max_tokens)], max_num_batched_tokens=32,
        num_speculative_tokens=3, default_outcome={"accepted": 0, "drafts": 3},
        outcomes={"1": {"A": outcome}},
    ))
    assert ledger(trace, 1, "A", "before_schedule") == (11, 10)
    assert scheduled(trace, 1) == {"A": 4}
    assert snap(trace, 1, "A", "after_schedule")["num_computed_tokens"] == 14
    update = step_of(trace, 1)["update"]
    assert update["rolled_back"].get("A", 0) == rolled_back
    assert update["trimmed"].get("A", 0) == trimmed
    assert update["finish_reasons"] == {"A": reason}
    after = snap(trace, 1, "A", "after_update")
    assert (after["status"], after["num_tokens"], after["num_computed_tokens"],
            after["num_output_tokens"]) == (status, 13, 12, 3)


# ---- S15: waiting-loop padding ------------------------------------------------------------------
def test_one_token_admission_next_to_a_scheduled_decode_is_padded_to_1_plus_k() -> None:
    """S15: ngram K=3; A decodes without drafts; B (prompt 1) gets 4 with [-1]*3, all rejected."""
    trace = replay(scenario(
        "s15_pad", [req("A", 3), req("B", 1, arrival_step=1)],
        max_num_batched_tokens=16, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 0}, max_steps=2,
    ))
    assert snap(trace, 1, "A", "before_schedule")["num_spec_token_ids"] == 0
    assert scheduled(trace, 1) == {"A": 1, "B": 4}
    assert verified(trace, 1) == {"B": 3}
    assert limit(trace, 1, "B")["bound"] == "padding"
    assert snap(trace, 1, "B", "after_schedule")["num_computed_tokens"] == 4
    assert step_of(trace, 1)["update"]["rolled_back"] == {"B": 3}
    assert ledger(trace, 1, "B", "after_update") == (2, 1)


def test_lone_one_token_prompt_is_not_padded() -> None:
    """§5.8: padding needs a scheduled running request or a prefix hit; a lone prompt has none."""
    trace = replay(scenario(
        "s15_lone", [req("B", 1)], num_speculative_tokens=3, max_steps=1,
    ))
    assert scheduled(trace, 0) == {"B": 1}
    assert verified(trace, 0) == {}


def test_prefix_hit_leaving_one_token_is_padded_even_with_nothing_running() -> None:
    """§5.8: X (8 tokens) finishes; Y = X + 1 token hits 8, so n0 = 1 and hit > 0 pads it."""
    prompt = [5000 + j for j in range(8)]
    trace = replay(scenario(
        "s15_hit_pad", [tokens_req("X", prompt, 1), tokens_req("Y", [*prompt, 9001], 2, 1)],
        enable_prefix_caching=True, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 0}, max_steps=2,
    ))
    assert step_of(trace, 1)["requests"].keys() == {"Y"}
    assert limit(trace, 1, "Y")["prefix_hit"] == 8
    assert scheduled(trace, 1) == {"Y": 4}
    assert verified(trace, 1) == {"Y": 3}


def test_padding_that_does_not_fit_the_budget_stops_the_waiting_loop() -> None:
    """§5.8: budget 4, A decodes 1, so 1 + K = 4 > 3 left: B is not admitted, not even unpadded."""
    trace = replay(scenario(
        "s15_pad_break", [req("A", 3), req("B", 1, arrival_step=1)],
        max_num_batched_tokens=4, num_speculative_tokens=3,
        default_outcome={"accepted": 0, "drafts": 0}, max_steps=2,
    ))
    assert scheduled(trace, 1) == {"A": 1}
    assert step_of(trace, 1)["waiting"] == ["B"]
    assert limit(trace, 1, "B")["bound"] == "padding"


# ---- S18: lookahead block counts ----------------------------------------------------------------
DRAFT_MODEL = {"num_speculative_tokens": 3, "spec_method": "draft_model"}
NGRAM = {"num_speculative_tokens": 3, "spec_method": "ngram"}


@pytest.mark.parametrize(
    ("method", "prompt_len", "step", "computed_before", "num_scheduled", "blocks_held"),
    [
        (DRAFT_MODEL, 6, 0, 0, 6, 3),     # ceil((6 + 3) / 4)
        (DRAFT_MODEL, 6, 1, 6, 4, 4),     # ceil(13 / 4); a=1 -> C=8, the 4 blocks are kept
        (DRAFT_MODEL, 6, 2, 8, 4, 4),     # ceil(15 / 4): no new block
        (NGRAM, 6, 0, 0, 6, 2),           # L = 0: ceil(6 / 4)
        ({}, 8, 0, 0, 8, 2),              # no spec: ceil(8 / 4)
        ({}, 8, 1, 8, 1, 3),              # ceil(9 / 4)
    ],
)
def test_every_allocation_reserves_lookahead_slots(
    method: dict[str, Any], prompt_len: int, step: int, computed_before: int,
    num_scheduled: int, blocks_held: int,
) -> None:
    """S18: blocks = ceil(min(C + n + L, mml) / bs), read from the pool (10 usable blocks)."""
    trace = replay(scenario(
        "s18_kv", [req("A", prompt_len)], num_gpu_blocks=11, max_steps=3,
        default_outcome={"accepted": 0}, outcomes={"1": {"A": {"accepted": 1}}}, **method,
    ))
    assert snap(trace, step, "A", "before_schedule")["num_computed_tokens"] == computed_before
    assert scheduled(trace, step) == {"A": num_scheduled}
    assert 10 - step_of(trace, step)["kv_free_blocks"] == blocks_held


# ---- S19: head-of-line blocking -----------------------------------------------------------------
def test_admission_gate_failure_blocks_smaller_requests_queued_behind_it() -> None:
    """S19: 5 usable blocks, budget 8. X takes its 2nd block (free 3); Y (17) needs 5 > 3.

    The waiting loop breaks at Y, so Z (2 tokens, 1 block) is never tried, and a waiting
    request never preempts a running one. Z is admitted only after Y.
    """
    trace = replay(scenario(
        "s19_hol", [req("X", 4, 4), req("Y", 17, 2, arrival_step=1),
                    req("Z", 2, 2, arrival_step=1)],
        max_num_batched_tokens=8, num_gpu_blocks=6,
    ))
    assert scheduled(trace, 1) == {"X": 1}
    assert step_of(trace, 1)["schedule"]["preempted_ids"] == []
    assert step_of(trace, 1)["kv_free_blocks"] == 3
    gate = limit(trace, 1, "Y")
    assert (gate["bound"], gate["kv_blocks_needed"], gate["kv_free_blocks"]) == ("kv", 5, 3)
    assert limit(trace, 1, "Z")["bound"] == "kv"
    first = {rid: min(record["step"] for record in trace["steps"] if record["schedule"]
                      and rid in record["schedule"]["num_scheduled_tokens"]) for rid in "YZ"}
    assert first["Y"] <= first["Z"]
    assert trace["final"]["X"]["finished_step"] < first["Y"]


# ---- S20: the known crash -----------------------------------------------------------------------
def s20_scenario(threshold: int) -> dict[str, Any]:
    """Build S20: ngram K=3, A decoding without drafts, B (prompt 1) arriving at step 1."""
    return scenario(
        "s20_pad_threshold", [req("A", 3), req("B", 1, arrival_step=1)],
        max_num_batched_tokens=16, num_speculative_tokens=3,
        long_prefill_token_threshold=threshold,
        default_outcome={"accepted": 0, "drafts": 0}, max_steps=2,
    )


@pytest.mark.parametrize("threshold", [2, 3])
def test_padding_cut_by_a_threshold_below_1_plus_k_is_vllms_assertion_error(
    threshold: int,
) -> None:
    """S20: B is padded to 1 + K = 4, the threshold cuts it, and vLLM 0.33.0 asserts."""
    with pytest.raises(SchedulerCrash, match="threshold"):
        replay(s20_scenario(threshold))


def test_padding_survives_a_threshold_of_at_least_1_plus_k() -> None:
    """S20's boundary: thr = 4 = 1 + K leaves the padded 4 whole, so B is admitted with it."""
    trace = replay(s20_scenario(4))
    assert scheduled(trace, 1) == {"A": 1, "B": 4}
    assert verified(trace, 1) == {"B": 3}


# ---- S21: priority preemption -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("policy", "num_scheduled", "victim"),
    [
        ("priority", {"H": 1}, "L"),   # largest (priority, arrival) is L, already scheduled
        ("fcfs", {"L": 1}, "H"),       # running[-1] is H itself
    ],
)
def test_priority_preemption_unschedules_an_already_scheduled_request(
    policy: str, num_scheduled: dict[str, int], victim: str
) -> None:
    """S21: 3 usable blocks; L (priority 5) then H (priority 0), one-token prompts, decoding.

    At step 4 L takes its 2nd block (free 0). At step 5 L is scheduled first, then H fails to
    get its 2nd block. Under priority the victim is L: its n is removed, the budgets restored,
    its 2 blocks freed; H takes one (free 1). Under FCFS H preempts itself instead.
    """
    trace = replay(scenario(
        "s21_priority", [req("L", 1, 20, priority=5), req("H", 1, 20, arrival_step=1, priority=0)],
        max_num_batched_tokens=16, num_gpu_blocks=4, policy=policy, max_steps=6,
    ))
    assert step_of(trace, 4)["running"] == ["L", "H"]
    assert step_of(trace, 4)["kv_free_blocks"] == 0
    assert snap(trace, 5, "L", "before_schedule")["num_computed_tokens"] == 5
    assert snap(trace, 5, "H", "before_schedule")["num_computed_tokens"] == 4
    schedule = step_of(trace, 5)["schedule"]
    assert schedule["num_scheduled_tokens"] == num_scheduled
    assert schedule["preempted_ids"] == [victim]
    assert schedule["token_budget_left"] == 15
    assert limit(trace, 5, victim)["bound"] == "preempted"
    state = snap(trace, 5, victim, "after_schedule")
    assert (state["status"], state["num_computed_tokens"]) == ("PREEMPTED", 0)
    assert step_of(trace, 5)["kv_free_blocks"] == 1

"""The simulator's warm-up builder and trace reader, checked against the real ledger model."""

from __future__ import annotations

import pytest

from quizsvc.errors import Invalid
from quizsvc.ledger import replay
from quizsvc.study import simulator as sim
from quizsvc.study.limits import Limits
from quizsvc.study.simulator import RequestSetting, SimulatorSettings
from quizsvc.study.simulator.settings import _requests
from quizsvc.web import simulator as page_views


def run(settings: SimulatorSettings) -> tuple[sim.ScenarioPlan, dict, list[page_views.StepView]]:
    plan = sim.plan_scenario(settings)
    trace = replay(plan.scenario)
    return plan, trace, page_views.step_views(trace, plan)


def target(views: list[page_views.StepView]) -> page_views.StepView:
    return next(v for v in views if v.kind == "target")


def rows(view: page_views.StepView) -> dict[str, page_views.RequestRow]:
    return {row.id: row for row in view.rows}


def test_the_mixed_preset_reproduces_the_lessons_161_allocation() -> None:
    plan, trace, views = run(sim.PRESETS["mixed-161"])
    assert sim.reached_mismatches(trace, plan) == []
    step = target(views)
    assert step.allocation == (("A", 1), ("B", 6), ("C", 1))
    by_id = rows(step)
    assert by_id["C"].bound == "token_budget"
    assert [by_id[r].computed_after_update for r in "ABC"] == [10, 10, 1]
    assert [by_id[r].gap_after for r in "AB"] == [1, 1]


def test_the_spec_preset_rolls_back_the_two_rejected_drafts() -> None:
    plan, trace, views = run(sim.PRESETS["spec-11-10-3"])
    assert sim.reached_mismatches(trace, plan) == []
    row = rows(target(views))["A"]
    assert (row.scheduled, row.drafts_verified) == (4, 3)
    assert (row.computed_before, row.computed_after_schedule, row.computed_after_update) == (
        10, 14, 12)
    assert (row.tokens_after, row.gap_after) == (13, 1)
    assert row.bar == page_views.Bar(computed=10, scheduled=1, drafts_kept=1, rolled_back=2,
                              unscheduled=0)


@pytest.mark.parametrize("accepted", [0, 1, 2, 3])
def test_n_minus_c_stays_one_for_every_accepted_count(accepted: int) -> None:
    settings = SimulatorSettings(**{**sim.PRESETS["spec-11-10-3"].__dict__,
                                    "accepted": accepted})
    _, _, views = run(settings)
    row = rows(target(views))["A"]
    assert row.computed_after_update == 11 + accepted
    assert row.gap_after == 1


# Settings the warm-up must build exactly (sync): the table is the documentation of what the
# simulator can set up.
REACHABLE = [
    pytest.param(dict(requests=(RequestSetting("A", "running", 30, 29),)), id="lone-decode"),
    pytest.param(dict(requests=(RequestSetting("A", "running", 20, 7),)), id="lone-prefill"),
    pytest.param(dict(requests=(RequestSetting("A", "running", 12, 11),
                                RequestSetting("B", "running", 9, 8),
                                RequestSetting("C", "running", 15, 3),
                                RequestSetting("D", "waiting", 6))),
                 id="two-decodes-a-prefill-and-a-waiting"),
    pytest.param(dict(requests=(RequestSetting("A", "running", 11, 10, drafts=2),
                                RequestSetting("B", "running", 14, 13, drafts=3)),
                      num_speculative_tokens=3, token_budget=16, input_budget=16),
                 id="ngram-drafts"),
    pytest.param(dict(requests=(RequestSetting("A", "running", 6, 5),
                                RequestSetting("B", "running", 12, 4)),
                      num_speculative_tokens=3, spec_method="draft_model", token_budget=16,
                      input_budget=16),
                 id="draft-model-slots"),
    pytest.param(dict(requests=(RequestSetting("A", "running", 10, 9),
                                RequestSetting("B", "running", 20, 5)),
                      long_prefill_token_threshold=6, token_budget=32, input_budget=32),
                 id="threshold-splits-fillers"),
    pytest.param(dict(requests=(RequestSetting("A", "waiting", 5),
                                RequestSetting("B", "waiting", 7))),
                 id="only-waiting"),
]


@pytest.mark.parametrize("changes", REACHABLE)
def test_the_warm_up_builds_the_state_that_was_asked_for(changes: dict) -> None:
    rest = {k: v for k, v in changes.items() if k != "requests"}
    settings = SimulatorSettings(requests=_requests(*changes["requests"]), **rest)
    plan, trace, views = run(settings)
    assert sim.reached_mismatches(trace, plan) == []
    assert [v.kind for v in views].count("target") == 1


def test_fillers_are_marked_and_gone_by_the_target_step() -> None:
    plan, _, views = run(sim.PRESETS["mixed-161"])
    assert plan.fillers == ("f1",)
    warm = [v for v in views if v.kind == "warm-up"]
    assert any(row.filler for v in warm for row in v.rows)
    assert not any(row.filler for row in target(views).rows)


def test_a_kv_cache_too_small_for_the_warm_up_is_reported_not_hidden() -> None:
    settings = sim.with_request(
        SimulatorSettings(requests=sim.PRESETS["mixed-161"].requests, num_gpu_blocks=5),
        "A", num_tokens=30, num_computed_tokens=29)
    settings = SimulatorSettings(**{**settings.__dict__, "token_budget": 32,
                                    "input_budget": 32})
    plan, trace, _ = run(settings)
    assert sim.reached_mismatches(trace, plan)


@pytest.mark.parametrize(("form", "field", "reason"), [
    ({"A.num_computed_tokens": "10"}, "A.num_computed_tokens", "1 <= C <= N - 1"),
    ({"token_budget": "x"}, "token_budget", "whole number"),
    ({"token_budget": "0"}, "token_budget", "between 1 and"),
    ({"spec_method": "magic"}, "spec_method", "one of"),
    ({"bogus": "1"}, "bogus", "unknown field"),
    ({"accepted": "2"}, "accepted", "cannot exceed K"),
    ({"A.drafts": "1"}, "A.drafts", "K (num_speculative_tokens) > 0"),
    ({"A.num_computed_tokens": "4"}, "A.num_computed_tokens", "only the last running"),
    ({"token_budget": "9"}, "token_budget", "cannot exceed input_budget"),
    ({"A.state": "off", "B.state": "off", "C.state": "off"}, "A.state", "at least one"),
    ({"A.num_tokens": "64"}, "A.num_tokens", "below max_model_len"),
])
def test_unusable_settings_name_the_field_and_the_reason(form: dict, field: str,
                                                         reason: str) -> None:
    with pytest.raises(Invalid) as caught:
        sim.plan_scenario(sim.parse_settings(form))
    assert caught.value.field == field
    assert reason in caught.value.message


def test_a_prefill_larger_than_one_warm_up_step_can_give_is_refused() -> None:
    form = {"B.num_tokens": "40", "B.num_computed_tokens": "20"}
    with pytest.raises(Invalid) as caught:
        sim.plan_scenario(sim.parse_settings(form))
    assert caught.value.field == "B.num_computed_tokens"
    assert "at most 7 tokens" in caught.value.message


def test_settings_round_trip_through_the_query_string() -> None:
    for preset in sim.PRESETS.values():
        assert sim.parse_settings(sim.settings_query(preset)) == preset


def test_every_scenario_fits_the_sandbox_bounds() -> None:
    from quizsvc.study import sandbox

    for preset in sim.PRESETS.values():
        sandbox.check_bounds(sim.plan_scenario(preset).scenario, Limits())


def test_steps_are_named_by_where_they_stand_to_the_target() -> None:
    assert [page_views.step_name(o) for o in (-2, -1, 0, 1, 3)] == [
        "T\u22122", "T\u22121", "T", "T+1", "T+3"]
    plan, _trace, views = run(sim.PRESETS["mixed-161"])
    assert [(v.offset, v.kind) for v in views] == [
        (-2, "warm-up"), (-1, "warm-up"), (0, "target"), (1, "after")]
    assert all(v.step == plan.target_step + v.offset for v in views)


def test_only_async_with_drafts_in_flight_leaves_n_minus_c_negative() -> None:
    from dataclasses import replace
    for name, negative in (("mixed-161", False), ("spec-11-10-3", True)):
        _plan, _trace, synchronous = run(sim.PRESETS[name])
        assert not page_views.negative_gaps(synchronous)
        _plan, _trace, in_flight = run(replace(sim.PRESETS[name], scheduling="async"))
        assert page_views.negative_gaps(in_flight) is negative

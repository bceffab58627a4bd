"""A warm-up the simulator cannot build says which input to change, and the change works.

``plan_scenario`` refuses settings whose target state no warm-up can reach. The refusal names
the input to change (``field``) and, where it can, the value (``params["fix"]``) or the least
budgets (``params["token_budget"]``, ``params["input_budget"]``). These tests take random
settings the form accepts, and for every refusal that proposes a value, apply it and plan
again: a value said "to V" must plan; budgets said "at least V" must lift that refusal.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizsvc.errors import Invalid
from quizsvc.study import simulator as sim
from quizsvc.study.simulator import SimulatorSettings

WARM_UP_REASONS = {"prefill_room", "filler_gap", "too_many_fillers", "prefill_over_threshold",
                   "no_room_to_admit", "decode_too_short", "filler_too_long"}


@st.composite
def form_settings(draw: st.DrawFn) -> dict[str, str]:
    """A form as the page can send it: up to three requests, budgets up to 64."""
    input_budget = draw(st.integers(2, 64))
    form = {
        "input_budget": str(input_budget),
        "token_budget": str(draw(st.integers(1, input_budget))),
        "long_prefill_token_threshold": str(draw(st.sampled_from([0, 2, 4, 8, 16]))),
        "max_model_len": str(draw(st.sampled_from([32, 64, 128]))),
        "num_gpu_blocks": "1024",
    }
    for rid in sim.REQUEST_IDS:
        state = draw(st.sampled_from(["running", "running", "waiting", "off"]))
        form[f"{rid}.state"] = state
        tokens = draw(st.integers(2, 30))
        form[f"{rid}.num_tokens"] = str(tokens)
        form[f"{rid}.num_computed_tokens"] = str(draw(st.integers(1, tokens - 1))
                                                 if state == "running" else 0)
        form[f"{rid}.drafts"] = "0"
    return form


def refusal(chosen: SimulatorSettings) -> Invalid | None:
    try:
        sim.plan_scenario(chosen)
    except Invalid as error:
        return error
    return None


def applied(chosen: SimulatorSettings, field: str, value: int) -> SimulatorSettings:
    """Return ``chosen`` with one input changed (``B.num_computed_tokens`` or a global)."""
    if "." in field:
        rid, key = field.split(".")
        return sim.with_request(chosen, rid, **{key: value})
    return replace(chosen, **{field: value})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form_settings())
def test_a_warm_up_refusal_names_an_input_and_its_fix_plans(form: dict[str, str]) -> None:
    try:
        chosen = sim.parse_settings(form)
    except Invalid:  # refused before any warm-up is planned
        return
    error = refusal(chosen)
    if error is None or error.reason not in WARM_UP_REASONS:
        return
    assert error.field in sim.settings_query(chosen) or error.field.split(".")[-1] in (
        sim.REQUEST_LIMITS)  # an input of the form
    if "fix" in error.params:
        fixed = applied(chosen, error.field, int(error.params["fix"]))
        assert refusal(fixed) is None, (error.message, refusal(fixed))
    elif error.template.endswith("set long_prefill_token_threshold to 0 (off)"):
        assert refusal(replace(chosen, long_prefill_token_threshold=0)) is None
    elif "token_budget" in error.params and "input_budget" in error.params:
        raised = replace(chosen,
                         input_budget=max(chosen.input_budget, error.params["input_budget"]),
                         token_budget=max(chosen.token_budget, error.params["token_budget"]))
        after = refusal(raised)
        assert after is None or (after.reason, after.params.get("request")) != (
            error.reason, error.params.get("request")), error.message


def test_a_prefill_too_large_for_its_step_is_told_the_c_that_fits() -> None:
    chosen = sim.parse_settings({"B.num_tokens": "40", "B.num_computed_tokens": "20"})
    error = refusal(chosen)
    assert error is not None and error.field == "B.num_computed_tokens"
    assert error.reason == "prefill_room" and "lower its C to" in error.message
    assert refusal(applied(chosen, error.field, error.params["fix"])) is None

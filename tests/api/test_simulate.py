"""The sandbox: a bounded scenario in, the ledger's trace out; clear 422s otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quizsvc.ledger import replay

GOLDEN = Path(__file__).parents[1] / "ledger" / "golden"  # the recorded vLLM traces
SPLIT = {"name": "split", "config": {"max_num_batched_tokens": 8, "max_num_seqs": 8},
         "requests": [{"id": "A", "prompt_len": 9, "max_tokens": 2},
                      {"id": "B", "prompt_len": 5, "max_tokens": 2}]}


def test_a_scenario_replays_to_the_ledgers_trace(browser):
    response = browser.post("/api/simulate?detail=full", json=SPLIT)
    assert response.status_code == 200
    assert response.json == json.loads(json.dumps(replay(SPLIT)))
    assert response.json["steps"][0]["schedule"]["num_scheduled_tokens"] == {"A": 8}


def test_by_default_the_trace_is_summed_up_per_step(browser):
    response = browser.post("/api/simulate", json=SPLIT)
    full = replay(SPLIT)
    assert response.json["detail"] == "summary"
    assert [s["schedule"]["num_scheduled_tokens"] if s["schedule"] else None
            for s in response.json["steps"]] == [
        s["schedule"]["num_scheduled_tokens"] if s["schedule"] else None for s in full["steps"]]
    assert all("requests" not in step for step in response.json["steps"])
    assert response.json["final"] == json.loads(json.dumps(full["final"]))


def test_a_browser_that_floods_the_sandbox_is_told_to_wait(app_config, connection):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "SIMULATE_RATE_LIMIT": "3/minute"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    flooder, other = ApiBrowser(app), ApiBrowser(app)
    statuses = [flooder.post("/api/simulate", json=SPLIT).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    refused = flooder.post("/api/simulate", json=SPLIT)
    assert refused.json["reason"] == "too_many_requests" and "Retry-After" in refused.headers
    assert other.post("/api/simulate", json=SPLIT).status_code == 200  # per browser
    assert flooder.get("/simulator").status_code == 429  # the page's replays count too


def test_the_lessons_budget_split_matches_the_recorded_trace(browser):
    scenario = json.loads((GOLDEN / "a_budget_split.json").read_text())
    recorded = json.loads((GOLDEN / "a_budget_split.trace.json").read_text())
    trace = browser.post("/api/simulate?detail=full", json=scenario).json
    by_step = {s["step"]: s for s in trace["steps"]}
    for step in recorded["steps"]:
        if step.get("schedule"):
            assert by_step[step["step"]]["schedule"]["num_scheduled_tokens"] == \
                step["schedule"]["num_scheduled_tokens"]


def scenario_with(**changes):
    scenario = json.loads(json.dumps(SPLIT))
    for path, value in changes.items():
        target = scenario
        *parents, leaf = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[leaf] = value
    return scenario


@pytest.mark.parametrize(("scenario", "field"), [
    (scenario_with(requests=[{"id": str(i), "prompt_len": 2} for i in range(17)]), "requests"),
    (scenario_with(config__max_steps=201), "config.max_steps"),
    (scenario_with(requests__0__prompt_len=5000), "requests[0].prompt_len"),
    (scenario_with(requests__0__max_tokens=5000), "requests[0].max_tokens"),
    (scenario_with(requests__0__prompt_token_ids=list(range(5000))),
     "requests[0].prompt_token_ids"),
    (scenario_with(config__num_gpu_blocks=10**9), "config.num_gpu_blocks"),
    (scenario_with(config__max_model_len=10**6), "config.max_model_len"),
    (scenario_with(requests__0__arrival_step=1000), "requests[0].arrival_step"),
    (scenario_with(requests__0__prompt_len="nine"), "requests[0].prompt_len"),
    (scenario_with(config__block_size=0), "config.block_size"),
    (scenario_with(config__colour="red"), "config.colour"),
    ({"requests": []}, "requests"),
    ({}, "requests"),
])
def test_out_of_bounds_or_malformed_scenarios_are_422_naming_the_field(browser, scenario,
                                                                      field):
    response = browser.post("/api/simulate", json=scenario)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]["json"]


@pytest.mark.parametrize("body", ["[1, 2]", "null", "3", "\"text\""])
def test_a_scenario_that_is_not_an_object_is_422(browser, body):
    response = browser.post("/api/simulate", data=body,
                            headers={"Content-Type": "application/json",
                                     "X-CSRF-Token": browser.csrf})
    assert response.status_code == 422


def test_bounds_come_from_configuration(app_config, connection, new_browser):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "SIMULATE_MAX_REQUESTS": 1})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = ApiBrowser(app).post("/api/simulate", json=SPLIT)
    assert response.status_code == 422
    assert "requests" in response.json["errors"]["json"]


def test_using_the_sandbox_with_a_question_open_makes_it_open_book(app: Any, db: Any,
                                                                  bank: Any) -> None:
    from tests.support.browsers import ApiBrowser, Study

    study = Study(ApiBrowser(app), db, bank)
    session = study.start("27-vllm-v1-ledger", mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    ran = study.browser.post("/api/simulate", json={"requests": [
        {"id": "A", "prompt_len": 3, "max_tokens": 1}]})
    assert ran.status_code == 200, ran.json
    answered = study.answer(vid, study.right_answer(vid)).json
    assert answered["correct"] is True and answered["closed_book"] is False


def test_a_replay_from_a_browser_not_stored_stores_nothing(app: Any) -> None:
    """The sandbox changes nothing of a browser with no learner (it has no open question to
    mark open-book), so a visitor who only replays scenarios is never made a learner."""
    from tests.support.browsers import ApiBrowser

    visitor = ApiBrowser(app, stored=False)
    assert visitor.post("/api/simulate", json=SPLIT).status_code == 200
    assert visitor.get("/api/me").json["learner"] is None


def test_costly_replays_are_refused_once_their_cpu_budget_is_spent(app_config, connection):
    """Few costly replays spend the sandbox's CPU budget as many cheap ones spend its
    request count: a browser, and everyone together, get only their share of the machine."""
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "SANDBOX_CPU_PER_BROWSER": "1/minute",
                      "SANDBOX_CPU_FOR_ALL": "1000000/second"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    spender, other = ApiBrowser(app), ApiBrowser(app)
    assert spender.post("/api/simulate", json=SPLIT).status_code == 200  # spends >= 1 ms
    refused = spender.post("/api/simulate", json=SPLIT)
    assert refused.status_code == 429 and refused.json["reason"] == "sandbox_busy"
    assert int(refused.headers["Retry-After"]) >= 1
    last = other.post("/api/simulate", json=SPLIT)
    assert last.status_code == 200, last.json

    shared = create_app({**app_config, "SANDBOX_CPU_FOR_ALL": "1/minute"})
    shared.extensions["quizsvc.db"].bind_to_connection(connection)
    first, second = ApiBrowser(shared), ApiBrowser(shared)
    assert first.post("/api/simulate", json=SPLIT).status_code == 200
    assert second.post("/api/simulate", json=SPLIT).status_code == 429  # everyone's share


def test_a_request_aborted_twice_in_one_step_replays_as_if_aborted_once(browser):
    """vLLM ignores a repeated abort; the sandbox must not answer 500 for one."""
    scenario = json.loads((GOLDEN / "i_eos_abort.json").read_text())
    once = browser.post("/api/simulate?detail=full", json=scenario)
    scenario["aborts"] = {"3": ["U", "U"]}
    twice = browser.post("/api/simulate?detail=full", json=scenario)
    assert twice.status_code == 200, twice.json
    assert twice.json == once.json
    assert next(s for s in twice.json["steps"] if s["step"] == 3)["aborted"] == ["U"]

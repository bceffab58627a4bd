"""An abort that names a request which had already finished lists it in that step's trace.

FORMAT.md: a step's ``requests`` lists every request "alive before the step, arriving or
aborted in it". vLLM's ``finish_requests`` skips a request that is already finished (it is no
longer in ``Scheduler.requests``), so the abort changes nothing about it: the trace shows the
request as it was left. The scenario is the recorded ``i_eos_abort`` with S, which stopped on
EOS in step 2, also named in step 3's abort; every field recorded from vLLM for that scenario
must still come out the same, and S must appear in step 3 exactly as step 2 left it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from quizsvc.ledger import replay
from quizsvc.ledger.compare import compare_traces

GOLDEN = Path(__file__).parent / "golden"


def load(name: str) -> dict:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def scenario_aborting_a_finished_request() -> dict:
    scenario = copy.deepcopy(load("i_eos_abort.json"))
    scenario["aborts"] = {"3": ["S", "U"]}  # S finished in step 2 (EOS as its bonus token)
    return scenario


def test_the_finished_request_named_by_an_abort_is_listed_as_it_was_left() -> None:
    trace = replay(scenario_aborting_a_finished_request())
    step2, step3 = (next(s for s in trace["steps"] if s["step"] == n) for n in (2, 3))
    assert step2["requests"]["S"]["after_update"]["status"] == "FINISHED_STOPPED"
    assert "S" in step3["requests"]
    listed = step3["requests"]["S"]
    assert listed["after_update"] == step2["requests"]["S"]["after_update"]
    assert (listed["num_scheduled_tokens"], listed["num_scheduled_spec_tokens"]) == (0, 0)
    assert step3["aborted"] == ["U"]  # only a live request is aborted


def test_naming_it_changes_nothing_else_the_recorded_trace_holds() -> None:
    expected = load("i_eos_abort.trace.json")
    actual = replay(scenario_aborting_a_finished_request())
    assert compare_traces(expected, actual, strict=True) == []

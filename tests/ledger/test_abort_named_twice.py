"""An abort that names one request twice in a step finishes it once.

vLLM 0.33.0's ``Scheduler.finish_requests`` turns the ids it is given into a set before it
looks at them, and skips an id that is no longer alive; ``EngineCore`` even sends each abort
down two queues because, as it says, aborting in the scheduler is idempotent. So a repeat in
one step's ``aborts`` changes nothing: the trace is the one the scenario gives with the id named
once. The scenario is the recorded ``i_eos_abort`` with U (running) named twice in step 3, so
every field recorded from vLLM must still come out the same; the other cases name a waiting
request and an already finished one twice.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from quizsvc.ledger import replay
from quizsvc.ledger.compare import compare_traces
from tests.ledger.builders import step_of

GOLDEN = Path(__file__).parent / "golden"


def load(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def i_eos_abort_with(aborts: dict[str, list[str]]) -> dict[str, Any]:
    scenario = copy.deepcopy(load("i_eos_abort.json"))
    scenario["aborts"] = aborts
    return scenario


def waiting_behind_a_full_batch(aborts: dict[str, list[str]]) -> dict[str, Any]:
    """Keep B waiting (A fills the token budget) while the abort arrives."""
    return {
        "name": "abort_waiting_twice",
        "config": {"max_num_batched_tokens": 16, "max_num_seqs": 1, "max_model_len": 64,
                   "block_size": 4, "num_gpu_blocks": 64},
        "requests": [{"id": "A", "prompt_len": 20, "max_tokens": 4},
                     {"id": "B", "prompt_len": 5, "max_tokens": 2}],
        "aborts": aborts,
    }


def test_a_running_request_aborted_twice_matches_the_recorded_trace() -> None:
    trace = replay(i_eos_abort_with({"3": ["U", "U"]}))
    assert step_of(trace, 3)["aborted"] == ["U"]
    assert compare_traces(load("i_eos_abort.trace.json"), trace, strict=True) == []


@pytest.mark.parametrize(("build", "twice", "once"), [
    (i_eos_abort_with, {"3": ["U", "U"]}, {"3": ["U"]}),
    (i_eos_abort_with, {"3": ["S", "U", "S", "U"]}, {"3": ["S", "U"]}),  # S finished in step 2
    (waiting_behind_a_full_batch, {"1": ["B", "B"]}, {"1": ["B"]}),
    (waiting_behind_a_full_batch, {"1": ["B", "A", "B"]}, {"1": ["B", "A"]}),
])
def test_naming_a_request_twice_in_one_step_is_naming_it_once(build, twice, once) -> None:
    assert replay(build(twice)) == replay(build(once))


def test_the_waiting_case_really_aborts_a_waiting_request() -> None:
    """Guard the case above: B must still be waiting when step 1's abort reaches it."""
    trace = replay(waiting_behind_a_full_batch({"1": ["B"]}))
    assert "B" in step_of(trace, 0)["waiting"]
    assert step_of(trace, 1)["aborted"] == ["B"]
    assert step_of(trace, 1)["requests"]["B"]["after_update"]["status"] == "FINISHED_ABORTED"

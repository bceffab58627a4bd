"""The core stays dependency-free, and malformed scenarios get one-line errors naming the field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizsvc.cli import main
from quizsvc.ledger import (
    Engine,
    LedgerConfig,
    Request,
    RequestStatus,
    ScenarioError,
    Scheduler,
    parse_scenario,
    replay,
)

GOLDEN = Path(__file__).parent / "golden"


def test_importing_the_ledger_loads_no_web_or_database_library() -> None:
    code = (
        "import sys, quizsvc.ledger, quizsvc.ledger.commands, quizsvc.ledger.explain\n"
        "bad = [m for m in ('flask', 'sqlalchemy', 'marshmallow', 'fsrs', 'yaml')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        ({"requests": [{"id": "A", "prompt_len": 0}]}, "requests[0].prompt_len"),
        ({"requests": [{"id": "A", "prompt_len": 1024}]}, "requests[0].prompt_len"),
        ({"requests": [{"id": "A", "prompt_len": "9"}]}, "requests[0].prompt_len"),
        ({"requests": [{"id": "A", "prompt_len": 3, "colour": 1}]}, "requests[0].colour"),
        ({"requests": [{"id": "A", "prompt_len": 3}, {"id": "A", "prompt_len": 3}]},
         "requests[1].id"),
        ({"config": {"block_size": 0}, "requests": [{"id": "A", "prompt_len": 3}]},
         "config.block_size"),
        ({"config": {"bogus": 1}, "requests": [{"id": "A", "prompt_len": 3}]}, "config.bogus"),
        ({"config": {"spec_method": "medusa"}, "requests": [{"id": "A", "prompt_len": 3}]},
         "config.spec_method"),
        ({"requests": []}, "requests"),
        ({"requests": [{"id": "A", "prompt_len": 3}], "outcomes": {"x": {}}}, "outcomes.x"),
        ({"requests": [{"id": "A", "prompt_len": 3}], "outcomes": {"1": {"B": {}}}},
         "outcomes.1.B"),
        ({"requests": [{"id": "A", "prompt_len": 3}], "aborts": {"1": ["Z"]}}, "aborts.1"),
        ({"requests": [{"id": "A", "prompt_len": 3}],
          "default_outcome": {"accepted": -1}}, "default_outcome.accepted"),
    ],
)
def test_malformed_scenario_names_the_field(scenario: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(scenario)
    assert caught.value.field == field
    assert "\n" not in str(caught.value)


def test_cli_replay_prints_the_trace_of_a_scenario_array(capsys: pytest.CaptureFixture) -> None:
    assert main(["ledger", "replay", str(GOLDEN / "fuzz-public.json")]) == 0
    traces = json.loads(capsys.readouterr().out)
    assert len(traces) == 60 and traces[0]["format"] == "vllm-sched-oracle/1"


def test_cli_replay_rejects_a_malformed_scenario_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"requests": [{"id": "A", "prompt_len": -1}]}))
    assert main(["ledger", "replay", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "requests[0].prompt_len" in err


def test_cli_replay_reads_stdin(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO((GOLDEN / "a_budget_split.json").read_text()))
    assert main(["ledger", "replay"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["steps"][2]["schedule"]["num_scheduled_tokens"] == {"A": 1, "B": 6, "C": 1}


def test_cli_explain_prints_the_table_and_the_binding_limits(
    capsys: pytest.CaptureFixture,
) -> None:
    assert main(["ledger", "explain", str(GOLDEN / "a_budget_split.json"), "--step", "2"]) == 0
    out = capsys.readouterr().out
    assert "bound by token_budget" in out and "N + S + ph - C = 10 + 0 + 0 - 9 = 1" in out
    assert main(["ledger", "explain", str(GOLDEN / "a_budget_split.json"), "--step", "2",
                 "--lang", "zh"]) == 0
    assert "受 token_budget 约束" in capsys.readouterr().out


def test_invalid_json_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{")
    assert main(["ledger", "explain", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_scheduler_can_be_driven_directly_from_python() -> None:
    scheduler = Scheduler(LedgerConfig(max_num_batched_tokens=8, block_size=4,
                                       num_gpu_blocks=64, max_model_len=64))
    scheduler.add_request(Request("A", list(range(100, 109)), max_tokens=3, arrival_time=0.0))
    output = scheduler.schedule()
    assert output.num_scheduled_tokens == {"A": 8}
    assert output.limits["A"].bound == "token_budget"
    result = scheduler.update_from_output(output, {"A": []})
    assert result.finished_ids == []
    output = scheduler.schedule()
    assert output.num_scheduled_tokens == {"A": 1}
    scheduler.update_from_output(output, {"A": [42]})
    request = scheduler.requests["A"]
    assert (request.num_tokens, request.num_computed_tokens) == (10, 9)
    assert request.status is RequestStatus.RUNNING


def test_engine_steps_one_loop_iteration_at_a_time() -> None:
    scenario = parse_scenario(json.loads((GOLDEN / "d_kv_preemption.json").read_text()))
    engine = Engine(scenario)
    first = engine.step()
    assert first is not None and first["step"] == 0
    engine.run()
    assert engine.done
    assert replay(scenario)["final"] == engine.trace()["final"]


def test_double_free_is_detected() -> None:
    scheduler = Scheduler(LedgerConfig(block_size=4, num_gpu_blocks=8, max_model_len=64))
    request = Request("A", [1, 2, 3, 4, 5], max_tokens=2, arrival_time=0.0)
    scheduler.add_request(request)
    scheduler.schedule()
    blocks = list(scheduler.kv.req_to_blocks["A"])
    scheduler.kv.free(request)
    scheduler.kv.req_to_blocks["A"] = blocks
    with pytest.raises(AssertionError, match="freed twice"):
        scheduler.kv.free(request)


def test_every_scheduler_note_has_a_chinese_rendering() -> None:
    import re
    from pathlib import Path as _Path

    from quizsvc.ledger.explain import localise_note

    source = (_Path(__file__).parents[2] / "quizsvc/ledger/scheduler.py").read_text()
    notes = re.findall(r'"([a-z][^"]*(?:stopped|stop|taken|flight|budget|left|blocks|turn|'
                       r'preempted|max_tokens|lookahead|take|len)[^"]*)"', source)
    samples = [note.replace("{config.max_num_seqs}", "2").replace("{request.request_id}", "A")
               for note in notes if " " in note and not note.startswith(("Return", "Record"))
               and "vLLM" not in note and "returned" not in note]  # crash messages, not notes
    assert len(samples) >= 10
    for note in samples:
        assert localise_note(note, "zh") != note, note

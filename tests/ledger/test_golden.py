"""Replaying every recorded scenario reproduces every compared field of the real vLLM trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizsvc.ledger import replay
from quizsvc.ledger.compare import check_expectations, compare_traces

GOLDEN = Path(__file__).parent / "golden"
NAMED = sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".trace.json")
               and p.name != "fuzz-public.json")
FUZZ = json.loads((GOLDEN / "fuzz-public.json").read_text())
FUZZ_TRACES = json.loads((GOLDEN / "fuzz-public.trace.json").read_text())


def test_the_golden_folder_holds_twelve_named_scenarios_and_sixty_fuzz_ones() -> None:
    assert len(NAMED) == 12
    assert len(FUZZ) == len(FUZZ_TRACES) == 60


@pytest.mark.parametrize("path", NAMED, ids=lambda p: p.stem)
def test_named_scenario_matches_its_recorded_trace(path: Path) -> None:
    expected = json.loads(path.with_suffix(".trace.json").read_text())
    assert compare_traces(expected, replay(json.loads(path.read_text()))) == []


@pytest.mark.parametrize("index", range(60), ids=lambda i: f"fuzz{i}")
def test_fuzz_scenario_matches_its_recorded_trace(index: int) -> None:
    assert compare_traces(FUZZ_TRACES[index], replay(FUZZ[index])) == []


def test_comparison_catches_a_changed_budget() -> None:
    scenario = json.loads((GOLDEN / "a_budget_split.json").read_text())
    expected = json.loads((GOLDEN / "a_budget_split.trace.json").read_text())
    scenario["config"]["max_num_batched_tokens"] = 9
    problems = compare_traces(expected, replay(scenario))
    assert any("num_scheduled_tokens" in line for line in problems)


@pytest.mark.parametrize("path", NAMED, ids=lambda p: p.stem)
def test_named_scenario_meets_its_own_expectations(path: Path) -> None:
    scenario = json.loads(path.read_text())
    assert check_expectations(scenario, replay(scenario)) == []


@pytest.mark.parametrize("index", range(60), ids=lambda i: f"fuzz{i}")
def test_every_recorded_field_of_the_fuzz_traces_is_reproduced(index: int) -> None:
    """Beyond the compared fields: request lists, queues, free blocks and all snapshots."""
    assert compare_traces(FUZZ_TRACES[index], replay(FUZZ[index]), strict=True) == []


@pytest.mark.parametrize("path", NAMED, ids=lambda p: p.stem)
def test_every_recorded_field_of_the_named_traces_is_reproduced(path: Path) -> None:
    expected = json.loads(path.with_suffix(".trace.json").read_text())
    assert compare_traces(expected, replay(json.loads(path.read_text())), strict=True) == []

"""The simulator package plans and nothing more: the use case that replays is the sandbox."""

from __future__ import annotations

from tests.support.isolation import WEB_OR_DATABASE, pulled_in

USE_CASES = frozenset({"quizsvc.study.context", "quizsvc.study.sandbox"})


def test_importing_the_simulator_loads_no_use_case_store_or_web_module() -> None:
    assert pulled_in(("quizsvc.study.simulator",), WEB_OR_DATABASE | USE_CASES) == []

"""schemathesis against the app's own ``/api/openapi.json``: no 5xx, every response as documented.

Every documented operation is fuzzed in-process (the WSGI app, on SQLite and on PostgreSQL)
with positive cases (valid by the schema) and negative ones (invalid by it). In positive cases
path parameters and ``variant_id`` are half the time real ids of a learner who has studied, so
the fuzz reaches grading, reveals, ratings and self-assessments, not only 404s. Hypothesis is
derandomized: the same cases run every time. Checks: no server error, documented status, media
type, headers and body schema, invalid input rejected with a 4xx, a missing required header
rejected, and an undocumented method answered 405.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.generation.modes import GenerationMode

from quizsvc import create_app
from tests.support.browsers import ApiBrowser, Study

LESSON = "vllm-v1-ledger"
AUTHOR_TOKEN = "fuzz-author-token"
POSITIVE_EXAMPLES = 40  # per operation
NEGATIVE_EXAMPLES = 25  # per operation that has something to get wrong
LEAST_CASES = 1000  # per backend, as the issue asks
OPEN_VARIANTS = 40


@dataclass
class Studied:
    """Real ids of a learner who has studied, to aim the fuzz at."""

    browser: ApiBrowser
    pools: dict[str, list[Any]]


def studied_learner(app: Any, db: Any, bank: Any) -> Studied:
    """Answer a few questions (right, wrong, explained), leave variants open, self-assess."""
    browser = ApiBrowser(app)
    study = Study(browser, db, bank)
    sessions, attempts = [], []
    done = study.start(LESSON, mode="quiz", size=3)
    for right in (True, False, False):
        variant_id = study.next(done["id"])["question"]["variant_id"]
        answer = study.right_answer(variant_id) if right else study.wrong_answer(variant_id)
        attempts.append(study.answer(variant_id, answer).json["id"])
    browser.explain(attempts[1], explanation="I mixed up the budgets")
    sessions.append(done["id"])
    answers = {}
    for _ in range(OPEN_VARIANTS):
        session = study.start(LESSON, mode="review", size=1)
        sessions.append(session["id"])
        variant_id = study.next(session["id"])["question"]["variant_id"]
        answers[variant_id] = [study.right_answer(variant_id), study.wrong_answer(variant_id)]
    sections = [s.id for lesson in bank.lessons.values() for s in lesson.sections]
    refs = sorted(bank.questions)[:10] + sections
    for ref in refs[::2]:
        browser.put(f"/api/self-assessments/{ref}", json={"rating": 2, "note": "not yet"})
    golden = Path(__file__).parents[1] / "ledger" / "golden"
    scenarios = [json.loads(path.read_text()) for path in sorted(golden.glob("*.json"))
                 if not path.name.endswith(".trace.json") and "fuzz" not in path.name][:6]
    return Studied(browser, {
        "session_id": sessions, "attempt_id": attempts, "lesson_id": [LESSON],
        "lesson": [LESSON], "ref": refs, "question_id": sorted(bank.questions),
        "variant_id": list(answers), "answers": [answers],
        "code": [browser.post("/api/link-codes").json["code"]], "scenario": scenarios})


def aimed(strategy: st.SearchStrategy, pools: dict[str, list[Any]]) -> st.SearchStrategy:
    """Return ``strategy``, half the time aimed at real ids, answers and scenarios.

    Path parameters, ``variant_id``, ``code`` and ``lesson`` are drawn from ``pools``; an
    aimed answer is then the variant's right or wrong one a third of the time each; a
    ``/api/simulate`` body is a recorded golden scenario. Only for positive cases: aiming could
    turn an invalid case into a valid one.
    """
    def pick(name: str, index: int) -> Any:
        return pools[name][index % len(pools[name])]

    def aim(drawn: tuple[Any, int]) -> Any:
        case, index = drawn
        for name in list(case.path_parameters or {}):
            if name in pools:
                case.path_parameters[name] = pick(name, index)
        if case.operation.path == "/api/simulate":
            case.body = pick("scenario", index)
        elif isinstance(case.body, dict):
            for name in ("variant_id", "code", "lesson"):
                if name in case.body:
                    case.body[name] = pick(name, index)
            known = pools["answers"][0].get(case.body.get("variant_id"))
            if known and index % 3:
                case.body["answer"] = known[index % 3 - 1]
        return case

    return st.one_of(strategy, st.tuples(strategy, st.integers(0, 10**6)).map(aim))


def fuzz_checks() -> list[Callable[..., Any]]:
    """Return the schemathesis checks this test runs."""
    from schemathesis import checks as builtin
    from schemathesis.specs.openapi import checks as openapi

    return [builtin.not_a_server_error, openapi.status_code_conformance,
            openapi.content_type_conformance, openapi.response_headers_conformance,
            openapi.response_schema_conformance, openapi.negative_data_rejection,
            openapi.missing_required_header, openapi.unsupported_method]


def fuzz(strategy: st.SearchStrategy, examples: int, send: Callable[[Any], None]) -> None:
    """Run ``send`` on up to ``examples`` derandomized cases drawn from ``strategy``."""

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: Any) -> None:
        send(case)

    run()


@pytest.fixture
def fuzz_app(app_config: dict[str, Any], connection: Any) -> Any:
    """Return the app with author views on, bound to the test's rolled-back transaction."""
    fuzzed = create_app({**app_config, "AUTHOR_TOKEN": AUTHOR_TOKEN})
    fuzzed.extensions["quizsvc.db"].bind_to_connection(connection)
    return fuzzed


def test_schemathesis_finds_no_server_error_and_no_undocumented_response(fuzz_app, db, bank,
                                                                          backend):
    learner = studied_learner(fuzz_app, db, bank)
    client = learner.browser.client
    cookies = {name: client.get_cookie(name).value for name in ("quizsvc_browser", "csrf_token")}
    headers = {"X-CSRF-Token": cookies["csrf_token"], "Authorization": f"Bearer {AUTHOR_TOKEN}"}
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzz_app)
    checks = fuzz_checks()
    cases: Counter[str] = Counter()
    statuses: Counter[tuple[str, int]] = Counter()
    failures: dict[str, str] = {}

    def send(case: Any, operation: str, label: str) -> None:
        cases[operation] += 1
        try:
            response = case.call(headers=headers, cookies=cookies)
            statuses[operation, response.status_code // 100] += 1
            case.validate_response(response, checks=checks, headers=headers,
                                   transport_kwargs={"app": fuzz_app, "cookies": cookies})
        except BaseException as error:  # schemathesis' FailureGroup is a BaseExceptionGroup
            if not isinstance(error, Exception | BaseExceptionGroup):
                raise
            failures.setdefault(label, str(error)[:2000])

    # Deletions last, so that they do not clear what the other operations are aimed at.
    operations = sorted((result.ok() for result in schema.get_all_operations()),
                        key=lambda op: (op.method.upper() == "DELETE", "{" not in op.path))
    assert len(operations) >= 25, [op.label for op in operations]
    for operation in operations:
        for mode, examples in ((GenerationMode.POSITIVE, POSITIVE_EXAMPLES),
                               (GenerationMode.NEGATIVE, NEGATIVE_EXAMPLES)):
            label = f"{operation.label} ({mode.value})"
            strategy = operation.as_strategy(generation_mode=mode)
            if mode is GenerationMode.POSITIVE:  # aiming could make a negative case valid
                strategy = aimed(strategy, learner.pools)
            try:
                fuzz(strategy, examples, lambda case, label=label, operation=operation: send(
                    case, operation.label, label))
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing in it can be made invalid
    total = sum(cases.values())
    print(f"\nschemathesis on {backend}: {total} cases over {len(operations)} operations")
    print("never 2xx:", sorted(op.label for op in operations if not statuses[op.label, 2]))
    assert failures == {}, "\n\n".join(f"{k}: {v}" for k, v in failures.items())
    assert total >= LEAST_CASES
    assert set(cases) == {op.label for op in operations}

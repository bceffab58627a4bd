"""A client generated from ``/api/openapi.json`` by ``openapi-python-client`` walks the
closed-book flow against a running server: session, next, wrong answer, explanation, reveal,
rating.

The document is the API's contract for anyone who does not read our code; if a schema in it
is wrong (a nullable left out, a status not documented, a body the generator cannot type), the
generated models fail to parse what the server sends and this test says where. It runs on a
SQLite file and on a PostgreSQL schema of its own, each served by a real HTTP server.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from quizsvc.bank import load_bank
from tests.support.browsers import wrong_answer
from tests.support.databases import BACKENDS
from tests.support.live import LiveServer, dispose_database, migrated, new_pg_database, serve

PACKAGE = "quizsvc_generated_client"
LESSON = "vllm-v1-ledger"
# The Anki deck is a binary download: let the generator type it as one.
GENERATOR_CONFIG = {"project_name_override": "quizsvc-generated-client",
                    "package_name_override": PACKAGE,
                    "content_type_overrides": {"application/apkg": "application/octet-stream"}}


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[LiveServer]:
    """Serve the real bank over HTTP on each backend's own committed database."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("generated-client") / "quizsvc.sqlite3"
        database = migrated(f"sqlite:///{path}")
    else:
        database = new_pg_database()
    try:
        with serve(database, load_bank()) as live:
            yield live
    finally:
        dispose_database(database)


@pytest.fixture(scope="module")
def generated(server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """Generate a client package from the running server's document; import it."""
    folder = tmp_path_factory.mktemp("client")
    with urllib.request.urlopen(f"{server.url}/api/openapi.json", timeout=10) as response:
        (folder / "openapi.json").write_bytes(response.read())
    (folder / "config.json").write_text(json.dumps(GENERATOR_CONFIG), encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bin_dir / "openapi-python-client"), "generate", "--path", "openapi.json",
         "--config", "config.json", "--output-path", "client", "--meta", "none"],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert done.returncode == 0, done.stdout + done.stderr
    # Every operation must come out typed: the generator says "Warning" for any it cannot.
    assert "Warning" not in done.stdout, done.stdout
    package = folder / "package"
    package.mkdir()
    (folder / "client").rename(package / PACKAGE)
    sys.path.insert(0, str(package))
    try:
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]  # the other backend's copy
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(package))


def api(name: str) -> Any:
    """Import one generated operation module, e.g. ``api("sessions.post_api_sessions")``."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def models() -> Any:
    """Return the generated models package."""
    return importlib.import_module(f"{PACKAGE}.models")


def signed_in(generated: ModuleType, server: LiveServer) -> Any:
    """Return a generated client of a new browser: its cookies, and the CSRF echo as the
    document's ``csrf`` scheme asks."""
    anonymous = generated.Client(base_url=server.url, raise_on_unexpected_status=True)
    me = api("me.get_api_me").sync(client=anonymous)
    assert isinstance(me, models().Me) and me.csrf_token
    cookies = dict(anonymous.get_httpx_client().cookies)
    return generated.AuthenticatedClient(
        base_url=server.url, token=me.csrf_token, prefix="", auth_header_name="X-CSRF-Token",
        cookies=cookies, raise_on_unexpected_status=True)


def test_a_generated_client_completes_the_closed_book_flow(generated: ModuleType,
                                                           server: LiveServer) -> None:
    """Session, next, a wrong answer (no reveal yet), the explanation (the reveal), reading
    the attempt back, the only rating a wrong answer allows, and a refused second rating read
    as the error envelope, all through the generated models."""
    m = models()
    client = signed_in(generated, server)

    session = api("sessions.post_api_sessions").sync(
        client=client, body=m.SessionCreate(lesson=LESSON, mode=m.SessionCreateMode.QUIZ, size=2))
    assert isinstance(session, m.Session), session
    item = api("sessions.get_api_sessions_session_id_next").sync(session.id, client=client)
    assert isinstance(item, m.NextItem) and isinstance(item.question, m.ServedQuestion), item
    question = item.question
    assert item.position == 1 and not item.done
    assert question.input_.type_ in {"integer", "vector", "choice", "multi", "order"}
    assert "answer" not in question.to_dict() and "seed" not in question.to_dict()

    wrong = wrong_answer(server.variant(question.variant_id))
    attempt = api("attempts.post_api_attempts").sync(
        client=client, body=m.AttemptCreate(variant_id=question.variant_id, answer=wrong),
        idempotency_key="generated-1")
    assert isinstance(attempt, m.Attempt), attempt
    assert attempt.correct is False and attempt.closed_book is True
    assert attempt.reveal is None, "the reveal of a wrong answer waits for its explanation"
    assert attempt.explanation_required is True
    rule = attempt.diagnosis_options[0].id  # the rule this learner thinks they broke

    explained = api("attempts.post_api_attempts_attempt_id_explanation").sync(
        attempt.id, client=client,
        body=m.Explanation(
            explanation="I took the waiting queue's tokens before the running one's.",
            rule=rule))
    assert isinstance(explained, m.Attempt) and isinstance(explained.reveal, m.Reveal)
    assert explained.reveal.diagnosis.rule == rule
    assert explained.reveal.correct_answer == server.right_answer(question.variant_id)
    assert explained.reveal.solution.zh and explained.reveal.solution.en

    read_back = api("attempts.get_api_attempts_attempt_id").sync(attempt.id, client=client)
    assert isinstance(read_back, m.Attempt) and isinstance(read_back.reveal, m.Reveal)
    assert read_back.reveal.correct_answer == explained.reveal.correct_answer

    rated = api("attempts.post_api_attempts_attempt_id_rating").sync(
        attempt.id, client=client, body=m.Rating(rating=m.RatingRating.AGAIN))
    assert isinstance(rated, m.Attempt) and rated.rating == "again", rated
    again = api("attempts.post_api_attempts_attempt_id_rating").sync_detailed(
        attempt.id, client=client, body=m.Rating(rating=m.RatingRating.GOOD))
    assert 400 <= again.status_code < 500
    assert isinstance(again.parsed, m.ErrorEnvelope) and again.parsed.reason, again.content

    following = api("sessions.get_api_sessions_session_id_next").sync(session.id, client=client)
    assert isinstance(following, m.NextItem) and following.position == 2


def test_a_state_change_without_the_csrf_echo_is_refused_in_the_envelope(
        generated: ModuleType, server: LiveServer) -> None:
    """The document says what a state change needs; a client that leaves it out gets a
    403 envelope it can parse, naming the header."""
    m = models()
    bare = generated.Client(base_url=server.url)
    api("me.get_api_me").sync(client=bare)
    refused = api("sessions.post_api_sessions").sync_detailed(
        client=bare, body=m.SessionCreate(lesson=LESSON, mode=m.SessionCreateMode.QUIZ, size=1))
    assert refused.status_code == 403
    assert isinstance(refused.parsed, m.ErrorEnvelope)
    assert refused.parsed.reason == "csrf_failed"

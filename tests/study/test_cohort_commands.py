"""``quizsvc cohort create|rotate`` on a throwaway SQLite database (their commits are real)."""

from __future__ import annotations

import hashlib
import re

import pytest
from sqlalchemy import select

from quizsvc.cli import main
from quizsvc.store.database import make_engine
from quizsvc.store.models import Cohort

LESSON = "vllm-v1-ledger"


@pytest.fixture
def url(tmp_path):
    database_url = f"sqlite:///{tmp_path / 'cohorts.sqlite3'}"
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    return database_url


def stored(url, cohort_id):
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(Cohort).where(Cohort.id == cohort_id)).one()
    finally:
        engine.dispose()


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def test_create_prints_the_secrets_once_and_stores_only_their_hashes(url, capsys):
    capsys.readouterr()
    assert main(["cohort", "create", "--lesson", LESSON, "--name", "Systems 101",
                 "--database-url", url, "--base-url", "https://quiz.example.org/"]) == 0
    out = capsys.readouterr().out
    cohort_id = int(re.search(r"made cohort (\d+)", out).group(1))
    code = re.search(r"join code: (\S+)", out).group(1)
    token = re.search(r"instructor token: (\S+)", out).group(1)
    assert f"join page: https://quiz.example.org/join/{code}" in out
    assert f"instructor page: https://quiz.example.org/cohorts/{cohort_id}/{token}" in out
    row = stored(url, cohort_id)
    assert (row.lesson, row.name) == (LESSON, "Systems 101")
    assert (row.join_code_hash, row.instructor_token_hash) == (sha(code), sha(token))

    assert main(["cohort", "rotate", "--cohort", str(cohort_id), "--database-url", url]) == 0
    out = capsys.readouterr().out
    new = re.search(r"new instructor token: (\S+)", out).group(1)
    assert new != token and f"instructor page: /cohorts/{cohort_id}/{new}" in out
    assert stored(url, cohort_id).instructor_token_hash == sha(new)


@pytest.mark.parametrize(("args", "message"), [
    (["cohort", "create", "--lesson", "no-such-lesson", "--name", "x"], "no lesson"),
    (["cohort", "create", "--lesson", LESSON, "--name", "  "], "name: must not be empty"),
    (["cohort", "rotate", "--cohort", "999"], "no cohort 999"),
])
def test_bad_arguments_are_refused_with_a_reason(url, capsys, args, message):
    assert main([*args, "--database-url", url]) == 2
    assert message in capsys.readouterr().err

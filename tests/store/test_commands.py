"""``quizsvc db upgrade|downgrade|current|backup|restore`` on throwaway SQLite files."""

from __future__ import annotations

import json

import pytest

from quizsvc.cli import main
from quizsvc.store import migrate


@pytest.fixture
def urls(tmp_path):
    return [f"sqlite:///{tmp_path / name}" for name in ("one.sqlite3", "two.sqlite3")]


def test_upgrade_current_and_downgrade(urls, capsys):
    url = urls[0]
    assert main(["db", "current", "--database-url", url]) == 1
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert f"at revision {migrate.head_revision()}" in capsys.readouterr().out
    assert main(["db", "current", "--database-url", url]) == 0
    assert main(["db", "downgrade", "base", "--database-url", url]) == 0
    assert "at revision None" in capsys.readouterr().out


def test_backup_and_restore_between_two_databases(urls, tmp_path, capsys):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    source, target = urls
    for url in urls:
        assert main(["db", "upgrade", "--database-url", url]) == 0
    app = create_app({"DATABASE_URL": source, "TESTING": True})
    ApiBrowser(app).put("/api/self-assessments/nope", json={"rating": 2})  # a learner row
    app.extensions["quizsvc.db"].engine.dispose()
    path = tmp_path / "backup.json"
    assert main(["db", "backup", str(path), "--database-url", source]) == 0
    document = json.loads(path.read_text())
    assert document["tables"]["learner"] and document["tables"]["browser"]
    assert main(["db", "restore", str(path), "--database-url", target]) == 0
    again = tmp_path / "again.json"
    assert main(["db", "backup", str(again), "--database-url", target]) == 0
    assert json.loads(again.read_text()) == document
    capsys.readouterr()
    assert main(["db", "restore", str(path), "--database-url", target]) == 1
    assert "not empty" in capsys.readouterr().err


def test_restore_of_a_file_that_is_not_json_fails_cleanly(urls, tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text("{nope")
    assert main(["db", "restore", str(path), "--database-url", urls[0]]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_downgrade_needs_a_target(capsys):
    with pytest.raises(SystemExit):
        main(["db", "downgrade"])

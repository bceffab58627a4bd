"""The service never runs on a secret key anyone could know."""

from __future__ import annotations

import stat
from pathlib import Path

from quizsvc import create_app, runtime
from quizsvc.config import SECRET_KEY_FILE, from_environment, instance_secret_key


def test_no_secret_key_is_built_in() -> None:
    assert from_environment({})["SECRET_KEY"] is None


def test_an_unset_key_is_generated_once_into_the_instance_folder(tmp_path: Path) -> None:
    key, made = instance_secret_key(tmp_path)
    assert made and len(key) >= 64
    path = tmp_path / SECRET_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert instance_secret_key(tmp_path) == (key, False)
    other, _ = instance_secret_key(tmp_path / "another")
    assert other != key


def test_an_app_without_a_key_uses_the_instance_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("QUIZSVC_SECRET_KEY", raising=False)
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
                      "SECRET_KEY": None})
    key = (Path(app.instance_path) / SECRET_KEY_FILE).read_text().strip()
    assert app.config["SECRET_KEY"] == key


def test_a_test_app_reads_no_quizsvc_variable_from_the_environment(tmp_path: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.setenv("QUIZSVC_MAX_SESSION_SIZE", "3")
    monkeypatch.setenv("QUIZSVC_AUTHOR_TOKEN", "exported-by-a-developer")
    monkeypatch.setenv("QUIZSVC_BANK_DIR", str(tmp_path / "no-bank-here"))
    config = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "SECRET_KEY": "t"}
    served = create_app(config)
    assert (served.config["MAX_SESSION_SIZE"], served.config["AUTHOR_TOKEN"]) == (
        3, "exported-by-a-developer")  # a deployment is configured by its environment
    tested = create_app({**config, "TESTING": True})
    assert (tested.config["MAX_SESSION_SIZE"], tested.config["AUTHOR_TOKEN"]) == (50, None)
    with tested.app_context():
        assert runtime.bank().questions  # the repository's bank, not $QUIZSVC_BANK_DIR

"""The deployment files agree with the code: compose services, commands, environment, serve.

No Docker engine runs here, so the compose file is parsed and checked against the CLI parser
and the configuration table; ``quizsvc serve`` itself is run for real on SQLite.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from quizsvc import serve
from quizsvc.cli import build_parser
from quizsvc.config import ENVIRONMENT
from quizsvc.store import commands

ROOT = Path(__file__).parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
KNOWN_ENV = {setting.env for setting in ENVIRONMENT}
# How long a started server may take to answer /readyz: a bound, not a measurement. Under
# pytest-xdist another worker shares the cores while gunicorn preloads the bank.
STARTUP_SECONDS = 120


def test_compose_has_database_migration_rate_limit_store_and_app():
    assert set(SERVICES) == {"db", "migrate", "limits", "app"}


def test_the_app_s_workers_share_their_rate_limit_counters():
    environment = SERVICES["app"]["environment"]
    assert environment["QUIZSVC_RATELIMIT_STORAGE_URI"].startswith("redis://limits:")
    assert SERVICES["app"]["depends_on"]["limits"]["condition"] == "service_healthy"
    assert SERVICES["db"]["image"].startswith("postgres:")


def test_the_database_has_a_healthcheck_and_a_named_volume():
    db = SERVICES["db"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":")[0]
    assert volume in COMPOSE["volumes"]
    assert db["volumes"][0].endswith(":/var/lib/postgresql/data")


def test_migrate_waits_for_a_healthy_database_and_runs_db_upgrade():
    migrate = SERVICES["migrate"]
    assert migrate["depends_on"] == {"db": {"condition": "service_healthy"}}
    args = build_parser().parse_args(migrate["command"][1:])
    assert migrate["command"][0] == "quizsvc"
    assert args.handler is commands.run_upgrade and args.revision == "head"


def test_the_app_runs_quizsvc_serve_after_migration_on_all_interfaces():
    app = SERVICES["app"]
    assert app["depends_on"] == {"migrate": {"condition": "service_completed_successfully"},
                                 "limits": {"condition": "service_healthy"}}
    args = build_parser().parse_args(app["command"][1:])
    assert args.handler is serve.run_serve
    assert args.host == "0.0.0.0"
    published = app["ports"][0].rsplit(":", 1)[1]
    assert int(published) == args.port
    assert "/readyz" in " ".join(app["healthcheck"]["test"])


@pytest.mark.parametrize("service", ["migrate", "app"])
def test_services_are_configured_only_through_known_environment_variables(service):
    environment = SERVICES[service]["environment"]
    assert set(environment) <= KNOWN_ENV
    url = environment["QUIZSVC_DATABASE_URL"]
    assert url.startswith("postgresql+psycopg://") and "@db:5432/" in url
    assert "QUIZSVC_SECRET_KEY" in environment
    assert ":?" in environment["QUIZSVC_SECRET_KEY"]  # compose refuses to start without it


def test_database_credentials_agree_between_services():
    db_env = SERVICES["db"]["environment"]
    url = SERVICES["app"]["environment"]["QUIZSVC_DATABASE_URL"]
    user, password, database = re.match(
        r"postgresql\+psycopg://([^:]+):(.+)@db:5432/(\w+)$", url).groups()
    assert (user, password, database) == (
        db_env["POSTGRES_USER"], db_env["POSTGRES_PASSWORD"], db_env["POSTGRES_DB"])


def test_the_image_builds_from_the_repository():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for needed in ("alembic.ini", "migrations", "question_bank", "quizsvc"):
        assert needed in dockerfile
    assert all((ROOT / path).exists() for path in ("alembic.ini", "migrations", "question_bank"))


def test_scripts_serve_bootstraps_migrates_and_serves_on_loopback():
    script = (ROOT / "scripts" / "serve").read_text()
    lines = [line for line in script.splitlines() if line and not line.startswith("#")]
    assert "bash scripts/bootstrap" in lines
    assert ".venv/bin/quizsvc db upgrade" in lines
    serve = next(line for line in lines if "quizsvc serve" in line)
    args = build_parser().parse_args(
        serve.split("quizsvc ", 1)[1].replace('"${PORT:-8000}"', "8000").split())
    assert args.host == "127.0.0.1" and args.port == 8000


def test_gunicorn_serves_the_preloaded_factory():
    argv = serve.gunicorn_argv("127.0.0.1", 9000, 3, 8)
    assert argv[1:3] == ["-m", "gunicorn"]
    assert argv[-1] == "quizsvc.app:serving_app()"
    assert "--preload" in argv and argv[argv.index("--workers") + 1] == "3"
    assert argv[argv.index("--worker-class") + 1] == "gthread"
    assert argv[argv.index("--threads") + 1] == "8"
    assert argv[argv.index("--config") + 1] == "python:quizsvc.gunicorn_hooks"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_quizsvc_serve_migrated_database_answers_on_loopback(tmp_path):
    """Run the real thing: db upgrade, then serve, then ask /readyz and the lessons."""
    env = {**os.environ, "QUIZSVC_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
           "QUIZSVC_WORKERS": "1"}
    cli = [sys.executable, "-m", "quizsvc.cli"]
    upgraded = subprocess.run([*cli, "db", "upgrade"], env=env, capture_output=True,
                              text=True, timeout=60)
    assert upgraded.returncode == 0, upgraded.stderr
    port = free_port()
    server = subprocess.Popen([*cli, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        printed = ""
        while f"http://127.0.0.1:{port}/" not in printed:
            line = server.stdout.readline()
            assert line, printed  # serve prints the address before it serves
            printed += line
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz") as response:
                    assert response.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/lessons") as response:
            assert response.status == 200
            assert "quizsvc_browser=" in response.headers["Set-Cookie"]
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()


def test_rate_limits_hold_across_workers_in_the_default_deployment(tmp_path):
    """``quizsvc serve`` with two workers and no Redis configured: it starts one for the
    workers, so a limit of 3 a minute lets 3 requests through, not 3 per worker."""
    import http.client
    import json
    from http.cookies import SimpleCookie
    from shutil import which

    if which("redis-server") is None:
        pytest.skip("redis-server is not installed (scripts/test installs it)")
    env = {**os.environ, "QUIZSVC_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
           "QUIZSVC_WORKERS": "2", "QUIZSVC_LINK_RATE_LIMIT": "3/minute",
           "QUIZSVC_LOG_LEVEL": "WARNING"}
    env.pop("QUIZSVC_RATELIMIT_STORAGE_URI", None)
    cli = [sys.executable, "-m", "quizsvc.cli"]
    assert subprocess.run([*cli, "db", "upgrade"], env=env, capture_output=True,
                          timeout=60).returncode == 0
    port = free_port()
    server = subprocess.Popen([*cli, "serve", "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        printed = ""
        while f"http://127.0.0.1:{port}/" not in printed:
            line = server.stdout.readline()
            assert line, printed
            printed += line
        assert "rate limits shared by every worker" in printed
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz") as response:
                    body = json.loads(response.read())
                    break
            except OSError:
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        assert body["dependencies"]["rate_limits"]["status"] == "ok"
        statuses = []
        cookie = ""
        for _ in range(8):  # new connections: gunicorn spreads them over both workers
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            if not cookie:
                connection.request("GET", "/api/me")
                response = connection.getresponse()
                response.read()
                jar: SimpleCookie = SimpleCookie()
                for header in response.headers.get_all("Set-Cookie"):
                    jar.load(header)
                token, csrf = jar["quizsvc_browser"].value, jar["csrf_token"].value
                cookie = f"quizsvc_browser={token}; csrf_token={csrf}"
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", "/api/link", body=json.dumps({"code": "ZZZZZZZZZZZZ"}),
                               headers={"Cookie": cookie, "X-CSRF-Token": csrf,
                                        "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            statuses.append(response.status)
            connection.close()
        assert statuses.count(429) == 5, statuses  # 3 of 8 through, across both workers
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()

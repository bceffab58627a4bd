"""Build the Flask application: configuration, extensions, the API and the pages.

``create_app(config)`` is the only way to get an app (no module-level app): configuration is
read from ``QUIZSVC_*`` environment variables, then ``config`` overrides it (tests pass
``DATABASE_URL``, ``BANK``, ``CLOCK``, ``RANDOM_SEED``). A test configuration
(``config["TESTING"]``) reads no environment at all: every setting starts at its default, so
a variable a developer exported cannot leak into the suite. gunicorn runs
``quizsvc.app:serving_app()``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Flask

from quizsvc import runtime
from quizsvc.api import health
from quizsvc.api.blueprint import Api
from quizsvc.api.resources import (
    anki,
    attempts,
    author,
    cohorts,
    items,
    lessons,
    me,
    portability,
    reports,
    reviews,
    scheduling,
    self_assessments,
    sessions,
    simulate,
)
from quizsvc.config import (
    SECRET_KEY_FILE,
    default_database_url,
    from_environment,
    instance_secret_key,
)
from quizsvc.http import browser, headers, inputs, language, limits, observability
from quizsvc.http.errors import register_error_handlers
from quizsvc.http.logs import configure_logging
from quizsvc.store import migrate
from quizsvc.store.database import Database
from quizsvc.web import pages, reference

log = logging.getLogger(__name__)

API_BLUEPRINTS = (health, me, lessons, sessions, attempts, reviews, self_assessments,
                  portability, simulate, author, scheduling, anki, cohorts, items, reports)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Create and configure one application instance (from the environment, unless
    ``config["TESTING"]`` says it is a test's)."""
    app = Flask("quizsvc")
    testing = bool(config and config.get("TESTING"))
    app.config.update(from_environment({} if testing else None))
    app.config.update(
        API_TITLE="quizsvc",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    if not app.config.get("DATABASE_URL"):
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config["DATABASE_URL"] = default_database_url(app.instance_path)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"], made = instance_secret_key(app.instance_path)
        if made:
            log.warning("QUIZSVC_SECRET_KEY is not set: generated a secret key into %s; "
                        "every server of this deployment must share it",
                        Path(app.instance_path) / SECRET_KEY_FILE)

    Database().init_app(app)
    runtime.init_app(app)
    app.extensions["quizsvc.migration_head"] = migrate.head_revision()
    inputs.init_app(app)
    observability.init_app(app)  # after inputs: its hooks go first and last of all
    browser.init_app(app)
    headers.init_app(app)
    limits.init_app(app)
    language.init_app(app)

    api = Api(app, spec_kwargs={"info": {"description": (
        "Closed-book quizzes and spaced repetition on vLLM 0.33.0's V1 scheduler ledger. "
        "State-changing requests must echo the csrf_token cookie in X-CSRF-Token.")}})
    for module in API_BLUEPRINTS:
        api.register_blueprint(module.blp)
    api.register_blueprint(cohorts.instructor)
    app.register_blueprint(pages.bp)
    app.register_blueprint(reference.bp)
    register_error_handlers(app)
    return app


def serving_app() -> Flask:
    """Create the app for gunicorn with the question bank already loaded.

    ``quizsvc serve`` runs gunicorn with ``--preload``, so the bank is read once in the
    master and shared by the forked workers, with which of its contents the service may serve
    (``quizsvc.bank.publication``); no database connection is opened before the fork.
    Logging is set up here, for the process (``LOG_FORMAT``, ``LOG_LEVEL``), not by
    ``create_app``, which tests call many times in one process.
    """
    app = create_app()
    configure_logging(app.config["LOG_FORMAT"], app.config["LOG_LEVEL"])
    with app.app_context():
        bank, index = runtime.runtime().teaching()
        for question in bank.questions.values():  # which contents serving may draw: once,
            index.publication.publishes(question)  # in the master, for every worker
    return app

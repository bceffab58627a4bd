"""Build the Flask application: configuration, database, identity, API blueprints, web pages.

``create_app(config)`` is the only way to get an app (no module-level app): configuration is
read from ``QUIZSVC_*`` environment variables, then ``config`` overrides it (tests pass
``DATABASE_URL``, ``BANK``, ``CLOCK``, ``RANDOM_SEED``). gunicorn runs
``quizsvc.app:create_app()``.
"""

from __future__ import annotations

import gc
import importlib
import inspect
from pathlib import Path
from typing import Any

from flask import Flask, Request
from flask.sessions import SessionInterface, SessionMixin

from quizsvc import errors
from quizsvc.api import identity, inputs
from quizsvc.api.blueprint import Api
from quizsvc.config import default_database_url, from_environment
from quizsvc.store import migrate
from quizsvc.store.session import Database

API_BLUEPRINTS: tuple[str, ...] = (
    "quizsvc.api.health",
    "quizsvc.api.resources.me",
    "quizsvc.api.resources.lessons",
    "quizsvc.api.resources.sessions",
    "quizsvc.api.resources.attempts",
    "quizsvc.api.resources.reviews",
    "quizsvc.api.resources.self_assessments",
    "quizsvc.api.resources.portability",
    "quizsvc.api.resources.simulate",
    "quizsvc.api.resources.author",
)


class QuizsvcFlask(Flask):
    """Flask, asking once per function whether a hook or view is a coroutine function.

    Flask's ``ensure_sync`` asks ``inspect.iscoroutinefunction`` of every hook and the view on
    every request (nine times for a graded answer); the answer never changes for a function.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.coroutine_functions: dict[Any, bool] = {}

    def ensure_sync(self, func: Any) -> Any:
        """Return ``func`` itself when it is plain (remembered per function), else wrap it."""
        key = getattr(func, "__func__", func)  # a bound method: its function
        is_coroutine = self.coroutine_functions.get(key)
        if is_coroutine is None:
            is_coroutine = self.coroutine_functions[key] = inspect.iscoroutinefunction(func)
        return super().ensure_sync(func) if is_coroutine else func


class NoFlaskSession(SessionInterface):
    """Keep no Flask session: the service stores nothing in Flask's signed session cookie.

    Identity and CSRF have their own cookies (``quizsvc.api.identity``). Flask's default
    interface would still build a signing serializer on every request (about 50 µs of a
    graded answer's CPU); with this one ``flask.session`` is a null session that refuses
    writes, so an accidental use fails loudly instead of setting a cookie.
    """

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:
        """Return None: Flask then hands out its null session."""
        return None

    def save_session(self, app: Flask, session: SessionMixin, response: Any) -> None:
        """Save nothing."""


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Create and configure one application instance."""
    app = QuizsvcFlask("quizsvc")
    app.session_interface = NoFlaskSession()
    app.config.update(from_environment())
    app.config.update(
        API_TITLE="quizsvc",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    if not app.config.get("DATABASE_URL"):
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config["DATABASE_URL"] = default_database_url(app.instance_path)

    Database().init_app(app)
    app.extensions["quizsvc.migration_head"] = migrate.head_revision()
    inputs.init_app(app)
    identity.init_app(app)

    api = Api(app, spec_kwargs={"info": {"description": (
        "Closed-book quizzes and spaced repetition on vLLM 0.33.0's V1 scheduler ledger. "
        "State-changing requests must echo the csrf_token cookie in X-CSRF-Token.")}})
    for module_name in API_BLUEPRINTS:
        api.register_blueprint(importlib.import_module(module_name).blp)
    register_web(app)
    errors.register_error_handlers(app)
    return app


def register_web(app: Flask) -> None:
    """Register the server-rendered pages when ``quizsvc.web.views`` exists."""
    try:
        views = importlib.import_module("quizsvc.web.views")
    except ModuleNotFoundError as error:
        if error.name != "quizsvc.web.views":
            raise
        return
    app.register_blueprint(views.bp)
    app.register_blueprint(importlib.import_module("quizsvc.web.reference").bp)


def serving_app() -> Flask:
    """Create the app for gunicorn with the question bank already loaded.

    ``quizsvc serve`` runs gunicorn with ``--preload``, so the bank is read once in the
    master and shared by the forked workers; no database connection is opened before the fork.
    """
    app = create_app()
    with app.app_context():
        identity.get_bank()
    # The bank and the app are long-lived: move them out of the collector's reach so that
    # full collections in the workers do not rescan them on every request burst.
    gc.collect()
    gc.freeze()
    return app

"""Build the ``Context`` a use case takes from the current request.

The JSON views and the pages call ``current_context()`` alike: the request's session, the
app's bank, clock, random source and limits, and the browser ``quizsvc.http.browser`` found.
"""

from __future__ import annotations

from flask import current_app

from quizsvc.http.browser import visitor
from quizsvc.runtime import runtime
from quizsvc.store.database import request_unit_of_work
from quizsvc.study.context import Context, Identity


def current_context() -> Context:
    """Return the use-case context for this request."""
    return context_for(visitor().identity)


def author_context() -> Context:
    """Return the context of an author's request: no browser, no learner (author views are
    served without one, ``http.browser.WITHOUT_BROWSER``)."""
    return context_for(None)


def context_for(identity: Identity | None) -> Context:
    """Return the use-case context for this request on behalf of ``identity``."""
    app_runtime = runtime()
    bank, index = app_runtime.teaching()
    return Context(uow=request_unit_of_work(), bank=bank, index=index, identity=identity,
                   now=app_runtime.clock(), rng=app_runtime.rng, limits=app_runtime.limits,
                   secret_key=current_app.config["SECRET_KEY"], pool=app_runtime.pool,
                   memo=app_runtime.memo)

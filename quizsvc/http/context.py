"""Build the ``Context`` a use case takes from the current request.

The JSON views and the pages call ``current_context()`` alike: the request's session, the
app's bank, clock, random source and limits, and the browser ``quizsvc.http.browser`` found
(none for a view that serves no browser, such as a cohort's instructor report), stored
first when this is a new browser's first state change.
"""

from __future__ import annotations

from flask import current_app

from quizsvc.http.browser import stored_visitor
from quizsvc.runtime import runtime
from quizsvc.store.database import request_unit_of_work
from quizsvc.study.context import Context


def current_context() -> Context:
    """Return the use-case context for this request."""
    app_runtime = runtime()
    found = stored_visitor()  # none for views that serve no browser
    bank, index = app_runtime.teaching()
    return Context(uow=request_unit_of_work(), bank=bank, index=index,
                   identity=found.identity if found else None,
                   now=app_runtime.clock(), rng=app_runtime.rng, limits=app_runtime.limits,
                   secret_key=current_app.config["SECRET_KEY"], pool=app_runtime.pool,
                   memo=app_runtime.memo)

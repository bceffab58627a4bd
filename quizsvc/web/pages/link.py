"""Serve linking browsers: make a one-time code here, or enter one made elsewhere."""

from __future__ import annotations

from flask import render_template

from quizsvc.errors import Conflict, Invalid
from quizsvc.http.arguments import LinkRequestSchema
from quizsvc.http.browser import switch_identity
from quizsvc.http.context import current_context
from quizsvc.http.limits import link_redeem_limit
from quizsvc.study import linking
from quizsvc.web.pages.chrome import bp, parse_form, said


@bp.get("/link")
def link() -> str:
    """Show the two halves of linking: make a code here, or enter one from elsewhere."""
    return render_template("link.html", issued=None, linked=False, error=None,
                           shared=linking.is_linked(current_context()))


@bp.post("/link/code")
def link_code() -> str:
    """Make a one-time code and show it (only now: the server keeps only its hash)."""
    ctx = current_context()
    issued = linking.create_link_code(ctx)
    return render_template("link.html", issued=issued, linked=False, error=None,
                           shared=linking.is_linked(ctx))


@bp.post("/link/redeem")
@link_redeem_limit()
def link_redeem() -> tuple[str, int]:
    """Join this browser to the learner who made the code."""
    ctx = current_context()
    try:
        form = parse_form(LinkRequestSchema())
        switch_identity(linking.redeem_link_code(ctx, form["code"], form["leave_progress"]))
    except Conflict as error:
        if error.reason != "would_leave_progress":
            raise
        return render_template("link.html", issued=None, linked=False, error=None,
                               shared=False, confirm={"code": form["code"], **error.params}
                               ), 409
    except Invalid as error:
        return render_template("link.html", issued=None, linked=False, error=said(error),
                               shared=False), 422
    return render_template("link.html", issued=None, linked=True, error=None,
                           shared=True), 200

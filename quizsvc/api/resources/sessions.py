"""Closed-book sessions: start one, then take its questions one by one."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import NextItemSchema, SessionSchema, SessionSummarySchema
from quizsvc.http.arguments import SessionCreateSchema
from quizsvc.http.context import current_context
from quizsvc.study import serving, sessions

blp = ApiBlueprint("sessions", __name__, url_prefix="/api/sessions",
                   description="Closed-book study sessions")


@blp.route("")
class Sessions(MethodView):
    """Start sessions."""

    @blp.arguments(SessionCreateSchema)
    @blp.response(201, SessionSchema)
    def post(self, body: dict[str, Any]) -> Any:
        """Start a session: due reviews first, then new questions."""
        return sessions.start_session(current_context(), body["lesson"], body["mode"],
                                      body["size"], body["retry_of"])


@blp.route("/<string:session_id>")
class Session(MethodView):
    """One session."""

    @blp.response(200, SessionSchema)
    def get(self, session_id: str) -> Any:
        """Show a session's progress."""
        return sessions.get_session(current_context(), session_id)


@blp.route("/<string:session_id>/next")
class NextQuestion(MethodView):
    """The session's next question."""

    @blp.response(200, NextItemSchema)
    def get(self, session_id: str) -> Any:
        """Serve the next question's variant: its prompt, never its answer or seed."""
        return serving.next_question(current_context(), session_id)


@blp.route("/<string:session_id>/summary")
class Summary(MethodView):
    """How the session went."""

    @blp.response(200, SessionSummarySchema)
    def get(self, session_id: str) -> Any:
        """Show the score, every item right or wrong, the next due review and what was
        mastered; ``mistakes`` can be taken again with ``retry_of``."""
        return sessions.session_summary(current_context(), session_id)

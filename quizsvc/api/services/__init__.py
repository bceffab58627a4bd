"""Use cases of the service, callable from the JSON API, the web pages and tests alike.

Every function takes a ``Context`` (``quizsvc.api.identity.current_context()`` builds one
inside a request) and owns its transaction. See ``quizsvc/api/README.md`` for the list.
"""

from quizsvc.api.services.catalog import list_lessons, read_lesson
from quizsvc.api.services.context import Context, Identity
from quizsvc.api.services.identity import create_link_code, redeem_link_code
from quizsvc.api.services.portability import (
    export_learner_data,
    import_learner_data,
    revlog_csv,
)
from quizsvc.api.services.progress import (
    due_queue,
    due_reviews,
    learner_calibration,
    list_mastery,
    progress_report,
)
from quizsvc.api.services.sandbox import simulate
from quizsvc.api.services.self_assessments import (
    clear_self_assessments,
    delete_self_assessment,
    get_self_assessment,
    list_self_assessments,
    put_self_assessment,
)
from quizsvc.api.services.study import (
    attempt_question,
    explain_attempt,
    get_attempt,
    get_session,
    next_question,
    rate_attempt,
    start_session,
    submit_attempt,
)

__all__ = [
    "Context",
    "Identity",
    "attempt_question",
    "clear_self_assessments",
    "create_link_code",
    "delete_self_assessment",
    "due_queue",
    "due_reviews",
    "explain_attempt",
    "export_learner_data",
    "get_attempt",
    "get_self_assessment",
    "get_session",
    "import_learner_data",
    "learner_calibration",
    "list_lessons",
    "list_mastery",
    "list_self_assessments",
    "next_question",
    "progress_report",
    "put_self_assessment",
    "rate_attempt",
    "read_lesson",
    "redeem_link_code",
    "revlog_csv",
    "simulate",
    "start_session",
    "submit_attempt",
]

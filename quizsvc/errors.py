"""Name every way a use case can refuse a request, without knowing about HTTP or databases.

The use cases (``quizsvc.study``) raise these; ``quizsvc.http.errors`` is the one module that
maps each class to an HTTP status and the JSON error envelope, and the pages render the same
exception through the interface catalog. Each error carries:

- ``code``: the class's machine word (``not_found``, ``validation_error``, ...), the
  ``reason`` of an error that names none;
- ``reason``: a stable word for *why* (``unknown_session``, ``too_large``, ...);
- ``template``: one English sentence with ``%(name)s`` holes, marked ``N_`` where it is
  raised so that ``pybabel extract`` puts it in the catalog, and ``params`` to fill them;
- ``message``: the template filled, kept in the JSON envelope for API clients and logs.

A page shows ``gettext(template) % params`` (``quizsvc.http.language.message``), so it says the
same refusal in the learner's language without parsing English.
"""

from __future__ import annotations

from typing import Any


def N_(template: str) -> str:
    """Mark a message template for the catalog; it is translated where it is shown."""
    return template


def filled(template: str, params: dict[str, Any] | None) -> str:
    """Fill a template's ``%(name)s`` holes (a template always takes ``%%`` for a percent)."""
    return template % (params or {})


class ServiceError(Exception):
    """Base class of every refusal a use case reports to its caller."""

    code = "bad_request"

    def __init__(self, template: str, errors: dict[str, Any] | None = None, *,
                 reason: str | None = None, params: dict[str, Any] | None = None) -> None:
        self.template = template
        self.params = params or {}
        self.message = filled(template, self.params)
        super().__init__(self.message)
        self.errors = errors or {}
        self.reason = reason or self.code

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every attribute: a refusal raised in a pool process reaches the
        request that ran the job whole (``quizsvc.pool``)."""
        return _restored, (type(self), dict(self.__dict__))


def _restored(cls: type[ServiceError], state: dict[str, Any]) -> ServiceError:
    """Rebuild a pickled ``ServiceError`` of class ``cls`` from its attributes."""
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("message", ""))
    error.__dict__.update(state)
    return error


class NotFound(ServiceError):
    """Raise when a resource does not exist *for this learner* (never reveal whose it is)."""

    code = "not_found"


class Conflict(ServiceError):
    """Raise when a request is valid but the resource's state forbids it (e.g. re-rating)."""

    code = "conflict"


class Gone(ServiceError):
    """Raise when something existed but can no longer be used (a stale variant, a used code)."""

    code = "gone"


class Forbidden(ServiceError):
    """Raise when the caller may not do this (a missing credential or CSRF echo)."""

    code = "forbidden"


class Unauthorized(Forbidden):
    """Raise when a view needs a credential the request does not carry (an author token)."""

    code = "unauthorized"


class CsrfFailed(Forbidden):
    """Raise when a state-changing request lacks a matching double-submit CSRF token."""

    code = "csrf_failed"


class TooMany(ServiceError):
    """Raise when a learner already holds as many of something as one learner may."""

    code = "too_many"


class Unavailable(ServiceError):
    """Raise when the service cannot teach right now (no bank, database behind)."""

    code = "unavailable"


class Busy(Unavailable):
    """Raise when the costly-work pool is full, or a job outlived its time (503, Retry-After)."""

    code = "busy"


class Invalid(ServiceError):
    """Raise for a semantically invalid input: 422 naming the location and field.

    ``Invalid("answer", N_("expected %(length)s integers"), params={"length": 3},
    reason="vector_length")`` becomes ``errors = {"json": {"answer": ["expected 3 integers"]}}``
    and the message ``answer: expected 3 integers``. ``template`` is the reason alone: a page
    says it in its language under the box ``field`` names.
    """

    code = "validation_error"

    def __init__(self, field: str, template: str, location: str = "json", *,
                 reason: str | None = None, params: dict[str, Any] | None = None) -> None:
        detail = filled(template, params)
        super().__init__(template, {location: {field: [detail]}}, reason=reason or "invalid",
                         params=params)
        self.field = field
        self.location = location
        self.message = f"{field}: {detail}"
        self.args = (self.message,)

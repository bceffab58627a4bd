"""Give every request an id that its logs, its response header and its error body share.

An operator finds a learner's failed request by the id the learner can quote: the JSON error
envelope carries it as ``request_id``, the error pages show it, every response has it in
``X-Request-Id`` and every log line written while the request runs names it. A proxy or client
that already gave the request an id in ``X-Request-Id`` keeps it, when it is sane (1-128
letters, digits and ``._:+/=-``: nothing a header or a log line could be split by); otherwise
the service makes one (128 random bits in hex).
"""

from __future__ import annotations

import re
import secrets

from flask import Response, g, has_request_context, request

HEADER = "X-Request-Id"
SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+/=-]{0,127}")


def sane(candidate: str | None) -> bool:
    """Tell whether an incoming id may be kept (short, and only harmless characters)."""
    return bool(candidate) and SANE.fullmatch(candidate or "") is not None


def request_id() -> str | None:
    """Return this request's id, choosing it on first use (None outside a request)."""
    if not has_request_context():
        return None
    chosen: str | None = g.get("request_id")
    if chosen is None:
        incoming = request.headers.get(HEADER)
        chosen = incoming if incoming is not None and sane(incoming) else secrets.token_hex(16)
        g.request_id = chosen
    return chosen


def send_request_id(response: Response) -> Response:
    """Return the request's id to the client in ``X-Request-Id``."""
    response.headers[HEADER] = request_id() or ""
    return response

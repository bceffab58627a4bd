"""Refuse request text no database can store and JSON no handler should walk.

PostgreSQL rejects NUL characters in text and neither backend can encode a lone UTF-16
surrogate (JSON allows ``"\\ud800"``); both would otherwise fail deep in a query as a 500, and
only on one backend. JSON nested past ``MAX_JSON_DEPTH`` levels, numbers past Python's digit
limit and the non-JSON constants ``NaN``/``Infinity`` are refused at parse time for the same
reason. Everything here answers 422 naming the location (404 for a path: no id holds a NUL).
A chunked body (no Content-Length) that reaches ``MAX_CONTENT_LENGTH`` is a 413: werkzeug would
otherwise hand the view the first ``MAX_CONTENT_LENGTH`` bytes as if that were the whole body.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from flask import Flask, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from quizsvc.errors import N_, Invalid, NotFound

MAX_JSON_DEPTH = 32  # the deepest real body (an import document) nests 5 levels
FORM_MIMETYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
NUL_CHARACTER = "nul_character"  # what text_problem finds, also the Invalid's params["problem"]
LONE_SURROGATE = "lone_surrogate"
# JSON values with nothing in them to check, and the numbers (a float may be infinite).
PLAIN_SCALARS = frozenset({int, bool, type(None)})
NUMBERS = frozenset({int, bool, float})


def text_problem(text: str) -> str | None:
    """Return why ``text`` cannot be stored (``NUL_CHARACTER``, ``LONE_SURROGATE``), or None
    when it can."""
    if "\x00" in text:
        return NUL_CHARACTER
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return LONE_SURROGATE
    return None


def unstorable(field: str, problem: str, location: str, *, key: bool = False) -> Invalid:
    """Return the 422 for text that cannot be stored: a value's, or a JSON key's (``key``)."""
    if key:
        if problem == NUL_CHARACTER:
            return Invalid(field, N_("key contains a NUL character"), location=location,
                           reason="unstorable_key", params={"problem": problem})
        return Invalid(field, N_("key contains a lone UTF-16 surrogate (not Unicode text)"),
                       location=location, reason="unstorable_key", params={"problem": problem})
    if problem == NUL_CHARACTER:
        return Invalid(field, N_("contains a NUL character"), location=location,
                       reason="unstorable_text", params={"problem": problem})
    return Invalid(field, N_("contains a lone UTF-16 surrogate (not Unicode text)"),
                   location=location, reason="unstorable_text", params={"problem": problem})


def storable_at_once(items: list[Any]) -> bool:
    """Tell, with loops that run in C, that a list of plain values (only numbers, or only
    text) holds nothing to refuse; False also when it holds anything else, to be walked.

    Walked item by item, a body of the largest size a route takes held the worker's
    interpreter lock, and with it every other learner's request on that worker: the sandbox's
    65,536 prompt token ids for 29 ms, a megabyte of short strings for 185 ms. Joined, text
    hides no NUL and no lone surrogate, and makes none that its parts did not hold.
    """
    kinds = set(map(type, items))
    if kinds <= PLAIN_SCALARS:
        return True
    if kinds <= NUMBERS:
        return all(map(math.isfinite, items))
    return kinds == {str} and text_problem("".join(items)) is None


def check_json_value(value: Any, location: str = "json") -> None:
    """Raise ``Invalid`` if a parsed JSON value nests too deeply or holds unstorable text.

    A list of plain values is checked at once (``storable_at_once``); only one that holds
    something else, or something to refuse, is walked, to name the item.
    """
    stack: list[tuple[Any, str, int]] = [(value, "_schema", 1)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                raise unstorable(path, problem, location)
        elif isinstance(item, float) and not math.isfinite(item):  # 1e999 reads as infinity
            raise Invalid(path, N_("a number too large to store"), location=location,
                          reason="number_too_large")
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise Invalid("_schema", N_("nested deeper than %(max_depth)s levels"),
                              location=location, reason="too_deep",
                              params={"max_depth": MAX_JSON_DEPTH})
            if isinstance(item, list) and storable_at_once(item):
                continue
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                name = str(key) if path == "_schema" else f"{path}.{key}"
                key_problem = text_problem(key) if isinstance(key, str) else None
                if key_problem:
                    raise unstorable(name, key_problem, location, key=True)
                stack.append((child, name, depth + 1))


def refuse_constant(name: str) -> Any:
    """Refuse ``NaN`` and ``Infinity``: Python's json reads them, but they are not JSON."""
    raise Invalid("_schema", N_("%(constant)s is not a JSON number"), reason="not_json_number",
                  params={"constant": name})


def parse_json_body(data: bytes) -> Any:
    """Parse a request body as strict JSON, then check it with ``check_json_value``.

    Syntax errors stay ``json.JSONDecodeError`` (webargs answers them 400); a body nested so
    deeply that the parser recurses out, or a number with more digits than Python converts,
    is a 422 rather than an unhandled ``RecursionError``/``ValueError``.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError(f"Bytes decoding error : {error.reason}", doc=str(data[:80]),
                                   pos=error.start) from error
    try:
        value = json.loads(text, parse_constant=refuse_constant)
    except RecursionError:
        raise Invalid("_schema", N_("nested deeper than %(max_depth)s levels"),
                      reason="too_deep", params={"max_depth": MAX_JSON_DEPTH}) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer past sys.get_int_max_str_digits()
        raise Invalid("_schema", N_("a number has more than %(max_digits)s digits"),
                      reason="too_many_digits",
                      params={"max_digits": sys.get_int_max_str_digits()}) from None
    check_json_value(value)
    return value


def raw_headers_clean(environ: dict[str, Any]) -> bool:
    """Tell whether no header holds a NUL, reading the WSGI environ itself.

    WSGI hands headers over as latin-1 text, so a NUL is the one thing ``text_problem`` can
    find in them; this look costs a fraction of building ``request.headers`` on every
    request. Only a request that fails it gets the full check (which names the header).
    """
    return not any("\x00" in value for key, value in environ.items()
                   if key.startswith("HTTP_") and isinstance(value, str)) and not any(
        "\x00" in str(environ.get(key, "")) for key in ("CONTENT_TYPE", "CONTENT_LENGTH"))


def refuse_unstorable_request_text() -> None:
    """Check the path, query string, headers and form fields of every request for NUL."""
    req = request._get_current_object()  # type: ignore[attr-defined]
    if "\x00" in req.path:
        raise NotFound(N_("No such resource."), reason="unknown_resource")
    checks: list[tuple[str, Any]] = []
    if req.environ.get("QUERY_STRING"):
        checks.append(("query", req.args.items(multi=True)))
    if not raw_headers_clean(req.environ):
        checks.append(("headers", req.headers.items()))
    for location, pairs in checks:
        for key, value in pairs:
            problem = text_problem(key) or text_problem(value)
            if problem:
                raise unstorable(key, problem, location)
    if req.mimetype in FORM_MIMETYPES:
        for key, value in req.form.items(multi=True):
            problem = text_problem(key) or text_problem(value)
            if problem:
                raise unstorable(key, problem, "form")


# Endpoints whose bodies may be larger than MAX_CONTENT_LENGTH, and the setting that says how
# large: a learner's own export must always import back.
BODY_LIMITS = {"portability.Import": "IMPORT_MAX_CONTENT_LENGTH"}


def set_body_limit() -> None:
    """Give the endpoints of ``BODY_LIMITS`` their own body limit, before the body is read."""
    setting = BODY_LIMITS.get(request.endpoint or "")
    if setting is not None:
        request.max_content_length = current_app.config[setting]


def refuse_cut_chunked_body() -> None:
    """Refuse a chunked body that reaches ``MAX_CONTENT_LENGTH`` (413) instead of cutting it."""
    req = request._get_current_object()  # type: ignore[attr-defined]
    if req.content_length is not None:  # a body of declared length is never cut
        return
    limit = req.max_content_length
    if limit is None or "chunked" not in req.headers.get("Transfer-Encoding", "").lower():
        return
    if len(req.get_data(cache=True)) >= limit:
        raise RequestEntityTooLarge()


def init_app(app: Flask) -> None:
    """Install the body-size and request-text checks ahead of every other hook."""
    hooks = app.before_request_funcs.setdefault(None, [])
    hooks[0:0] = [set_body_limit, refuse_cut_chunked_body, refuse_unstorable_request_text]

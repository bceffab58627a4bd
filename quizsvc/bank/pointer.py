"""JSON Pointers (RFC 6901): how a numeric answer names the trace value it was read from."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def escape(token: str) -> str:
    """Escape one reference token (``~`` -> ``~0``, ``/`` -> ``~1``), in the RFC's order."""
    if "~" not in token and "/" not in token:
        return token
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo ``escape`` (``~1`` first, then ``~0``, as RFC 6901 section 4 requires)."""
    return token.replace("~1", "/").replace("~0", "~")


def build(tokens: Iterable[str | int]) -> str:
    """Join reference tokens into a pointer, escaping each one."""
    return "".join("/" + escape(str(token)) for token in tokens)


def resolve(document: Any, pointer: str) -> Any:
    """Return the value ``pointer`` names inside ``document``.

    Raises ``KeyError`` naming the pointer when a token does not exist, so that a template
    whose reference went stale fails loudly in ``quizsvc bank check`` instead of answering
    with a wrong number.
    """
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise KeyError(f"{pointer!r} is not a JSON Pointer (must start with '/')")
    value = document
    for raw in pointer[1:].split("/"):
        token = unescape(raw) if "~" in raw else raw
        if isinstance(value, dict):
            if token not in value:
                raise KeyError(f"{pointer}: no member {token!r}")
            value = value[token]
        elif isinstance(value, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
                raise KeyError(f"{pointer}: {token!r} is not an array index")
            index = int(token)
            if index >= len(value):
                raise KeyError(f"{pointer}: index {index} out of range")
            value = value[index]
        else:
            raise KeyError(f"{pointer}: cannot descend into a {type(value).__name__}")
    return value

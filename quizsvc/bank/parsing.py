"""Read a learner's raw answer: a JSON value, or text as typed, into the values a grader compares.

An answer that cannot be read (not a number, the wrong length, an unknown option) is refused
as the service refuses any field, with ``quizsvc.errors.Invalid`` on ``answer`` (a 422 that
costs the learner no attempt); every kind's grader (``quizsvc.bank.kinds``) reads its answers
with these functions, so the same mistake is refused in the same words whatever kind of
question it was made on. ``params["element"]`` (1-based) names the box of a vector answer a
refusal concerns, so a page can say it there.
"""

from __future__ import annotations

import json
import re
from typing import Any

from quizsvc.errors import N_, Invalid

INTEGER = re.compile(r"^[+-]?\d{1,18}$")
LONG_INTEGER = re.compile(r"^[+-]?\d{19,}$")


def unreadable(template: str, reason: str = "unreadable_answer",
               params: dict[str, Any] | None = None) -> Invalid:
    """Return the refusal of an answer that cannot be read: ``template`` is one English
    sentence marked ``N_`` where it is raised, ``reason`` a stable word for a catalog."""
    return Invalid("answer", template, reason=reason, params=params)


# A vector element's error says which element: one template per error parse_integer raises.
ELEMENT_TEMPLATES: dict[str, str] = {
    N_("expected an integer, got true/false"):
        N_("element %(element)s: expected an integer, got true/false"),
    N_("expected an integer, got %(got)s"):
        N_("element %(element)s: expected an integer, got %(got)s"),
    N_("too large: at most 18 digits"):
        N_("element %(element)s: too large: at most 18 digits"),
    N_("expected an integer, got nothing"):
        N_("element %(element)s: expected an integer, got nothing"),
}


def parse_integer(raw: Any) -> int:
    """Read one integer from a JSON number or a string such as ``" 12 "``."""
    if isinstance(raw, bool):
        raise unreadable(N_("expected an integer, got true/false"), "not_integer")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if raw.is_integer() and abs(raw) < 2**53:
            return int(raw)
        raise unreadable(N_("expected an integer, got %(got)s"), "not_integer",
                         {"got": repr(raw)})
    if isinstance(raw, str):
        text = raw.strip()
        if INTEGER.match(text):
            return int(text)
        if LONG_INTEGER.match(text):
            raise unreadable(N_("too large: at most 18 digits"), "too_large")
        if not text:
            raise unreadable(N_("expected an integer, got nothing"), "empty")
        raise unreadable(N_("expected an integer, got %(got)s"), "not_integer",
                         {"got": repr(raw[:40])})
    raise unreadable(N_("expected an integer, got %(got)s"), "not_integer",
                     {"got": type(raw).__name__})


def list_items(raw: Any, expected: str) -> Any:
    """Return ``raw`` as list items: a JSON list, a string holding one, or a string of items
    split on spaces, commas and semicolons (Chinese ones too). Shape checks are the caller's;
    unreadable JSON is refused with ``expected``, ``expected`` being the caller's ``N_``
    template (it takes no params)."""
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if not text.startswith("["):
        return [part for part in re.split(r"[\s,;，；、]+", text) if part]
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser walks
        raise unreadable(expected) from None


def parse_vector(raw: Any, length: int) -> list[int]:
    """Read a vector of ``length`` integers from a JSON list or a string like ``"1, 6, 1"``."""
    items = list_items(raw, N_("expected a list of integers like [1, 6, 1]"))
    if not isinstance(items, list):
        raise unreadable(N_("expected a list of integers like [1, 6, 1]"), "not_a_list")
    if len(items) != length:
        raise unreadable(N_("expected %(length)s integers, got %(got)s"), "vector_length",
                         {"length": length, "got": len(items)})
    values = []
    for index, item in enumerate(items):
        try:
            values.append(parse_integer(item))
        except Invalid as error:
            raise unreadable(ELEMENT_TEMPLATES[error.template], error.reason,
                             {**error.params, "element": index + 1}) from None
    return values


def parse_ids(raw: Any, known: set[str]) -> list[str]:
    """Read a list of option ids from a JSON list or a comma-separated string."""
    items = list_items(raw, N_("expected a list of option ids"))
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise unreadable(N_("expected a list of option ids"), "not_option_list")
    unknown = [item for item in items if item not in known]
    if unknown:
        raise unreadable(N_("unknown option %(option)s"), "unknown_option",
                         {"option": repr(unknown[0][:40])})
    if len(set(items)) != len(items):
        raise unreadable(N_("an option is listed twice"), "option_twice")
    return items


def parse_choice(raw: Any, known: set[str]) -> str:
    """Read one option id (a string, or a one-element list)."""
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str):
        raise unreadable(N_("expected one option id"), "one_option")
    choice = raw.strip()
    if choice not in known:
        raise unreadable(N_("unknown option %(option)s"), "unknown_option",
                         {"option": repr(choice[:40])})
    return choice

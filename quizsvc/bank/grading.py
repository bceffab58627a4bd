"""Grade a learner's raw answer against a variant, on the server, exactly.

Parsing and grading are separate on purpose: an answer that cannot be read (not a number,
the wrong length, an unknown option) is a ``parse_error`` and costs the learner no attempt;
an answer that can be read is graded exactly (integers), per element with partial credit
(vectors), or by option ids. Numeric and choice answers that match a named wrong model are
reported with that misconception.

Grading reads only a variant's ``AnswerKey`` (``grade_key``), so the service can grade from a
key it stored when it served the variant instead of rebuilding the variant.
"""

from __future__ import annotations

import json
import re
from typing import Any

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.model import Grade, Misconception, QuestionKind, Variant
from quizsvc.errors import N_, filled

MAX_TEXT = 20_000
INTEGER = re.compile(r"^[+-]?\d{1,18}$")
LONG_INTEGER = re.compile(r"^[+-]?\d{19,}$")
RATINGS = {"again": 1, "hard": 2, "good": 3, "easy": 4}


class ParseError(ValueError):
    """Say why a raw answer could not be read (shown to the learner, costs no attempt).

    ``template`` is one English sentence marked ``N_`` where it is raised, ``params`` fills
    its ``%(name)s`` holes and ``str(error)`` is the filled sentence; ``reason`` is a stable
    word for a catalog. ``params["element"]`` (1-based) names the box of a vector answer it
    concerns, so a page can say it there.
    """

    def __init__(self, template: str, reason: str = "unreadable_answer",
                 params: dict[str, Any] | None = None) -> None:
        self.template = template
        self.reason = reason
        self.params = dict(params or {})
        super().__init__(filled(template, self.params))


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
        raise ParseError(N_("expected an integer, got true/false"), "not_integer")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if raw.is_integer() and abs(raw) < 2**53:
            return int(raw)
        raise ParseError(N_("expected an integer, got %(got)s"), "not_integer",
                         {"got": repr(raw)})
    if isinstance(raw, str):
        text = raw.strip()
        if INTEGER.match(text):
            return int(text)
        if LONG_INTEGER.match(text):
            raise ParseError(N_("too large: at most 18 digits"), "too_large")
        if not text:
            raise ParseError(N_("expected an integer, got nothing"), "empty")
        raise ParseError(N_("expected an integer, got %(got)s"), "not_integer",
                         {"got": repr(raw[:40])})
    raise ParseError(N_("expected an integer, got %(got)s"), "not_integer",
                     {"got": type(raw).__name__})


def list_items(raw: Any, expected: str) -> Any:
    """Return ``raw`` as list items: a JSON list, a string holding one, or a string of items
    split on spaces, commas and semicolons (Chinese ones too). Shape checks are the caller's;
    unreadable JSON raises ``ParseError(expected)``, ``expected`` being the caller's ``N_``
    template (it takes no params)."""
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if not text.startswith("["):
        return [part for part in re.split(r"[\s,;，；、]+", text) if part]
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser walks
        raise ParseError(expected) from None


def parse_vector(raw: Any, length: int) -> list[int]:
    """Read a vector of ``length`` integers from a JSON list or a string like ``"1, 6, 1"``."""
    items = list_items(raw, N_("expected a list of integers like [1, 6, 1]"))
    if not isinstance(items, list):
        raise ParseError(N_("expected a list of integers like [1, 6, 1]"), "not_a_list")
    if len(items) != length:
        raise ParseError(N_("expected %(length)s integers, got %(got)s"), "vector_length",
                         {"length": length, "got": len(items)})
    values = []
    for index, item in enumerate(items):
        try:
            values.append(parse_integer(item))
        except ParseError as error:
            raise ParseError(ELEMENT_TEMPLATES[error.template], error.reason,
                             {**error.params, "element": index + 1}) from None
    return values


def parse_ids(raw: Any, known: set[str]) -> list[str]:
    """Read a list of option ids from a JSON list or a comma-separated string."""
    items = list_items(raw, N_("expected a list of option ids"))
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ParseError(N_("expected a list of option ids"), "not_option_list")
    unknown = [item for item in items if item not in known]
    if unknown:
        raise ParseError(N_("unknown option %(option)s"), "unknown_option",
                         {"option": repr(unknown[0][:40])})
    if len(set(items)) != len(items):
        raise ParseError(N_("an option is listed twice"), "option_twice")
    return items


def parse_choice(raw: Any, known: set[str]) -> str:
    """Read one option id (a string, or a one-element list)."""
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str):
        raise ParseError(N_("expected one option id"), "one_option")
    choice = raw.strip()
    if choice not in known:
        raise ParseError(N_("unknown option %(option)s"), "unknown_option",
                         {"option": repr(choice[:40])})
    return choice


def parse_rating(raw: Any) -> int:
    """Read a flashcard self-rating: 1-4 or again / hard / good / easy."""
    if isinstance(raw, str) and raw.strip().lower() in RATINGS:
        return RATINGS[raw.strip().lower()]
    try:
        rating = parse_integer(raw)
    except ParseError:
        raise ParseError(N_("expected a rating: again, hard, good or easy (1-4)"),
                         "not_a_rating") from None
    if not 1 <= rating <= 4:
        raise ParseError(N_("a rating is 1 (again) to 4 (easy)"), "rating_range")
    return rating


def _matching(key: AnswerKey, answer: Any) -> Misconception | None:
    for misconception in key.misconceptions:
        if misconception.answer == answer:
            return misconception
    return None


def grade(variant: Variant, raw: Any) -> Grade:
    """Grade ``raw`` (what a client sent: a JSON value or a string) against ``variant``.

    A variant is graded through its answer key, so grading from a built variant and from a
    stored key cannot drift apart.
    """
    return grade_key(AnswerKey.from_variant(variant), raw)


def grade_key(key: AnswerKey, raw: Any) -> Grade:
    """Grade ``raw`` against a variant's answer key, without rebuilding the variant."""
    try:
        return _grade(key, raw)
    except ParseError as error:
        return Grade(correct=False, score=0.0, parse_template=error.template,
                     parse_reason=error.reason, parse_params=error.params)


def _grade(key: AnswerKey, raw: Any) -> Grade:
    kind = key.kind
    option_ids = set(key.option_ids)
    if kind is QuestionKind.NUMERIC:
        if key.input_type == "vector":
            values = parse_vector(raw, key.length or 0)
            per_element = tuple(v == a for v, a in zip(values, key.answer, strict=True))
            score = sum(per_element) / len(per_element)
            correct = all(per_element)
            wrong = None if correct else _matching(key, values)
            return Grade(correct, score, misconception=wrong, per_element=per_element)
        value = parse_integer(raw)
        correct = value == key.answer
        wrong = None if correct else _matching(key, value)
        return Grade(correct, 1.0 if correct else 0.0, misconception=wrong)
    if kind in (QuestionKind.CHOICE, QuestionKind.ANCHOR):
        choice = parse_choice(raw, option_ids)
        correct = choice == key.answer
        wrong = None if correct else _matching(key, choice)
        return Grade(correct, 1.0 if correct else 0.0, misconception=wrong)
    if kind is QuestionKind.MULTI:
        chosen = set(parse_ids(raw, option_ids))
        expected = set(key.answer)
        hits = len(chosen & expected)
        false_picks = len(chosen - expected)
        score = max(0.0, (hits - false_picks) / len(expected))
        correct = chosen == expected
        wrong = None
        if not correct:
            wrong = next((m for m in key.misconceptions if m.answer in chosen), None)
        return Grade(correct, score, misconception=wrong)
    if kind is QuestionKind.ORDER:
        order = parse_ids(raw, option_ids)
        if len(order) != len(key.answer):
            raise ParseError(N_("expected all %(count)s items in order"), "order_incomplete",
                             {"count": len(key.answer)})
        per_element = tuple(a == b for a, b in zip(order, key.answer, strict=True))
        return Grade(all(per_element), sum(per_element) / len(per_element), per_element=per_element)
    if kind is QuestionKind.FLASHCARD:
        rating = parse_rating(raw)
        return Grade(rating >= 2, (rating - 1) / 3, graded=False)
    if kind is QuestionKind.EXPLAIN:
        if not isinstance(raw, str) or not raw.strip():
            raise ParseError(N_("expected a non-empty explanation"), "empty")
        if len(raw) > MAX_TEXT:
            raise ParseError(N_("an explanation is at most %(max)s characters"), "too_long",
                             {"max": MAX_TEXT})
        return Grade(False, 0.0, graded=False)
    raise ParseError(N_("cannot grade a %(kind)s question"), "unknown_kind",
                     {"kind": f"{kind}"})

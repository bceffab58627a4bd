"""Say the service's values as the pages show them: pure functions of values and a language.

Nothing here reads the request: a page view passes the language (``http.language.current_lang``)
and the query words it read, so each of these can be tested without an app or a request. The
catalog (Flask-Babel's ``gettext``) says English outside a request and the request's language
inside one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask_babel import gettext

from quizsvc.bank.catalog import ModelStep
from quizsvc.bank.kinds.form import position_field, vector_field
from quizsvc.http.language import message
from quizsvc.web import labels


def when(moment: datetime | None) -> str:
    """Format a UTC time for the pages (the service keeps every time in UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def grouped(code: str, size: int = 4) -> str:
    """Show a link code in groups of four for reading aloud (``6LFU-F59G-QZKL``); the dashes
    are dropped again when it is entered."""
    return "-".join(code[i:i + size] for i in range(0, len(code), size))


def text_in(value: Any, lang: str) -> str:
    """Return a bank ``Text`` (or a plain string) in ``lang``."""
    if value is None:
        return ""
    getter = getattr(value, "get", None)
    if callable(getter) and hasattr(value, "zh"):
        return str(getter(lang))
    return str(value)


def field_id(name: str) -> str:
    """Return the HTML id of a simulator field (ids avoid the dots of ``A.num_tokens``)."""
    return "f-" + name.replace(".", "-")


def rated_attempt(raw: str) -> int | None:
    """Read the attempt just rated from ``?rated=`` (its rating the page offers to undo)."""
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


def answer_text(value: Any, served: Any, lang: str) -> str:
    """Show an answer value: option texts for option ids, labels beside vector elements."""
    options = {o.id: text_in(o.text, lang) for o in served.input.options} if served else {}
    boxes = list(served.input.labels) if served else []
    if isinstance(value, list):
        if served and served.input.type == "order":
            return " → ".join(f"{i}. {options.get(str(item), str(item))}"
                              for i, item in enumerate(value, start=1))
        if boxes and len(boxes) == len(value):
            return " · ".join(f"{label} = {item}" for label, item in zip(boxes, value,
                                                                          strict=True))
        return ", ".join(options.get(str(item), str(item)) for item in value)
    if isinstance(value, str) and value in options:
        return options[value]
    return "" if value is None else str(value)


def compare_rows(yours: Any, real: Any, served: Any) -> list[tuple[str, Any, Any]]:
    """Pair a numeric answer with the scheduler's, element by element, under the answer
    boxes' labels (empty for answers that are not numbers)."""
    if served is None or served.input.type not in ("integer", "vector"):
        return []
    if served.input.type == "integer":
        return [(gettext("Value"), yours, real)]
    if not (isinstance(yours, list) and isinstance(real, list) and len(yours) == len(real)):
        return []
    boxes = list(served.input.labels) or [str(i) for i in range(1, len(real) + 1)]
    return list(zip(boxes, yours, real, strict=False))


def model_cells(step: ModelStep, rows: Sequence[Sequence[str]]) -> list[list[tuple[str, bool]]]:
    """Mark each cell of a step table that differs from the real run's row of that request
    (the real table itself has none marked)."""
    real = {row[0]: row for row in step.real}
    marked = []
    for row in rows:
        same = real.get(row[0])
        marked.append([(cell, same is None or same[i] != cell) for i, cell in enumerate(row)])
    return marked


def model_differences(step: ModelStep) -> list[tuple[str, str, str, str]]:
    """List the cells where a wrong model's step differs from vLLM's, as (request, column,
    vLLM's value, the model's value): the few numbers that matter, side by side, which fit
    a phone where the two whole tables (folded below them) cannot."""
    real = {row[0]: row for row in step.real}
    found = []
    for row in step.wrong:
        same = real.get(row[0])
        for index, cell in enumerate(row[1:], start=1):
            vllm = same[index] if same is not None else gettext("—")
            if vllm != cell:
                found.append((row[0], step.header[index], vllm, cell))
    return found


@dataclass(frozen=True)
class AnswerProblem:
    """Why an answer could not be read, placed where the learner typed it: the form field
    (``box``), its label as the page shows it, and the reason in the page's language."""

    box: str
    label: str
    message: str


def answer_problem(served: Any, field: str, template: str, reason: str | None,
                   params: dict[str, Any] | None, lang: str) -> AnswerProblem:
    """Place a refused answer's reason under the box it concerns.

    A vector's element (``params["element"]``) is its box; an order question's position
    field its select; anything else the answer as a whole (its first box). The page says
    the reason in the learner's words when ``labels.ANSWER_REASONS`` has its stable word,
    else the service's own template, both through the catalog.
    """
    params = params or {}
    boxes = list(served.input.labels)
    element = params.get("element")
    if served.input.type == "vector" and isinstance(element, int) and 1 <= element <= len(
            boxes or range(served.input.length or 0)):
        box = vector_field(element - 1)
        label = boxes[element - 1] if boxes else str(element)
    elif field.startswith("position."):
        box = field
        option = next((o for o in served.input.options if position_field(o.id) == field), None)
        label = text_in(option.text, lang) if option else field
    else:
        box = "answer"
        label = gettext("Your answer")
    words = labels.ANSWER_REASONS.get(reason or "")
    said_here = str(words) % params if words is not None else message(template, params)
    return AnswerProblem(box, label, said_here)

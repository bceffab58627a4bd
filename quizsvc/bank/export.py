"""Turn variants into JSON-able dicts and parse seed ranges, for export and for the API.

``variant_to_dict(variant)`` reveals everything (answer, solution, misconceptions, scenario);
``variant_to_dict(variant, reveal=False)`` keeps only what a learner may see before grading.
Both carry the ids of the rules the question tests and the form the variant was drawn from.
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank.errors import BankError
from quizsvc.bank.model import Grade, Misconception, Option, Text, Variant

MAX_SEEDS = 100_000


def text_dict(text: Text) -> dict[str, str]:
    """Return a ``Text`` as ``{"zh": ..., "en": ...}``."""
    return {"zh": text.zh, "en": text.en}


def option_dict(option: Option) -> dict[str, Any]:
    """Return an option as ``{"id", "text"}``."""
    return {"id": option.id, "text": text_dict(option.text)}


def misconception_dict(misconception: Misconception) -> dict[str, Any]:
    """Return a named wrong model and its answer."""
    return {
        "id": misconception.id,
        "name": text_dict(misconception.name),
        "answer": misconception.answer,
    }


def variant_to_dict(variant: Variant, reveal: bool = True) -> dict[str, Any]:
    """Return a variant as a JSON-able dict; ``reveal=False`` leaves out everything graded."""
    body: dict[str, Any] = {
        "question_id": variant.question_id,
        "seed": variant.seed,
        "bank_version": variant.bank_version,
        "kind": str(variant.kind),
        "prompt": text_dict(variant.prompt),
        "params": variant.params,
        "input": {
            "type": variant.input.type,
            "length": variant.input.length,
            "labels": list(variant.input.labels),
            "options": [option_dict(o) for o in variant.input.options],
        },
        "lesson_link": variant.lesson_link,
        "rules": list(variant.rules),
        "form": variant.form,
    }
    if reveal:
        body["answer"] = variant.answer
        body["solution"] = text_dict(variant.solution)
        body["misconceptions"] = [misconception_dict(m) for m in variant.misconceptions]
        if variant.scenario is not None:
            body["scenario"] = variant.scenario
            body["answer_ref"] = list(variant.answer_ref)
    return body


def grade_to_dict(grade: Grade) -> dict[str, Any]:
    """Return a grade as a JSON-able dict."""
    return {
        "correct": grade.correct,
        "score": grade.score,
        "misconception": misconception_dict(grade.misconception) if grade.misconception else None,
        "per_element": list(grade.per_element),
    }


def parse_seeds(spec: str) -> list[int]:
    """Parse ``"0-99"``, ``"7"`` or ``"1,3,10-12"`` into a sorted list of distinct seeds."""
    seeds: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            raise BankError("seeds", "seeds", f"empty item in {spec!r}")
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise BankError("seeds", "seeds", f"{part!r} is not N or N-M with N, M >= 0")
        low, high = int(first), int(last) if last else int(first)
        if low > high:
            raise BankError("seeds", "seeds", f"{part!r} runs backwards")
        if high - low + 1 + len(seeds) > MAX_SEEDS:
            raise BankError("seeds", "seeds", f"at most {MAX_SEEDS} seeds at a time")
        seeds.update(range(low, high + 1))
    return sorted(seeds)

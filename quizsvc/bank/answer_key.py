"""Seal what grading and the reveal need of one variant into a small JSON answer key.

Grading used to rebuild the variant, and rebuilding a numeric variant replays the ledger, in
whichever worker receives the answer (its caches cold). The service instead builds the key
once when it serves the variant, stores it beside the served row, and later grades
(``grading.grade_key``) and reveals from it without the bank's generators.

A key holds the answer, so it stays on the server exactly like the variant's answer does. It
holds nothing the client sees before answering (prompt, displayed parameters, labels, option
texts) and nothing grading does not read (seed, scenario, answer pointers).

The JSON carries a format version ``v``. ``from_json`` refuses any other version, and any text
it cannot read back exactly, with ``ValueError``: the caller then rebuilds the variant. JSON
has no tuples, so a tuple inside an answer is written as ``{"tuple": [...]}``; grading compares
answers with ``==``, where ``(1, 2) != [1, 2]``, and the round trip must not change a verdict.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizsvc.bank.kinds import KINDS, Kind
from quizsvc.bank.model import Misconception, Text, Variant

FORMAT_VERSION = 1
TUPLE = "tuple"
KEYS = frozenset(
    {"v", "kind", "bank_version", "input", "answer", "solution", "misconceptions", "lesson_link"}
)
INPUT_KEYS = frozenset({"type", "length", "options"})
MISCONCEPTION_KEYS = frozenset({"id", "name", "answer"})
TEXT_KEYS = frozenset({"zh", "en"})


@dataclass(frozen=True)
class AnswerKey:
    """Hold everything grading and the reveal need of one variant, and nothing else.

    ``input_type``, ``length`` and ``option_ids`` are the parts of the variant's
    ``AnswerInput`` the parser reads; ``bank_version`` lets ``Bank.grade_key`` refuse a key
    of another bank exactly as ``Bank.grade`` refuses such a variant.
    """

    kind: str
    bank_version: str
    input_type: str
    length: int | None
    option_ids: tuple[str, ...]
    answer: Any
    solution: Text
    misconceptions: tuple[Misconception, ...] = ()
    lesson_link: str = ""

    @classmethod
    def from_variant(cls, variant: Variant) -> AnswerKey:
        """Take the answer key out of a built variant."""
        return cls(
            kind=variant.kind,
            bank_version=variant.bank_version,
            input_type=variant.input.type,
            length=variant.input.length,
            option_ids=tuple(option.id for option in variant.input.options),
            answer=variant.answer,
            solution=variant.solution,
            misconceptions=variant.misconceptions,
            lesson_link=variant.lesson_link,
        )

    def to_json(self) -> str:
        """Write the key as compact, deterministic JSON (``ValueError`` if it cannot be).

        Answers may hold None, booleans, integers, strings, finite floats, lists and tuples:
        the values that survive the round trip with ``==`` (and type) unchanged.
        """
        body = {
            "v": FORMAT_VERSION,
            "kind": str(self.kind),
            "bank_version": self.bank_version,
            "input": {
                "type": self.input_type,
                "length": self.length,
                "options": list(self.option_ids),
            },
            "answer": pack(self.answer),
            "solution": {"zh": self.solution.zh, "en": self.solution.en},
            "misconceptions": [
                {"id": m.id, "name": {"zh": m.name.zh, "en": m.name.en}, "answer": pack(m.answer)}
                for m in self.misconceptions
            ],
            "lesson_link": self.lesson_link,
        }
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_json(cls, text: str, kinds: Mapping[str, Kind] = KINDS) -> AnswerKey:
        """Read a key written by ``to_json``; raise ``ValueError`` for anything else.

        Anything else includes another format version, so a stored key of an older format is
        refused rather than misread: rebuild the variant instead. So is a kind that ``kinds``
        does not hold.
        """
        try:
            data = json.loads(text, parse_constant=refuse_constant)
        except (TypeError, ValueError) as error:  # JSONDecodeError is a ValueError
            raise ValueError(f"answer key: not JSON ({error})") from None
        if type(data) is not dict:
            raise ValueError("answer key: expected a JSON object")
        version = data.get("v")
        if type(version) is not int or version != FORMAT_VERSION:
            raise ValueError(f"answer key: unknown format version {version!r}")
        data = fields(data, KEYS, "key")
        shape = fields(data["input"], INPUT_KEYS, "input")
        length = shape["length"]
        if length is not None:
            length = typed(length, int, "input.length")
        options = typed(shape["options"], list, "input.options")
        misconceptions = []
        for index, item in enumerate(typed(data["misconceptions"], list, "misconceptions")):
            entry = fields(item, MISCONCEPTION_KEYS, f"misconceptions[{index}]")
            misconceptions.append(Misconception(
                typed(entry["id"], str, f"misconceptions[{index}].id"),
                read_text(entry["name"], f"misconceptions[{index}].name"),
                unpack(entry["answer"]),
            ))
        kind = kinds.get(typed(data["kind"], str, "kind"))
        if kind is None:
            raise ValueError(f"answer key: unknown kind {data['kind']!r}")
        return cls(
            kind=kind.name,
            bank_version=typed(data["bank_version"], str, "bank_version"),
            input_type=typed(shape["type"], str, "input.type"),
            length=length,
            option_ids=tuple(typed(o, str, "input.options[]") for o in options),
            answer=unpack(data["answer"]),
            solution=read_text(data["solution"], "solution"),
            misconceptions=tuple(misconceptions),
            lesson_link=typed(data["lesson_link"], str, "lesson_link"),
        )


def pack(value: Any) -> Any:
    """Turn an answer into JSON-ready data, tagging tuples; refuse what would not come back."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise ValueError(f"answer key: cannot seal the float {value!r}")
        return value
    if type(value) is list:
        return [pack(item) for item in value]
    if type(value) is tuple:
        return {TUPLE: [pack(item) for item in value]}
    raise ValueError(f"answer key: cannot seal a {type(value).__name__} answer")


def unpack(data: Any) -> Any:
    """Turn ``pack``'s output back into the answer it came from."""
    if data is None or type(data) in (bool, int, str, float):
        return data
    if type(data) is list:
        return [unpack(item) for item in data]
    if type(data) is dict and data.keys() == {TUPLE} and type(data[TUPLE]) is list:
        return tuple(unpack(item) for item in data[TUPLE])
    raise ValueError(f"answer key: unreadable answer value {str(data)[:80]!r}")


def fields(value: Any, keys: frozenset[str], where: str) -> dict[str, Any]:
    """Return ``value`` if it is a JSON object with exactly ``keys``, else raise."""
    if type(value) is not dict or value.keys() != keys:
        raise ValueError(f"answer key: {where} must be an object with keys {sorted(keys)}")
    return value


def typed(value: Any, kind: type, where: str) -> Any:
    """Return ``value`` if it is exactly of type ``kind`` (so true is no integer), else raise."""
    if type(value) is not kind:
        raise ValueError(f"answer key: {where} must be a {kind.__name__}")
    return value


def read_text(value: Any, where: str) -> Text:
    """Read a ``{"zh": ..., "en": ...}`` object as ``Text``."""
    both = fields(value, TEXT_KEYS, where)
    return Text(typed(both["zh"], str, f"{where}.zh"), typed(both["en"], str, f"{where}.en"))


def refuse_constant(name: str) -> Any:
    """Refuse NaN and Infinity, which ``to_json`` never writes."""
    raise ValueError(f"answer key: unexpected {name}")

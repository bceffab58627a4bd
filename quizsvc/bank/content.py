"""Name a variant by what it asks, not by its seed: two seeds may show the very same thing.

A choice question whose options are only reshuffled per seed asks the same thing under every
seed; a numeric template asks something new whenever its numbers change. The mastery policy
wants recall on *different content*, so it compares these keys instead of seeds: the prompt,
the displayed parameters, the answer's shape, the option texts (in no particular order) and
the answer written as option texts (so a reshuffle that renames nothing changes nothing).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from quizsvc.bank.model import Text, Variant


def text_pair(text: Text) -> list[str]:
    """Return a bank text as [zh, en]."""
    return [text.zh, text.en]


def answer_as_texts(variant: Variant) -> Any:
    """Return the answer with option ids replaced by their texts (sets sorted)."""
    texts = {option.id: text_pair(option.text) for option in variant.input.options}
    answer = variant.answer
    if not texts:
        return answer
    if isinstance(answer, list):
        shown = [texts.get(str(item), item) for item in answer]
        return shown if variant.input.type == "order" else sorted(shown, key=json.dumps)
    return texts.get(str(answer), answer)


def content_key(variant: Variant) -> str:
    """Return a short stable key of what ``variant`` asks and expects (sha256, 32 hex)."""
    content = {
        "question": variant.question_id,
        "kind": str(variant.kind),
        "prompt": text_pair(variant.prompt),
        "params": variant.params,
        "input": [variant.input.type, variant.input.length, list(variant.input.labels)],
        "options": sorted((text_pair(option.text) for option in variant.input.options),
                          key=json.dumps),
        "answer": answer_as_texts(variant),
    }
    encoded = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                         default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()[:32]

"""Name a variant by what it asks and answers, not by its seed: two seeds may ask one thing.

A choice question whose options are only reshuffled per seed asks the same thing under every
seed; a numeric template asks something new whenever its numbers change. The mastery policy
wants recall on *different content*, and what leaves the server must never answer what is
served, so both compare these keys instead of seeds: the prompt, the displayed parameters,
the answer's shape and the answer written as option texts. The wrong options drawn beside the
right one are left out on purpose: a learner who once read that "C counts the drafts" is
the right statement recognises it among any other distractors, so another draw of wrong
options is not another question.

``distinct_contents`` counts the contents a question can serve: a concept check with only a
few can be covered by a few throwaway reveals, so ``bank check`` holds every question of a
varied kind (``quizsvc.bank.kinds.VARIED``: choice, multi, order) to at least
``MIN_DISTINCT_CONTENTS`` contents the service serves.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from quizsvc.bank.model import Text, Variant

if TYPE_CHECKING:
    from quizsvc.bank.catalog import Bank

CONTENT_SEEDS = 2000  # seeds 0..1999: many more than a learner is served of one question
MIN_DISTINCT_CONTENTS = 12  # below this, a concept check is never mastered on its own


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
        "answer": answer_as_texts(variant),
    }
    encoded = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                         default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()[:32]


def contents(bank: Bank, question_id: str, seeds: Iterable[int] | None = None
             ) -> frozenset[str]:
    """Return the distinct contents (content keys) that ``seeds`` of a question serve.

    ``seeds`` defaults to 0..``CONTENT_SEEDS`` - 1, whose contents are remembered per bank
    version (a version names the bank's content and the ledger's code, so they cannot go
    stale). Variants are built without the bank's variant cache, so counting thousands of
    seeds does not push out the variants being served. Cheap for concept checks; a numeric
    template replays the ledger for every seed.
    """
    entry = bank.entry(question_id)
    if seeds is not None:
        return frozenset(content_key(bank.make_variant(entry, seed)) for seed in seeds)
    key = (bank.version, question_id)
    with _CONTENTS_LOCK:
        known = _CONTENTS.get(key)
    if known is None:
        known = contents(bank, question_id, range(CONTENT_SEEDS))
        with _CONTENTS_LOCK:
            _CONTENTS[key] = known
    return known


def distinct_contents(bank: Bank, question_id: str, seeds: Iterable[int] | None = None) -> int:
    """Count the distinct contents that ``seeds`` of a question serve (see ``contents``)."""
    return len(contents(bank, question_id, seeds))


_CONTENTS: dict[tuple[str, str], frozenset[str]] = {}
_CONTENTS_LOCK = threading.Lock()

"""Keep what leaves the server with its answer apart from what the service serves closed-book.

An Anki deck, a printed worksheet and an LMS export carry answers. If one of their variants
asked the same thing as a variant the service serves closed-book, a learner holding the deck
would answer it from the deck. Reserving seeds is not enough: two seeds can ask the very same
thing (a choice question with a few forms, a numeric template whose numbers repeat). So the
partition is by *content* (``quizsvc.bank.content.content_key``, what a variant asks):

- one content in ``PUBLISHED_SHARE`` is *published*: only decks, worksheets and exports draw it,
  always at seeds from ``PUBLISHED_SEEDS`` (a range the service's draws never reach);
- every other content is *servable*: only the service serves it.

A question whose contents are few cannot spare any (one form, a choice with three): it
*publishes nothing* and stays out of decks, worksheets and exports, and every content it has
is servable. Computed (numeric) templates always publish: their contents are countless.
Self-rated questions (flashcards, explanations) are never graded closed-book, so they need no
partition.

Pure functions of the bank: the same bank gives the same partition on every server.
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank.content import CONTENT_SEEDS, content_key, contents
from quizsvc.bank.errors import BankError
from quizsvc.bank.model import Question, Variant

SERVED_SEED_BITS = 48  # the service draws its seeds from [0, 2**48)
PUBLISHED_SEEDS = range(2**SERVED_SEED_BITS, 2**(SERVED_SEED_BITS + 1))
PUBLISHED_SHARE = 8  # one content in eight is kept for what leaves the server
# A question publishes only when it has at least this many distinct contents, so the share it
# gives up still leaves it many to serve (``bank check`` holds the rest to
# ``content.MIN_DISTINCT_CONTENTS``).
MIN_PUBLISHING_CONTENTS = 16
MAX_PUBLISHED_TRIES = 64  # seeds tried per published variant before giving up


def published(key: str) -> bool:
    """Tell whether a content (its ``content_key``) is reserved for what leaves the server."""
    return int(key[:8], 16) % PUBLISHED_SHARE == 0


def has_contents(bank: Any, question_id: str, enough: int) -> bool:
    """Tell whether a question asks at least ``enough`` different things over the seeds
    ``content.contents`` counts, stopping as soon as it has seen that many (a few dozen
    seeds for a question with a pool, instead of the thousands an exact count reads)."""
    entry = bank.entry(question_id)
    seen: set[str] = set()
    for seed in range(CONTENT_SEEDS):
        seen.add(content_key(bank.make_variant(entry, seed)))
        if len(seen) >= enough:
            return True
    return False


class Publication:
    """Say, for one bank, which questions publish and which of their variants may be served.

    The count behind ``publishes`` is taken once per question, on first use.
    """

    def __init__(self, bank: Any) -> None:
        self.bank = bank
        self._publishes: dict[str, bool] = {}

    def publishes(self, question: Question) -> bool:
        """Tell whether ``question`` gives some of its contents to decks and exports."""
        found = self._publishes.get(question.id)
        if found is None:
            kind = self.bank.kinds[question.kind]
            found = kind.computed or (kind.graded and kind.varied
                                      and has_contents(self.bank, question.id,
                                                       MIN_PUBLISHING_CONTENTS))
            self._publishes[question.id] = found
        return found

    def servable_contents(self, question: Question) -> int:
        """Count the contents of a concept check the service may serve (over the seeds
        ``content.contents`` counts)."""
        keys = contents(self.bank, question.id)
        if not self.publishes(question):
            return len(keys)
        return sum(not published(key) for key in keys)

    def servable(self, question: Question, variant: Variant) -> bool:
        """Tell whether the service may serve ``variant`` of ``question`` closed-book."""
        return not (self.publishes(question) and published(content_key(variant)))

    def variants(self, question: Question, count: int, start: int = 0) -> list[Variant]:
        """Return up to ``count`` published variants of ``question``, at published seeds.

        Seeds are tried in order from ``PUBLISHED_SEEDS[start]``, so the same arguments give
        the same variants; distinct contents only. Empty when the question publishes nothing.
        """
        if count <= 0 or not self.publishes(question):
            return []
        found: dict[str, Variant] = {}
        for offset in range(start, start + count * MAX_PUBLISHED_TRIES):
            try:
                variant = self.bank.variant(question.id, PUBLISHED_SEEDS[offset])
            except BankError:
                continue
            key = content_key(variant)
            if published(key) and key not in found:
                found[key] = variant
                if len(found) == count:
                    break
        return list(found.values())

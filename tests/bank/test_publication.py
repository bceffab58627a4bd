"""What leaves the server with its answer and what the service serves closed-book never meet.

Over every graded question of the real bank and every content it asks: a content is either
kept for decks, worksheets and exports, or served, never both; published variants come only
from seeds the service never draws; and the service's own draw never serves a published one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from quizsvc.bank import load_bank
from quizsvc.bank.content import content_key, contents, distinct_contents
from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import QuestionKind
from quizsvc.bank.publication import (
    MIN_PUBLISHING_CONTENTS,
    PUBLISHED_SEEDS,
    SERVED_SEED_BITS,
    Publication,
    published,
)
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context
from quizsvc.study.limits import Limits
from quizsvc.study.serving import draw_variant


@pytest.fixture(scope="module")
def bank() -> Any:
    return load_bank()


@pytest.fixture(scope="module")
def publication(bank: Any) -> Publication:
    return Publication(bank)


def graded(bank: Any) -> list[Any]:
    return [q for q in bank.questions.values() if q.kind in GRADED]


def test_the_seeds_kept_for_publication_lie_beyond_every_seed_the_service_draws() -> None:
    assert PUBLISHED_SEEDS.start == 2**SERVED_SEED_BITS
    assert len(PUBLISHED_SEEDS) >= 2**SERVED_SEED_BITS


def test_every_content_of_every_concept_check_is_published_or_served_never_both(
        bank: Any, publication: Publication) -> None:
    """A test over every question and form (``content.CONTENT_SEEDS`` seeds reach every one):
    the service serves exactly the contents not kept for publication, and publication takes
    only contents the service never serves."""
    for question in graded(bank):
        if question.kind is QuestionKind.NUMERIC:
            continue
        publishes = publication.publishes(question)
        assert publishes == (len(contents(bank, question.id)) >= MIN_PUBLISHING_CONTENTS)
        kept = {content_key(v) for v in publication.variants(question, 50)}
        served = 0
        for seed in range(400):
            variant = bank.variant(question.id, seed)
            key = content_key(variant)
            servable = publication.servable(question, variant)
            assert servable == (not (publishes and published(key))), (question.id, key)
            assert not (servable and key in kept), question.id
            served += servable
        assert served, question.id  # every question still serves something
        if publishes:  # it gives some to decks and still serves many
            assert kept and publication.servable_contents(question) >= 12, question.id


def test_published_variants_come_from_published_seeds_and_published_contents(
        bank: Any, publication: Publication) -> None:
    for question in graded(bank):
        variants = publication.variants(question, 3)
        if not publication.publishes(question):
            assert variants == [], question.id
            continue
        assert variants, question.id
        for variant in variants:
            assert variant.seed in PUBLISHED_SEEDS
            assert published(content_key(variant))
            assert not publication.servable(question, variant)


def test_the_service_never_draws_a_published_content(bank: Any,
                                                     publication: Publication) -> None:
    """The serving path's own draw, with a seeded source, over every graded question."""
    from datetime import UTC, datetime

    ctx = Context(uow=None, bank=bank, index=BankIndex.of(bank), identity=None,  # type: ignore[arg-type]
                  now=datetime(2026, 12, 1, tzinfo=UTC), rng=random.Random(20),
                  limits=Limits())
    for question in graded(bank):
        kept = {content_key(v) for v in publication.variants(question, 8)}
        draws = 60 if question.kind is QuestionKind.NUMERIC else 200
        for _ in range(draws):
            seed, variant = draw_variant(ctx, question)
            assert seed < 2**SERVED_SEED_BITS
            key = content_key(variant)
            assert key not in kept, question.id
            assert not (publication.publishes(question) and published(key)), question.id


def test_a_question_too_small_to_spare_a_content_publishes_nothing(bank: Any) -> None:
    publication = Publication(bank)
    small = [q for q in graded(bank) if q.kind is not QuestionKind.NUMERIC
             and distinct_contents(bank, q.id) < MIN_PUBLISHING_CONTENTS]
    assert small  # the anchor questions ask one thing each
    for question in small:
        assert not publication.publishes(question)
        assert all(publication.servable(question, bank.variant(question.id, seed))
                   for seed in range(20))

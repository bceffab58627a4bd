"""FORMAT.md's speculative-method table, row by row: the draft_slots each method charges."""

from __future__ import annotations

import pytest

from quizsvc.ledger import LedgerConfig
from quizsvc.ledger.config import draft_slots_for


@pytest.mark.parametrize(
    ("spec_method", "k", "draft_slots"),
    [
        ("ngram", 3, 0),
        ("draft_model", 3, 1),
        ("draft_model_parallel", 3, 3),
        ("eagle", 3, 0),
        ("eagle_parallel", 3, 2),
        ("eagle_parallel", 2, 1),
        ("draft_model", 0, 0),
        ("draft_model_parallel", 0, 0),
    ],
)
def test_each_method_charges_the_draft_slots_of_its_row(spec_method: str, k: int,
                                                         draft_slots: int) -> None:
    assert draft_slots_for(spec_method, k) == draft_slots
    config = LedgerConfig(spec_method=spec_method, num_speculative_tokens=k)
    assert config.draft_slots == draft_slots

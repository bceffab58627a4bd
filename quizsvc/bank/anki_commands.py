"""Offer ``quizsvc export anki``: write a lesson's Anki package (.apkg) from the bank.

No database is involved: the deck comes from the bank alone. The clock is read once, here, to
stamp the notes (``quizsvc.bank.anki.package``).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quizsvc.bank.anki import LANG_MODES, build_deck, package
from quizsvc.bank.catalog import read_bank
from quizsvc.bank.errors import BankError


def run_anki(args: argparse.Namespace) -> int:
    """Build the deck and write it to ``--out``; print what it holds."""
    try:
        deck = build_deck(read_bank(args.bank_dir), args.lesson, args.lang)
    except BankError as error:
        print(f"export anki: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(package(deck, datetime.now(UTC)))
    counts = ", ".join(f"{n} {kind}" for kind, n in deck.counts().items())
    print(f"wrote {out}: deck {deck.name!r}, {len(deck.notes)} notes ({counts})")
    return 0


def add_format(actions: Any) -> None:
    """Add ``anki`` to the formats of ``quizsvc export`` (``quizsvc.study.export_commands``)."""
    anki = actions.add_parser(
        "anki", help="write a lesson's flashcards, glossary, concept checks and worked "
        "examples as an Anki package (.apkg)")
    anki.add_argument("--lesson", required=True, help="lesson id, e.g. vllm-v1-ledger")
    anki.add_argument("--lang", choices=LANG_MODES, default="zh",
                      help="what the cards show (every note holds both languages)")
    anki.add_argument("--out", required=True, help="the .apkg file to write")
    anki.add_argument("--bank-dir", help="bank directory (default: $QUIZSVC_BANK_DIR or repo)")
    anki.set_defaults(handler=run_anki)

"""Help the Anki tests: a glossary put on a bank's lesson, and the real Anki client.

The glossary is the format another change adds to the bank (``question_bank/<lesson>/
glossary.yaml``, loaded as ``lesson.glossary``: terms with ``id, term, name, definition,
rule, flashcard``); until it lands these stand-ins put one on a loaded bank's lesson, so the
export is tested on it now.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizsvc.bank.catalog import Bank
from quizsvc.bank.model import Lesson, Text


@dataclass(frozen=True)
class GlossaryTerm:
    """One glossary term, with the fields the bank's glossary will have."""

    id: str
    term: str
    name: Text
    definition: Text
    rule: str | None = None
    flashcard: str | None = None


@dataclass(frozen=True)
class LessonWithGlossary(Lesson):
    """A lesson as it will be loaded once the bank has glossaries."""

    glossary: tuple[GlossaryTerm, ...] = ()


GLOSSARY = (
    GlossaryTerm("token-budget", "token_budget",
                 Text("token 预算", "token budget"),
                 Text("一步里所有请求可排入的 token 总数。", "How many tokens one step may "
                      "schedule over all requests."), rule="budget-split"),
    GlossaryTerm("draft-slots", "draft_slots",
                 Text("草稿槽位", "draft slots"),
                 Text("为投机草稿预留的输入位置数。", "Input positions kept for speculative "
                      "drafts."), rule=None, flashcard="card-draft-slots-by-method"),
)


def with_glossary(bank: Bank, lesson_id: str,
                  terms: tuple[GlossaryTerm, ...] = GLOSSARY) -> Bank:
    """Put ``terms`` on a (freshly read, unshared) bank's lesson, as the loader will."""
    entry = bank.lesson_entry(lesson_id)
    lesson = LessonWithGlossary(**{f.name: getattr(entry.lesson, f.name)
                                   for f in dataclasses.fields(Lesson)}, glossary=terms)
    bank._lessons[lesson_id] = dataclasses.replace(entry, lesson=lesson)
    bank.lessons[lesson_id] = lesson
    return bank


@contextmanager
def anki_collection(folder: Path) -> Iterator[Any]:
    """Open a fresh Anki collection in ``folder`` (the real client, anki from PyPI)."""
    from anki.collection import Collection

    collection = Collection(os.fspath(folder / "collection.anki2"))
    try:
        yield collection
    finally:
        collection.close()


def import_package(collection: Any, data: bytes, path: Path) -> Any:
    """Import .apkg bytes as Anki's File > Import does (update notes if newer); return the
    import log."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    path.write_bytes(data)
    return collection.import_anki_package(ImportAnkiPackageRequest(
        package_path=os.fspath(path), options=ImportAnkiPackageOptions())).log

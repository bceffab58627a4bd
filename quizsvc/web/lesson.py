"""Lay a lesson out for its page: text parts with their sections, and the source-anchor table.

A lesson's sections (the unit of self-assessment) name the heading of the lesson text they
belong to; several may share one. ``lesson_parts`` cuts the rendered text at its headings and
hangs each section's self-assessment under its heading, so ``/lessons/<id>#<section>`` (the
link a question's reveal gives) lands on the right text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext

from quizsvc.web.markup import Block, render_blocks

# The opening page's two worked examples (by heading, zh and en), reproduced by the
# simulator's presets; the teaching sections' examples carry their own simulator links.
HEADING_PRESETS: dict[str, str] = {
    "普通混合调度手算": "mixed-161",
    "Worked by hand: an ordinary mixed step": "mixed-161",
    "投机例子:4已经包含3个draft": "spec-11-10-3",
    "Speculative example: the 4 already contains the 3 drafts": "spec-11-10-3",
}


@dataclass(frozen=True)
class LessonPart:
    """One heading of the lesson text, the blocks under it and the sections it carries."""

    heading: Block | None
    blocks: tuple[Block, ...]
    sections: tuple[Any, ...]
    presets: tuple[str, ...] = ()
    simulator: bool = False

    @property
    def rules(self) -> tuple[Block, ...]:
        """Return the headings of the rules taught in this part (anchored ``#rule-<id>``),
        for the page's table of contents."""
        return tuple(block for block in self.blocks
                     if block.kind == "heading" and block.anchor.startswith("rule-"))


def _normal(text: str) -> str:
    """Compare headings as a reader does: full-width punctuation as ASCII (NFKC), no spaces,
    no case ("改变变量，验证直觉" is "改变变量,验证直觉")."""
    return "".join(unicodedata.normalize("NFKC", text).split()).casefold()


def lesson_parts(markdown: str, sections: Sequence[Any], lang: str, title: str
                 ) -> list[LessonPart]:
    """Split the lesson text at its top two heading levels and attach each section to its heading.

    A heading that repeats the lesson's title is dropped (the page shows the title itself);
    deeper headings (a rule's, anchored ``#rule-<id>``) stay inside their part; sections whose
    heading is not in the text are gathered in a last part without a heading.
    """
    raw: list[tuple[Block | None, list[Block]]] = [(None, [])]
    for block in render_blocks(markdown):
        if block.kind == "heading" and block.level <= 2:
            if _normal(block.text) == _normal(title):
                continue
            raw.append((block, []))
        else:
            raw[-1][1].append(block)
    placed: set[str] = set()
    simulator_heading = _normal(gettext('Change the variables, check your intuition'))
    parts: list[LessonPart] = []
    for heading, blocks in raw:
        if heading is None and not blocks:
            continue
        mine: list[Any] = []
        if heading is not None:
            for section in sections:
                wanted = section.heading.get(lang) if section.heading is not None else None
                if section.id not in placed and wanted and _normal(wanted) == _normal(
                        heading.text):
                    mine.append(section)
                    placed.add(section.id)
        preset = HEADING_PRESETS.get(heading.text) if heading is not None else None
        parts.append(LessonPart(
            heading=heading,
            blocks=tuple(blocks),
            sections=tuple(mine),
            presets=(preset,) if preset else (),
            simulator=heading is not None and _normal(heading.text) == simulator_heading,
        ))
    rest = tuple(s for s in sections if s.id not in placed)
    if rest:
        parts.append(LessonPart(heading=None, blocks=(), sections=rest))
    return parts


@dataclass(frozen=True)
class AnchorRow:
    """One place in the vLLM 0.33.0 source and the questions anchored there."""

    file: str
    function: str
    lines: tuple[int, int]
    questions: tuple[Any, ...]


def source_anchors(questions: Iterable[Any]) -> list[AnchorRow]:
    """Collect the distinct source anchors of a lesson's questions, in file and line order."""
    found: dict[tuple[str, str, tuple[int, int]], list[Any]] = {}
    for question in questions:
        for anchor in question.anchors:
            key = (anchor.file, anchor.function, tuple(anchor.lines))
            found.setdefault(key, []).append(question)
    return [
        AnchorRow(file, function, lines, tuple(qs))
        for (file, function, lines), qs in sorted(found.items(), key=lambda kv: (
            kv[0][0], kv[0][2], kv[0][1]))
    ]

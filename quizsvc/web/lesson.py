"""Lay a lesson out for its page: text parts with their sections, and the source-anchor table.

A lesson's sections (the unit of self-assessment) name the heading of the lesson text they
belong to; several may share one. ``lesson_parts`` cuts the rendered text at its headings and
hangs each section's self-assessment under its heading, so ``/lessons/<id>#<section>`` (the
link a question's reveal gives) lands on the right text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from quizsvc.web.markup import Block, render_blocks
from quizsvc.web.text import say

# The lesson's two worked examples, reproduced by the simulator's presets.
SECTION_PRESETS: dict[str, str] = {
    "mixed-step": "mixed-161",
    "spec-rollback": "spec-11-10-3",
}


@dataclass(frozen=True)
class LessonPart:
    """One heading of the lesson text, the blocks under it and the sections it carries."""

    heading: Block | None
    blocks: tuple[Block, ...]
    sections: tuple[Any, ...]
    presets: tuple[str, ...] = ()
    simulator: bool = False


def _normal(text: str) -> str:
    return "".join(text.split()).casefold()


def lesson_parts(markdown: str, sections: Sequence[Any], lang: str, title: str
                 ) -> list[LessonPart]:
    """Split the lesson text at its headings and attach each section to its heading.

    A heading that repeats the lesson's title is dropped (the page shows the title itself);
    sections whose heading is not in the text are gathered in a last part without a heading.
    """
    raw: list[tuple[Block | None, list[Block]]] = [(None, [])]
    for block in render_blocks(markdown):
        if block.kind == "heading":
            if _normal(block.text) == _normal(title):
                continue
            raw.append((block, []))
        else:
            raw[-1][1].append(block)
    placed: set[str] = set()
    simulator_heading = _normal(say("sim_title", lang))
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
        parts.append(LessonPart(
            heading=heading,
            blocks=tuple(blocks),
            sections=tuple(mine),
            presets=tuple(SECTION_PRESETS[s.id] for s in mine if s.id in SECTION_PRESETS),
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

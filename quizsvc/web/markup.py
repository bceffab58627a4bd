"""Render the lesson's markdown to HTML: only the small subset the lesson uses, escaped first.

The lesson files use headings, paragraphs, indented formula blocks, bullet lists, ``*em*``,
``**strong**`` and backticked code. A full markdown library would be one more pinned
dependency and would pass raw HTML through; this renderer escapes every character of the
source before adding its own tags, so a lesson can never inject markup into the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

CODE_SPAN = re.compile(r"`([^`]+)`")
STRONG = re.compile(r"\*\*(.+?)\*\*")
EMPHASIS = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
BULLET = re.compile(r"^\s{0,3}[-*]\s+(.*)$")


@dataclass(frozen=True)
class Block:
    """One rendered block of the lesson: a heading, paragraph, formula/code block or list.

    ``text`` is a heading's plain text (used to match lesson sections to headings).
    """

    kind: str
    html: Markup
    level: int = 0
    text: str = ""


def inline(source: str) -> Markup:
    """Render inline markup (code spans, strong, emphasis) of one escaped line of text."""
    parts = CODE_SPAN.split(source)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{escape(part)}</code>")
            continue
        text = escape(part)
        text = STRONG.sub(r"<strong>\1</strong>", text)
        text = EMPHASIS.sub(r"<em>\1</em>", text)
        out.append(text)
    return Markup("".join(out))


def plain(source: str) -> str:
    """Return a heading's text without inline markers (for matching and labels)."""
    return CODE_SPAN.sub(r"\1", source).replace("**", "").strip("* ").strip()


def render_blocks(source: str) -> list[Block]:
    """Split markdown into rendered blocks, in order."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    code: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(Block("paragraph", Markup("<p>") + inline(" ".join(paragraph))
                                + Markup("</p>")))
            paragraph.clear()
        if code:
            while code and not code[-1].strip():
                code.pop()
            body = escape("\n".join(code))
            blocks.append(Block("code", Markup(f'<pre class="formula"><code>{body}</code></pre>')))
            code.clear()
        if items:
            lis = "".join(f"<li>{inline(item)}</li>" for item in items)
            blocks.append(Block("list", Markup(f"<ul>{lis}</ul>")))
            items.clear()

    for raw in source.splitlines():
        line = raw.rstrip()
        if code and (line.startswith("    ") or not line):
            code.append(line[4:])
            continue
        if code:
            flush()
        if line.startswith("    ") and not paragraph and not items:
            flush()
            code.append(line[4:])
            continue
        if not line.strip():
            flush()
            continue
        heading = HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            blocks.append(Block("heading", inline(heading.group(2)), level,
                                plain(heading.group(2))))
            continue
        bullet = BULLET.match(line)
        if bullet:
            if paragraph or code:
                flush()
            items.append(bullet.group(1))
            continue
        if items and raw.startswith("  "):
            items[-1] += " " + line.strip()
            continue
        if items:
            flush()
        paragraph.append(line.strip())
    flush()
    return blocks

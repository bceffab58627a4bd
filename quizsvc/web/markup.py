"""Render the bank's markdown (lesson, reference, worked solutions) to HTML with markdown-it-py.

CommonMark plus tables, with raw HTML off: every character of the source is escaped before the
renderer adds its own tags, so bank text can never inject markup into a page. Two plugins:

- block attributes, for the anchors the bank writes above a heading (``{#rule-demand}``);
  only ``id`` survives, and only an id the pages link to (``rule-``, ``term-``, ``card-``);
- a ``::: details <summary>`` container, rendered as ``<details>``: the fold that keeps a
  worked solution's step-by-step ledger trace below its explanation.

Indented blocks are the lesson's formulas (``<pre class="formula">``); tables scroll on
their own on narrow screens, and a long identifier in prose may break after its ``_ / .``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.attrs import attrs_block_plugin
from mdit_py_plugins.container import container_plugin

# An identifier or path long enough to widen a phone's page (max_num_new_slots_for_drafting,
# vllm/v1/core/sched/scheduler.py): it may break after its _ / . separators.
LONG_WORD = re.compile(r"[\w./:-]{16,}")
BREAK_AFTER = re.compile(r"([_/.])(?=\w)")
ALLOWED_ID = re.compile(r"^(?:rule|term|card)-[a-z0-9]+(?:-[a-z0-9]+)*$")
BETWEEN_TAGS = re.compile(r">\n+<")


@dataclass(frozen=True)
class Block:
    """One rendered top-level block: a heading, paragraph, formula, list, table or fold.

    ``html`` is the whole block; for a heading ``inner`` is its content without the tag (a page
    that wraps the heading in its own tag uses it), ``text`` its plain text (used to match
    lesson sections to headings) and ``anchor`` the id written above it, if any.
    """

    kind: str
    html: Markup
    level: int = 0
    text: str = ""
    inner: str = ""  # Markup (already escaped) for a heading
    anchor: str = ""


def _details(renderer: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    token = tokens[idx]
    if token.nesting == 1:
        summary = token.info.strip()[len("details"):].strip()
        return f"<details><summary>{escape(summary)}</summary>\n"
    return "</details>\n"


def _formula(renderer: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    body = tokens[idx].content.rstrip("\n")
    return f'<pre class="formula"><code>{escape(body)}</code></pre>\n'


def _text(renderer: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    # <wbr> rather than CSS overflow-wrap on every paragraph, which makes Chromium lay out
    # the long Chinese lesson several times slower.
    return LONG_WORD.sub(lambda word: BREAK_AFTER.sub(r"\1<wbr>", word.group(0)),
                         escape(tokens[idx].content))


def _table_open(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    # Focusable, so that a keyboard can scroll a table wider than a phone (WCAG 2.1.1).
    return ('<div class="table-wrap" tabindex="0">'
            + str(renderer.renderToken(tokens, idx, options, env)))


def _table_close(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return str(renderer.renderToken(tokens, idx, options, env)) + "</div>\n"


@cache
def parser() -> MarkdownIt:
    """Return the one configured renderer (built once: it is stateless between documents)."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.use(attrs_block_plugin)
    md.use(container_plugin, name="details", render=_details)
    md.add_render_rule("code_block", _formula)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    md.add_render_rule("text", _text)
    return md


def _clean(tokens: list[Token]) -> list[Token]:
    """Keep only the anchor ids the pages link to; drop every other attribute a block set."""
    for token in tokens:
        if token.type.endswith("_open") and token.attrs:
            wanted = token.attrs.get("id")
            kept: dict[str, str | int | float] = (
                {"id": wanted} if isinstance(wanted, str) and ALLOWED_ID.match(wanted) else {})
            if token.type in ("th_open", "td_open") and "style" in token.attrs:
                kept["style"] = token.attrs["style"]  # column alignment from the table syntax
            token.attrs = kept
    return tokens


def _html(tokens: list[Token]) -> Markup:
    md = parser()
    return Markup(md.renderer.render(tokens, md.options, {}))


def plain(tokens: Sequence[Token]) -> str:
    """Return the plain text of an inline token's children (for heading matching and labels)."""
    parts: list[str] = []
    for token in tokens:
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
    return "".join(parts).strip()


BLOCK_KINDS = {"code_block": "code", "fence": "code", "bullet_list": "list",
               "ordered_list": "list", "container_details": "details"}


def render_blocks(source: str) -> list[Block]:
    """Split markdown into rendered top-level blocks, in order."""
    md = parser()
    tokens = _clean(md.parse(source))
    blocks: list[Block] = []
    start = 0
    while start < len(tokens):
        token = tokens[start]
        end = start + 1
        if token.nesting == 1:
            depth = 1
            while depth:
                depth += tokens[end].nesting
                end += 1
        kind = token.type.removesuffix("_open")
        html = _html(tokens[start:end])
        if kind == "heading":
            inline = tokens[start + 1]
            renderer = cast(RendererHTML, md.renderer)  # MarkdownIt's default renderer
            inner = Markup(renderer.renderInline(inline.children or [], md.options, {}))
            blocks.append(Block("heading", html, int(token.tag[1]), plain([inline]), inner,
                                str(token.attrs.get("id", ""))))
        else:
            blocks.append(Block(BLOCK_KINDS.get(kind, kind), html))
        start = end
    return blocks


def render_markdown(source: str) -> Markup:
    """Render a whole markdown text (a worked solution, a reference page) to HTML.

    Newlines between tags are dropped so that text shown with ``white-space: pre-line`` (the
    solution boxes) does not gain blank lines between its blocks.
    """
    html = str(_html(_clean(parser().parse(source or ""))))
    return Markup(BETWEEN_TAGS.sub("><", html).strip())

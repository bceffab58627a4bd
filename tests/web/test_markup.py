"""The lesson renderer: the subset of markdown the lesson uses, with everything escaped."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizsvc.web.lesson import lesson_parts, source_anchors
from quizsvc.web.markup import render_blocks, render_markdown

BANK = Path(__file__).resolve().parents[2] / "question_bank"


def html(source: str) -> str:
    return "".join(str(block.html) for block in render_blocks(source))


def test_markup_in_the_source_is_escaped_never_passed_through() -> None:
    out = html("# <b>t</b>\n\nA <script>alert(1)</script> & `<i>`\n\n    x < y\n\n"
               "<div onclick=x>raw</div>\n\n[link](javascript:alert(1))\n")
    assert "<script>" not in out and "<b>" not in out and "<i>" not in out
    assert "<div onclick" not in out and 'href="javascript' not in out
    assert "&lt;script&gt;" in out and "<code>&lt;i&gt;</code>" in out
    assert '<pre class="formula"><code>x &lt; y</code></pre>' in out


def test_blocks_keep_their_order_around_an_indented_formula() -> None:
    kinds = [b.kind for b in render_blocks("## H\n\nbefore\n\n    f = min(a, b)\n    g\n\nafter\n")]
    assert kinds == ["heading", "paragraph", "code", "paragraph"]


def test_lists_emphasis_and_strong_render() -> None:
    out = html("- *one* item\n- **two**\n  continued\n").replace("\n", "")
    assert out == "<ul><li><em>one</em> item</li><li><strong>two</strong>continued</li></ul>"


def test_a_rule_anchor_above_a_heading_becomes_its_id_and_other_attributes_are_dropped() -> None:
    blocks = render_blocks("{#rule-demand}\n### 需求\n\n{#evil onclick=\"x\"}\n## 其他\n")
    assert [(b.level, b.anchor) for b in blocks] == [(3, "rule-demand"), (2, "")]
    assert '<h3 id="rule-demand">需求</h3>' in str(blocks[0].html)
    assert "onclick" not in str(blocks[1].html) and "evil" not in str(blocks[1].html)


def test_tables_scroll_and_a_details_fold_renders_as_details() -> None:
    source = "| a | b |\n|---|---|\n| 1 | 2 |\n\n::: details 逐步账本\n\n- x\n\n:::\n"
    out = str(render_markdown(source))
    assert '<div class="table-wrap" tabindex="0"><table>' in out and "<td>1</td>" in out
    assert "<details><summary>逐步账本</summary><ul><li>x</li></ul></details>" in out
    assert "\n" not in out  # no blank lines inside a pre-line solution box


def test_snake_case_names_are_not_read_as_emphasis() -> None:
    assert "<em>" not in html("num_computed_tokens and num_tokens_with_spec * 2 * 3")


class Section:
    def __init__(self, sid: str, zh: str, en: str) -> None:
        self.id = sid
        self.title = None
        self.heading = type("T", (), {"get": lambda self, lang: en if lang == "en" else zh})()


SECTIONS = [Section("a", "甲", "Alpha"), Section("b", "甲", "Alpha"), Section("c", "丙", "Gamma"),
            Section("lost", "无", "None")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sections_hang_under_their_heading_and_strays_are_kept(lang: str) -> None:
    text = {"zh": "# 标题\n\n## 甲\n\n文\n\n## 乙\n\n## 丙\n", "en": "# Title\n\n## Alpha\n\n"
            "text\n\n## Beta\n\n## Gamma\n"}[lang]
    parts = lesson_parts(text, SECTIONS, lang, "标题" if lang == "zh" else "Title")
    placed = [(p.heading.text if p.heading else None, [s.id for s in p.sections]) for p in parts]
    first, second, third = ("甲", "乙", "丙") if lang == "zh" else ("Alpha", "Beta", "Gamma")
    assert placed == [(first, ["a", "b"]), (second, []), (third, ["c"]), (None, ["lost"])]


def test_every_section_of_the_real_lesson_finds_its_heading_in_both_languages() -> None:
    from quizsvc.bank import load_bank

    bank = load_bank()
    lessons = bank.lessons.values() if isinstance(bank.lessons, dict) else bank.lessons
    for lesson in lessons:
        for lang in ("zh", "en"):
            parts = lesson_parts(bank.lesson_text(lesson.id, lang), lesson.sections, lang,
                                 lesson.title.get(lang))
            strays = [s.id for p in parts if p.heading is None for s in p.sections]
            assert strays == [], f"{lesson.id} ({lang}): no heading for {strays}"


def test_source_anchors_are_collected_once_in_file_order() -> None:
    anchor = type("A", (), {})
    first = anchor()
    first.file, first.function, first.lines = "b.py", "f", (5, 9)
    second = anchor()
    second.file, second.function, second.lines = "a.py", "g", (1, 2)
    q1 = type("Q", (), {"anchors": (first, second)})()
    q2 = type("Q", (), {"anchors": (first,)})()
    rows = source_anchors([q1, q2])
    assert [(r.file, len(r.questions)) for r in rows] == [("a.py", 1), ("b.py", 2)]

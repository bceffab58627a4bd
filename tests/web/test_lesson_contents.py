"""The lesson page's table of contents (real bank): every part and every rule, a side column
and a fold of the same list, and a way back to it from each part; no script needed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from quizsvc.bank import load_bank
from tests.support.browsers import FormBrowser

LESSON = "vllm-v1-ledger"


@pytest.fixture(scope="module")
def bank() -> Any:
    """Serve the real bank here: these tests are about its lesson."""
    return load_bank()


def contents(page: str, start: str, end: str) -> str:
    """Return the part of ``page`` between two markers."""
    head = page.index(start)
    return page[head:page.index(end, head)]


@pytest.mark.parametrize(("lang", "label", "back"), [("zh", "目录", "回到目录"),
                                                     ("en", "Contents", "Back to contents")])
def test_the_contents_list_every_part_and_every_rule_of_the_lesson(
        app: Any, bank: Any, lang: str, label: str, back: str) -> None:
    page = FormBrowser(app).get(f"/lessons/{LESSON}?lang={lang}").get_data(as_text=True)
    side = contents(page, '<nav class="toc toc-side"', "</nav>")
    fold = contents(page, '<details class="toc toc-fold">', "</details>")
    assert f'<h2 id="toc-h" class="toc-title">{label}</h2>' in side
    assert f"<summary>{label}</summary>" in fold
    rules = [f"rule-{rule.id}" for rule in bank.lessons[LESSON].rules]
    for listing in (side, fold):
        linked = re.findall(r'href="#(rule-[^"]+)"', listing)
        assert linked == rules, "every rule, in teaching order"
        parts = re.findall(r'href="#(h-\d+)"', listing)
        assert parts and all(f'id="{part}"' in page for part in parts)
    assert all(f'id="{rule}"' in page for rule in rules)
    back_links = page.count(f'<a href="#contents">{back}</a>')
    assert back_links == len(re.findall(r'href="#(h-\d+)"', side))
    assert 'id="contents"' in page

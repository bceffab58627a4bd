"""A refused answer is said under the box it concerns, named by that box's label, in the
page's language, with no internal field names; the box is marked aria-invalid."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID


def vector_question(learner: FormBrowser, lang: str = "zh") -> tuple[str, dict[str, str]]:
    """Start a quiz whose first question is FakeBank's vector (labels A and B)."""
    started = learner.post(f"/study?lang={lang}", lesson=LESSON_ID, mode="quiz", size="1")
    session_url = started.headers["Location"]
    page = learner.get(session_url).get_data(as_text=True)
    assert 'data-input-type="vector"' in page
    hidden = {name: re.search(rf'name="{name}" value="([^"]+)"', page).group(1)
              for name in ("variant_id", "idempotency_key")}
    return session_url, hidden


def field_of(page: str, box_id: str) -> str:
    """Return the form field (label, input, error) that holds the box ``box_id``."""
    start = page.index(f'<label for="{box_id}">')
    return page[start:page.index("</div>", start)]


@pytest.mark.parametrize(("lang", "values", "box", "label", "message"), [
    ("zh", ("3", "x"), "answer-1", "B", "请填一个整数"),
    ("en", ("3", "x"), "answer-1", "B", "one whole number per box"),
    ("zh", ("1" * 25, "5"), "answer-0", "A", "太大：最多 18 位数字"),
    ("en", ("１２", "ab"), "answer-1", "B", "one whole number per box"),
])
def test_the_refused_box_says_why_under_itself(app: Any, lang: str, values: tuple[str, str],
                                               box: str, label: str, message: str) -> None:
    learner = FormBrowser(app)
    session_url, hidden = vector_question(learner, lang)
    response = learner.post(f"{session_url}/answer?lang={lang}", **hidden,
                            **{"answer.0": values[0], "answer.1": values[1]})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    summary = re.search(r'<div class="errors" role="alert" id="answer-error">(.*?)</div>',
                        page, re.S).group(1)
    colon = "：" if lang == "zh" else ": "  # the one translatable separator
    assert f"<strong>{label}</strong>{colon}{message}" in summary
    assert "answer:" not in summary and "answer." not in summary and "element" not in summary
    field = field_of(page, box)
    assert 'aria-invalid="true"' in field and 'aria-describedby="answer-error box-error"' in field
    assert f'<p class="field-error" id="box-error">{message}</p>' in field
    assert page.count('aria-invalid="true"') == 1, "only the refused box is marked"
    assert re.search(rf'id="{box}"[^>]*autofocus', page), "focus lands on the refused box"

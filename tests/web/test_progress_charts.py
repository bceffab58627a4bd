"""The progress page draws its statistics server-side: reviews per day, retention per week
against the desired retention, the due forecast; each an SVG image with its table a fold away,
without scripts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from typing import Any

import pytest

from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID

SVG = "{http://www.w3.org/2000/svg}"


def figure_svg(page: str, chart_id: str) -> ET.Element:
    """Parse one chart's SVG out of the page."""
    found = re.search(rf'<svg [^>]*id="{chart_id}-svg".*?</svg>', page, re.S)
    assert found, f"no chart {chart_id}"
    return ET.fromstring(found.group(0))


def table_rows(page: str, chart_id: str) -> list[list[str]]:
    """Return the cells of a chart's table, row by row (a date's text, without its <time>)."""
    body = re.search(rf'id="{chart_id}-table">.*?<tbody>(.*?)</tbody>', page, re.S)
    assert body, f"no table for {chart_id}"
    return [[re.sub(r"</?time[^>]*>", "", cell)
             for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))]


@pytest.fixture
def api(app: Any) -> ApiBrowser:
    """Return an API browser (``browser`` is Chromium in this folder)."""
    return ApiBrowser(app)


@pytest.fixture
def study(api: ApiBrowser, db: Any, bank: Any) -> Study:
    """Return the study helper for ``api``'s learner."""
    return Study(api, db, bank)


def answer_one(study: Study) -> None:
    """Answer one question of a new quiz wrong (one review, rated Again)."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.wrong_answer(vid))


def test_the_progress_page_charts_reviews_per_day(study: Study, api: ApiBrowser,
                                                  clock: Any) -> None:
    answer_one(study)
    clock.advance(days=1)
    answer_one(study)
    answer_one(study)
    page = api.get("/progress?lang=en").get_data(as_text=True)
    svg = figure_svg(page, "reviews-per-day")
    assert svg.get("role") == "img" and svg.get("aria-label", "").startswith("Reviews per day")
    bars = [b.get("data-value") for b in svg.iter(SVG + "rect") if b.get("class") == "bar"]
    assert bars == ["1", "2"]
    rows = table_rows(page, "reviews-per-day")
    assert len(rows) == 30
    today = clock.now.date()
    assert rows[-2:] == [[(today - timedelta(days=1)).isoformat(), "1"], [today.isoformat(), "2"]]
    # the table is a fold away, and every chart has one
    assert page.count('<details class="chart-data">') == 3


def test_retention_is_drawn_against_the_learners_desired_retention(study: Study,
                                                                   api: ApiBrowser) -> None:
    assert api.put("/api/scheduling", json={"desired_retention": 0.8}).status_code == 200
    page = api.get("/progress?lang=en").get_data(as_text=True)
    svg = figure_svg(page, "retention-per-week")
    reference = svg.find(f"{SVG}g[@class='reference']/{SVG}line")
    assert reference is not None and reference.get("data-value") == "0.8"
    assert "Desired retention 80%" in ET.tostring(svg, encoding="unicode")
    assert "No reviews of learned cards yet" in ET.tostring(svg, encoding="unicode")
    assert table_rows(page, "retention-per-week")[-1][1:] == ["0", "0", "—"]


def test_the_forecast_chart_counts_what_falls_due(study: Study, api: ApiBrowser) -> None:
    answer_one(study)  # wrong: Again, due again within minutes, so today
    page = api.get("/progress").get_data(as_text=True)
    svg = figure_svg(page, "due-forecast")
    assert [b.get("data-value") for b in svg.iter(SVG + "rect")] == ["1"]
    assert table_rows(page, "due-forecast")[0][1] == "1"
    assert len(table_rows(page, "due-forecast")) == 30


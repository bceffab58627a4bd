"""The server-drawn charts: SVG a screen reader can name, shapes that follow the data, text
for every value, nothing unescaped, and an empty chart that says so."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from flask import Flask, render_template_string
from markupsafe import Markup

from quizsvc.web import charts

SVG = "{http://www.w3.org/2000/svg}"


def parse(chart: charts.Chart) -> ET.Element:
    """Parse a chart's SVG as XML (it must be well-formed)."""
    return ET.fromstring(str(chart.svg))


def find(root: ET.Element, tag: str, css: str) -> list[ET.Element]:
    """Return the elements of a tag whose class list holds ``css``, in document order."""
    return [e for e in root.iter(SVG + tag) if css in (e.get("class") or "").split()]


def texts(root: ET.Element, css: str) -> list[str]:
    """Return the text of every ``<text>`` of a class."""
    return [e.text or "" for e in find(root, "text", css)]


def reviews(values: list[float]) -> charts.Chart:
    """Draw a bar chart of the given counts, one per day."""
    labels = [f"2026-11-{day:02d}" for day in range(1, len(values) + 1)]
    return charts.bar_chart("reviews", "Reviews per day", labels, values, x_label="Day",
                            y_label="Reviews", empty_note="No reviews yet", dated_rows=True)


def test_a_chart_is_an_image_named_by_its_title_and_sized_by_its_viewbox() -> None:
    root = parse(reviews([1, 2, 3]))
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Reviews per day"
    assert root.find(SVG + "title").text == "Reviews per day"  # type: ignore[union-attr]
    assert root.get("viewBox") == f"0 0 {charts.WIDTH} {charts.HEIGHT}"
    assert root.get("width") is None and root.get("height") is None
    assert texts(root, "x-label") == ["Day"] and texts(root, "y-label") == ["Reviews"]


def test_bars_follow_the_data_and_write_each_value() -> None:
    chart = reviews([2, 0, 4, 1])
    root = parse(chart)
    bars = find(root, "rect", "bar")
    assert [b.get("data-value") for b in bars] == ["2", "4", "1"]  # no bar for a zero
    heights = [float(b.get("height") or 0) for b in bars]
    assert heights[1] == pytest.approx(2 * heights[0]) == pytest.approx(4 * heights[2])
    bottoms = {round(float(b.get("y") or 0) + float(b.get("height") or 0), 1) for b in bars}
    assert len(bottoms) == 1  # every bar stands on the x axis
    xs = [float(b.get("x") or 0) for b in bars]
    assert xs == sorted(xs)
    assert texts(root, "value") == ["2", "4", "1"]
    assert chart.columns == ("Day", "Reviews")
    assert chart.rows == (("2026-11-01", "2"), ("2026-11-02", "0"), ("2026-11-03", "4"),
                          ("2026-11-04", "1"))


def test_the_y_axis_ends_on_a_round_number_above_the_peak() -> None:
    assert [charts.nice_ceiling(v) for v in (0, 1, 3, 7, 11, 40, 51)] == [1, 1, 5, 10, 20, 50,
                                                                          100]
    assert texts(parse(reviews([3, 7])), "y-tick") == ["0", "5", "10"]
    assert texts(parse(reviews([1, 0])), "y-tick") == ["0", "1"], "no half a review"


def test_many_labels_are_thinned_on_the_axis_but_all_in_the_table() -> None:
    chart = reviews([1] * 15 + [3] + [2] * 14)
    root = parse(chart)
    assert len(texts(root, "x-tick")) <= charts.MAX_TICK_LABELS
    assert texts(root, "value") == ["3"], "narrow bars: only the peak's value is written"
    assert len(find(root, "rect", "bar")) == 30 and len(chart.rows) == 30


@pytest.mark.parametrize("values", [[], [0, 0, 0]])
def test_an_empty_chart_says_so_and_draws_nothing(values: list[float]) -> None:
    root = parse(reviews(values))
    assert texts(root, "empty-note") == ["No reviews yet"]
    assert find(root, "rect", "bar") == []


def test_text_is_escaped() -> None:
    chart = charts.bar_chart("x", "<b>&</b>", ["<i>"], [1], x_label='"', y_label="'",
                             empty_note="")
    root = parse(chart)
    assert root.find(SVG + "title").text == "<b>&</b>"  # type: ignore[union-attr]
    assert "<b>" not in str(chart.svg) and "<i>" not in str(chart.svg)
    assert isinstance(chart.svg, Markup)


def test_a_line_follows_its_points_breaks_at_gaps_and_draws_the_reference() -> None:
    chart = charts.line_chart(
        "retention", "Retention", ["w1", "w2", "w3", "w4"], [0.5, None, 1.0, 0.75],
        x_label="Week", y_label="Recalled", empty_note="none", y_range=(0.0, 1.0),
        reference=0.9, reference_label="Desired", fmt=lambda v: f"{v:.0%}")
    root = parse(chart)
    points = find(root, "circle", "point")
    assert [p.get("data-value") for p in points] == ["50%", "100%", "75%"]
    ys = [float(p.get("cy") or 0) for p in points]
    top, bottom = charts.TOP + charts.LEGEND_ROW, charts.HEIGHT - charts.BOTTOM  # a legend row
    assert ys[1] == pytest.approx(top) and ys[0] == pytest.approx((top + bottom) / 2)
    path = find(root, "path", "line")[0].get("d") or ""
    assert path.count("M") == 1 and path.count("L") == 1  # w1 stands alone: the gap breaks it
    reference = root.find(f"{SVG}g[@class='reference']/{SVG}line")
    assert reference is not None and reference.get("data-value") == "0.9"
    assert float(reference.get("y1") or 0) == pytest.approx(bottom - 0.9 * (bottom - top))
    assert texts(root, "reference-label") == ["Desired 90%"]
    assert chart.columns == ("Week", "Recalled", "Desired")
    assert chart.rows[1] == ("w2", "—", "90%")


def test_a_line_chart_with_no_values_says_so() -> None:
    root = parse(charts.line_chart("r", "R", ["a", "b"], [None, None], x_label="x",
                                   y_label="y", empty_note="Nothing yet"))
    assert texts(root, "empty-note") == ["Nothing yet"]
    assert find(root, "circle", "point") == [] and find(root, "path", "line") == []


def test_stacked_bars_stack_in_series_order_with_patterns_and_a_legend() -> None:
    chart = charts.stacked_bar_chart(
        "answers", "Answers", ["q1", "q2"],
        [charts.Series("right", [3, 1]), charts.Series("wrong", [1, 0])],
        x_label="Question", y_label="Answers", empty_note="none")
    root = parse(chart)
    right, wrong = find(root, "rect", "series-0"), find(root, "rect", "series-1")
    assert [r.get("data-value") for r in right] == ["3", "1"]
    assert [r.get("data-value") for r in wrong] == ["1"]
    # q1's wrong segment sits right on top of its right segment
    assert float(wrong[0].get("y") or 0) + float(wrong[0].get("height") or 0) == \
        pytest.approx(float(right[0].get("y") or 0))
    assert float(right[0].get("height") or 0) == pytest.approx(3 * float(wrong[0].get("height")
                                                                         or 0))
    assert len(list(root.iter(SVG + "pattern"))) == 2
    assert texts(root, "value") == ["4", "1"]
    assert chart.legend == (("series-0", "right"), ("series-1", "wrong"))
    assert chart.rows == (("q1", "3", "1"), ("q2", "1", "0"))


def test_values_and_labels_must_pair_up() -> None:
    with pytest.raises(ValueError):
        charts.bar_chart("x", "x", ["a"], [1, 2], x_label="", y_label="", empty_note="")
    with pytest.raises(ValueError):
        charts.line_chart("x", "x", ["a", "b"], [1], x_label="", y_label="", empty_note="")


def test_the_macro_puts_the_table_a_fold_away() -> None:
    app = Flask(__name__, template_folder="../../quizsvc/web/templates")
    app.jinja_env.globals["_"] = lambda text, **kw: text % kw if kw else text
    with app.app_context():
        html = render_template_string('{% from "_chart.html" import chart %}{{ chart(c) }}',
                                      c=reviews([2, 5]))
    assert html.count("<svg") == 1 and 'role="img"' in html
    fold = html[html.index("<details"):html.index("</details>")]
    dated = '<th scope="row"><time datetime="2026-11-02">2026-11-02</time></th><td>5</td>'
    assert "<table" in fold and dated in fold  # a date heads its row as a <time>
    assert 'id="reviews"' in html and "Reviews per day" in html


def test_only_a_chart_with_dated_rows_marks_its_row_heads_as_times() -> None:
    app = Flask(__name__, template_folder="../../quizsvc/web/templates")
    app.jinja_env.globals["_"] = lambda text, **kw: text % kw if kw else text
    named = charts.bar_chart("facility", "Facility", ["2026-11-02"], [1], x_label="Question",
                             y_label="Facility", empty_note="none")
    with app.app_context():
        html = render_template_string('{% from "_chart.html" import chart %}{{ chart(c) }}',
                                      c=named)
    assert '<th scope="row">2026-11-02</th>' in html and "<time" not in html

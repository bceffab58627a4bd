"""Draw charts as SVG on the server, from plain data: a bar chart, a line chart (with an
optional horizontal reference line) and a stacked bar chart.

Why on the server: a chart then works without scripts, costs the browser nothing, and the
numbers it draws are the numbers the page's table holds (both come from one ``Chart``).

Each function returns a ``Chart``: the ``<svg>`` as markup-safe text plus the same data as a
table, which ``templates/_chart.html`` renders a fold away below the picture. The SVG

- is ``role="img"`` with an ``aria-label`` and a ``<title>`` (its accessible name), since a
  screen reader cannot read bars; the table is the accessible form of the data;
- sizes everything in its ``viewBox`` and sets no width, so CSS scales it to any width
  (``svg.chart { width: 100%; height: auto }``) and it reflows at 320 px;
- draws axes and text in ``currentColor`` and marks what it draws with classes
  (``bar``, ``point``, ``line``, ``reference``, ``series-N``), so the page's colour scheme,
  light or dark, styles it; every value is also written as text, never said by colour alone;
- escapes every piece of text it is given.

All text (title, axis labels, the empty note) comes from the caller, already translated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

from markupsafe import Markup

# The viewBox is a phone's width, so text stays legible at 320 CSS px; the CSS caps the
# drawn width on a desktop so that it does not grow large there.
WIDTH = 320
HEIGHT = 200
LEFT, RIGHT, TOP, BOTTOM = 50, 8, 16, 42
TICK_FONT = 11
VALUE_FONT = 10
MAX_TICK_LABELS = 5  # x labels drawn at most (every k-th), so they never overlap
LABELLED_BAND = 16   # bands narrower than this (viewBox units) write only the peak's value
LEGEND_ROW = 16      # the line above a plot that names its reference line

Format = Callable[[float], str]


def plain_number(value: float) -> str:
    """Write a number without a needless ``.0`` (counts stay integers)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")


@dataclass(frozen=True)
class Series:
    """One named row of values of a stacked bar chart (one value per label)."""

    name: str
    values: Sequence[float]


@dataclass(frozen=True)
class Chart:
    """A drawn chart and its data as a table: what ``_chart.html`` renders.

    ``chart_id`` is unique on the page (the figure's id, and the prefix of ids inside);
    ``columns`` are the table's headings and ``rows`` its cells, already written as text
    (the first cell of a row heads the row); with ``dated_rows`` that first cell is an ISO
    date, which the table marks as a ``<time>`` (the page's script says it in the reader's
    words).
    """

    chart_id: str
    title: str
    svg: Markup
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    description: str = ""
    legend: tuple[tuple[str, str], ...] = field(default=())  # (class, name) per series
    dated_rows: bool = False


@dataclass(frozen=True)
class Axes:
    """The plot area inside the viewBox and the value scale of the y axis."""

    y_min: float
    y_max: float

    left: float = LEFT
    top: float = TOP
    right: float = WIDTH - RIGHT
    bottom: float = HEIGHT - BOTTOM

    @property
    def width(self) -> float:
        """Return the plot area's width in viewBox units."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """Return the plot area's height in viewBox units."""
        return self.bottom - self.top

    def y(self, value: float) -> float:
        """Return the viewBox y of a value (clamped to the plot area)."""
        span = self.y_max - self.y_min or 1.0
        share = min(1.0, max(0.0, (value - self.y_min) / span))
        return round(self.bottom - share * self.height, 2)

    def band(self, count: int) -> float:
        """Return the width of one label's band when ``count`` labels share the x axis."""
        return self.width / max(count, 1)

    def x(self, index: int, count: int) -> float:
        """Return the viewBox x of the middle of label ``index``'s band."""
        return round(self.left + (index + 0.5) * self.band(count), 2)


def nice_ceiling(value: float) -> float:
    """Return the smallest of 1, 2, 5 times a power of ten that is at least ``value``
    (at least 1), so the y axis ends on a round number."""
    if value <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return float(step * power)
    return float(10 * power)  # pragma: no cover - the loop always returns


def _num(value: float) -> str:
    return plain_number(round(value, 2))


def _text(x: float, y: float, content: str, css: str, anchor: str = "middle",
          size: int = TICK_FONT, extra: str = "") -> str:
    return (f'<text class="{css}" x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" '
            f'font-size="{size}" fill="currentColor"{extra}>{escape(content)}</text>')


def _frame(chart_id: str, title: str, description: str, body: list[str]) -> Markup:
    label = f"{title}. {description}" if description else title
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}-svg" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}" '
            f'preserveAspectRatio="xMidYMid meet" focusable="false">',
            f"<title>{escape(title)}</title>"]
    if description:
        head.append(f"<desc>{escape(description)}</desc>")
    return Markup("\n".join([*head, *body, "</svg>"]))


def _axes(axes: Axes, ticks: Sequence[str], x_label: str, y_label: str,
          fmt: Format, whole: bool = False) -> list[str]:
    """Draw both axes, the y scale (three values; two when the middle one would be a
    fraction of a ``whole`` count), the x tick labels and the axis titles."""
    parts = [f'<g class="axes" stroke="currentColor" stroke-width="1">'
             f'<line x1="{_num(axes.left)}" y1="{_num(axes.bottom)}" '
             f'x2="{_num(axes.right)}" y2="{_num(axes.bottom)}"/>'
             f'<line x1="{_num(axes.left)}" y1="{_num(axes.top)}" '
             f'x2="{_num(axes.left)}" y2="{_num(axes.bottom)}"/></g>']
    scale = (axes.y_min, (axes.y_min + axes.y_max) / 2, axes.y_max)
    for value in scale:
        if whole and not float(value).is_integer():
            continue
        y = axes.y(value)
        parts.append(f'<line class="grid" x1="{_num(axes.left)}" y1="{_num(y)}" '
                     f'x2="{_num(axes.right)}" y2="{_num(y)}" stroke="currentColor" '
                     f'stroke-opacity="0.25" stroke-width="0.5"/>')
        parts.append(_text(axes.left - 4, y + 4, fmt(value), "y-tick", anchor="end"))
    every = max(1, math.ceil(len(ticks) / MAX_TICK_LABELS))
    for i, tick in enumerate(ticks):
        if i % every == 0:
            parts.append(_text(axes.x(i, len(ticks)), axes.bottom + 14, tick, "x-tick"))
    parts.append(_text((axes.left + axes.right) / 2, HEIGHT - 6, x_label, "x-label"))
    middle = (axes.top + axes.bottom) / 2
    parts.append(_text(11, middle, y_label, "y-label",
                       extra=f' transform="rotate(-90 11 {_num(middle)})"'))
    return parts


def _empty(axes: Axes, note: str) -> list[str]:
    return [_text((axes.left + axes.right) / 2, (axes.top + axes.bottom) / 2, note,
                  "empty-note", size=13)]


def _value_font(count: int) -> int:
    return VALUE_FONT if count > 12 else TICK_FONT


def _written(value: float, peak: float, band: float) -> bool:
    """Say whether a bar's value is written above it: every value when bars are wide enough
    for their numbers, else only the peak's (the axis gives the scale, the table the rest)."""
    return value > 0 and (band >= LABELLED_BAND or value == peak)


def _whole(values: Sequence[float]) -> bool:
    return all(float(v).is_integer() for v in values)


def bar_chart(chart_id: str, title: str, labels: Sequence[str], values: Sequence[float], *,
              x_label: str, y_label: str, empty_note: str, ticks: Sequence[str] | None = None,
              fmt: Format = plain_number, description: str = "",
              table: tuple[Sequence[str], Sequence[Sequence[str]]] | None = None,
              dated_rows: bool = False) -> Chart:
    """Draw one bar per label, its height the value, the value written above it (zeros are
    drawn as no bar and no text: the table still lists them).

    ``ticks`` are the x axis's short labels (default: ``labels``); ``table`` replaces the
    default two-column table (label, value) when the caller has more to show.
    """
    if len(labels) != len(values):
        raise ValueError("one value per label")
    peak = max((v for v in values), default=0.0)
    axes = Axes(0.0, nice_ceiling(peak))
    body = _axes(axes, list(ticks if ticks is not None else labels), x_label, y_label, fmt,
                 _whole(values))
    band = axes.band(len(values))
    size = _value_font(len(values))
    bars = ['<g class="bars">']
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        if value <= 0:
            continue
        top = axes.y(value)
        left = axes.left + i * band + band * 0.15
        bars.append(f'<rect class="bar" x="{_num(left)}" y="{_num(top)}" '
                    f'width="{_num(band * 0.7)}" height="{_num(axes.bottom - top)}" '
                    f'fill="currentColor" data-value="{escape(fmt(value))}">'
                    f"<title>{escape(label)}: {escape(fmt(value))}</title></rect>")
        if _written(value, peak, band):
            bars.append(_text(axes.x(i, len(values)), top - 3, fmt(value), "value", size=size))
    bars.append("</g>")
    body += bars if peak > 0 else _empty(axes, empty_note)
    columns, rows = table if table is not None else (
        (x_label, y_label), [(label, fmt(v)) for label, v in zip(labels, values, strict=True)])
    return Chart(chart_id, title, _frame(chart_id, title, description, body),
                 tuple(columns), tuple(tuple(r) for r in rows), description,
                 dated_rows=dated_rows)


def line_chart(chart_id: str, title: str, labels: Sequence[str],
               values: Sequence[float | None], *, x_label: str, y_label: str,
               empty_note: str, y_range: tuple[float, float] | None = None,
               reference: float | None = None, reference_label: str = "",
               ticks: Sequence[str] | None = None, fmt: Format = plain_number,
               description: str = "",
               table: tuple[Sequence[str], Sequence[Sequence[str]]] | None = None,
               dated_rows: bool = False) -> Chart:
    """Draw the values as points joined by a line, each written beside its point; ``None``
    is a gap (no point, the line breaks). ``reference`` draws a dashed horizontal line with
    ``reference_label`` written on it (a target such as the desired retention).

    ``y_range`` fixes the scale (a share: ``(0, 1)``); by default it runs from 0 to a round
    number above the largest value and the reference.
    """
    if len(labels) != len(values):
        raise ValueError("one value per label")
    known = [v for v in values if v is not None]
    if y_range is None:
        top_value = max([*known, reference if reference is not None else 0.0, 0.0])
        y_range = (0.0, nice_ceiling(top_value))
    # With a reference, the top margin grows by a legend line that names it (dashed sample,
    # words): inside the plot its words would collide with the points' values.
    axes = Axes(*y_range, top=TOP + LEGEND_ROW if reference is not None else TOP)
    body = _axes(axes, list(ticks if ticks is not None else labels), x_label, y_label, fmt)
    count = len(values)
    if reference is not None:
        y, key = axes.y(reference), LEGEND_ROW - 6
        dashed = 'stroke="currentColor" stroke-width="1.5" stroke-dasharray="6 4"'
        body.append(f'<g class="reference"><line x1="{_num(axes.left)}" y1="{_num(y)}" '
                    f'x2="{_num(axes.right)}" y2="{_num(y)}" {dashed} data-value="{reference}"/>'
                    f'<line x1="{_num(axes.left)}" y1="{key}" x2="{_num(axes.left + 20)}" '
                    f'y2="{key}" {dashed}/>'
                    + _text(axes.left + 24, key + 4, f"{reference_label} {fmt(reference)}".strip(),
                            "reference-label", anchor="start") + "</g>")
    runs: list[list[tuple[float, float]]] = [[]]
    marks = ['<g class="points">']
    size = _value_font(count)
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        if value is None:
            runs.append([])
            continue
        x, y = axes.x(i, count), axes.y(value)
        runs[-1].append((x, y))
        marks.append(f'<circle class="point" cx="{_num(x)}" cy="{_num(y)}" r="3.5" '
                     f'fill="currentColor" data-value="{escape(fmt(value))}">'
                     f"<title>{escape(label)}: {escape(fmt(value))}</title></circle>")
        if count * LABELLED_BAND <= axes.width or value == max(known):
            marks.append(_text(x, y - 7, fmt(value), "value", size=size))
    marks.append("</g>")
    paths = [" ".join(("M" if j == 0 else "L") + f"{_num(x)} {_num(y)}"
                      for j, (x, y) in enumerate(run)) for run in runs if len(run) > 1]
    if paths:
        body.append(f'<path class="line" d="{" ".join(paths)}" fill="none" '
                    f'stroke="currentColor" stroke-width="2"/>')
    body += marks if known else _empty(axes, empty_note)
    if table is None:
        columns: Sequence[str] = (x_label, y_label) + ((reference_label,) if reference
                                                       is not None else ())
        rows: Sequence[Sequence[str]] = [
            (label, "—" if v is None else fmt(v))
            + ((fmt(reference),) if reference is not None else ())
            for label, v in zip(labels, values, strict=True)]
    else:
        columns, rows = table
    return Chart(chart_id, title, _frame(chart_id, title, description, body),
                 tuple(columns), tuple(tuple(r) for r in rows), description,
                 dated_rows=dated_rows)


def stacked_bar_chart(chart_id: str, title: str, labels: Sequence[str],
                      series: Sequence[Series], *, x_label: str, y_label: str,
                      empty_note: str, ticks: Sequence[str] | None = None,
                      fmt: Format = plain_number, description: str = "",
                      table: tuple[Sequence[str], Sequence[Sequence[str]]] | None = None,
                      dated_rows: bool = False) -> Chart:
    """Draw one bar per label made of one segment per series, stacked in series order, the
    total written above it. Series are told apart by class (``series-N``, coloured by the
    page), by a fill pattern (solid, hatched, dotted, ...), by the legend's words and by the
    table: never by colour alone.
    """
    if any(len(s.values) != len(labels) for s in series):
        raise ValueError("one value per label in every series")
    totals = [sum(s.values[i] for s in series) for i in range(len(labels))]
    peak = max(totals, default=0.0)
    axes = Axes(0.0, nice_ceiling(peak))
    body = [_patterns(chart_id, len(series))]
    body += _axes(axes, list(ticks if ticks is not None else labels), x_label, y_label, fmt,
                  _whole(totals))
    band = axes.band(len(labels))
    size = _value_font(len(labels))
    bars = ['<g class="bars">']
    for i, label in enumerate(labels):
        base = 0.0
        left = axes.left + i * band + band * 0.15
        for k, one in enumerate(series):
            value = one.values[i]
            if value <= 0:
                continue
            top, bottom = axes.y(base + value), axes.y(base)
            bars.append(f'<rect class="bar series-{k}" x="{_num(left)}" y="{_num(top)}" '
                        f'width="{_num(band * 0.7)}" height="{_num(bottom - top)}" '
                        f'fill="url(#{escape(chart_id)}-pattern-{k})" stroke="currentColor" '
                        f'stroke-width="0.75" data-value="{escape(fmt(value))}">'
                        f"<title>{escape(label)}, {escape(one.name)}: {escape(fmt(value))}"
                        "</title></rect>")
            base += value
        if _written(totals[i], peak, band):
            bars.append(_text(axes.x(i, len(labels)), axes.y(totals[i]) - 3, fmt(totals[i]),
                              "value", size=size))
    bars.append("</g>")
    body += bars if peak > 0 else _empty(axes, empty_note)
    if table is None:
        columns: Sequence[str] = (x_label, *(s.name for s in series))
        rows: Sequence[Sequence[str]] = [
            (label, *(fmt(s.values[i]) for s in series)) for i, label in enumerate(labels)]
    else:
        columns, rows = table
    return Chart(chart_id, title, _frame(chart_id, title, description, body),
                 tuple(columns), tuple(tuple(r) for r in rows), description,
                 tuple((f"series-{k}", s.name) for k, s in enumerate(series)),
                 dated_rows=dated_rows)


# Fill patterns by series: solid, diagonal hatch, dots, cross-hatch, empty (then they repeat).
PATTERNS = (
    '<rect width="6" height="6" fill="currentColor"/>',
    '<path d="M-1 1 L1 -1 M0 6 L6 0 M5 7 L7 5" stroke="currentColor" stroke-width="1.5"/>',
    '<circle cx="3" cy="3" r="1.4" fill="currentColor"/>',
    '<path d="M0 0 L6 6 M6 0 L0 6" stroke="currentColor" stroke-width="1"/>',
    "",
)


def _patterns(chart_id: str, count: int) -> str:
    defs = ["<defs>"]
    for k in range(count):
        defs.append(f'<pattern id="{escape(chart_id)}-pattern-{k}" class="series-{k}" '
                    f'width="6" height="6" patternUnits="userSpaceOnUse">'
                    f"{PATTERNS[k % len(PATTERNS)]}</pattern>")
    defs.append("</defs>")
    return "".join(defs)

"""Turn the progress page's numbers into charts: reviews per day, retention per week against
the desired retention, and the due forecast (``web.charts`` draws them; the words are here).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from flask_babel import gettext as _

from quizsvc.review.scheduling import ForecastDay
from quizsvc.study.statistics import ReviewStatistics
from quizsvc.web import charts


def percent(share: float) -> str:
    """Write a share as a whole percentage."""
    return f"{share * 100:.0f}%"


def tick(day: date) -> str:
    """Write a day as the axis shows it (month-day: the year is in the table)."""
    return day.strftime("%m-%d")


def reviews_chart(stats: ReviewStatistics) -> charts.Chart:
    """Draw the reviews of each of the last 30 days."""
    days = stats.reviews_per_day
    return charts.bar_chart(
        "reviews-per-day", _("Reviews per day, last 30 days"),
        [d.day.isoformat() for d in days], [d.reviews for d in days],
        ticks=[tick(d.day) for d in days], x_label=_("Day"), y_label=_("Reviews"),
        empty_note=_("No reviews in these 30 days"),
        description=_("Every review counts: questions and flashcards."), dated_rows=True)


def retention_chart(stats: ReviewStatistics) -> charts.Chart:
    """Draw the share of reviews recalled per week, with the desired retention as a line."""
    weeks = stats.retention
    desired = stats.desired_retention
    starts = [w.first_day.isoformat() for w in weeks]
    rows = [(start, str(w.reviews), str(w.recalled),
             "—" if w.retention is None else percent(w.retention))
            for start, w in zip(starts, weeks, strict=True)]
    return charts.line_chart(
        "retention-per-week", _("Recalled per week, against your desired retention"),
        starts, [w.retention for w in weeks], ticks=[tick(w.first_day) for w in weeks],
        x_label=_("Week starting"), y_label=_("Recalled"), y_range=(0.0, 1.0),
        reference=desired, reference_label=_("Desired retention"), fmt=percent,
        empty_note=_("No reviews of learned cards yet"),
        description=_("The share of reviews of cards you had already learned that you "
                      "recalled (rated anything but Again). Near the dashed line, the "
                      "schedule keeps its promise; far below it, cards come back too late."),
        table=((_("Week starting"), _("Reviews of learned cards"), _("Recalled"),
                _("Share recalled")), rows), dated_rows=True)


def forecast_chart(forecast: Sequence[ForecastDay]) -> charts.Chart:
    """Draw how many cards fall due on each of the next 30 days (overdue ones today)."""
    return charts.bar_chart(
        "due-forecast", _("Due over the next 30 days"),
        [d.day.isoformat() for d in forecast], [d.count for d in forecast],
        ticks=[tick(d.day) for d in forecast], x_label=_("Day"), y_label=_("Due"),
        empty_note=_("Nothing falls due in the next 30 days"),
        description=_("Cards already overdue count today."), dated_rows=True)


def progress_charts(stats: ReviewStatistics, forecast: Sequence[ForecastDay]
                    ) -> list[charts.Chart]:
    """Return the progress page's three charts, in the order it shows them."""
    return [reviews_chart(stats), retention_chart(stats), forecast_chart(forecast)]

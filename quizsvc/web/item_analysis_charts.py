"""Turn the item analysis into charts: facility and discrimination per answered question
(``web.charts`` draws them, each with its table a fold away; the words are here).

The x axis numbers the questions in the bank's order (1, 2, ...): their titles are too long
for an axis, and the table under each chart names them.
"""

from __future__ import annotations

from flask_babel import gettext as _

from quizsvc.study.item_analysis import ItemAnalysisReport, ItemRow
from quizsvc.web import charts
from quizsvc.web.presentation import text_in


def percent(share: float) -> str:
    """Write a share as a whole percentage."""
    return f"{share * 100:.0f}%"


def answered(report: ItemAnalysisReport) -> list[ItemRow]:
    """Return the questions with answers, in the bank's order."""
    return [item for item in report.items if item.stats.answers]


def facility_chart(report: ItemAnalysisReport, lang: str) -> charts.Chart:
    """Draw each answered question's facility (share right)."""
    items = answered(report)
    names = [f"{n}. {text_in(item.title, lang)} ({item.stats.question_id})"
             for n, item in enumerate(items, 1)]
    rows = [(name, percent(item.stats.facility or 0.0), str(item.stats.answers))
            for name, item in zip(names, items, strict=True)]
    return charts.bar_chart(
        "facility-chart", _("Facility: the share of first answers that were right"), names,
        [item.stats.facility or 0.0 for item in items],
        ticks=[str(n) for n in range(1, len(items) + 1)], x_label=_("Question"),
        y_label=_("Facility"), fmt=percent, empty_note=_("No answers yet"),
        description=_("Low bars are hard questions; a bar at 0% has no bar drawn."),
        table=((_("Question"), _("Facility"), _("Answers")), rows))


def discrimination_chart(report: ItemAnalysisReport, lang: str) -> charts.Chart:
    """Draw each answered question's discrimination index (none under the minimum count)."""
    items = answered(report)
    names = [f"{n}. {text_in(item.title, lang)} ({item.stats.question_id})"
             for n, item in enumerate(items, 1)]
    rows = [(name, "—" if item.stats.discrimination.index is None
             else f"{item.stats.discrimination.index:.2f}",
             str(item.stats.discrimination.learners))
            for name, item in zip(names, items, strict=True)]
    return charts.bar_chart(
        "discrimination-chart", _("Discrimination: how well each question separates learners"),
        names, [max(0.0, item.stats.discrimination.index or 0.0) for item in items],
        ticks=[str(n) for n in range(1, len(items) + 1)], x_label=_("Question"),
        y_label=_("Discrimination"), fmt=lambda value: f"{value:.2f}",
        empty_note=_("No figure yet: each needs at least %(minimum)s learners",
                     minimum=report.min_learners),
        description=_("Tall bars separate strong and weak learners well. No bar: under "
                      "%(minimum)s learners, or zero or below (the table gives the figure).",
                      minimum=report.min_learners),
        table=((_("Question"), _("Discrimination"), _("Learners")), rows))


def item_analysis_charts(report: ItemAnalysisReport, lang: str) -> list[charts.Chart]:
    """Return the item-analysis page's charts, in the order it shows them."""
    return [facility_chart(report, lang), discrimination_chart(report, lang)]

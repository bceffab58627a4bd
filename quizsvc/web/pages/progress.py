"""Serve the progress page: what is due, the forecast, mastery, calibration and retention.

The desired-retention form posts here; a value the form schema refuses re-shows the page with
the reason under the field.
"""

from __future__ import annotations

from flask import render_template, request
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.errors import Invalid
from quizsvc.http.arguments import DesiredRetentionFormSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import retention_limit
from quizsvc.review import calibration
from quizsvc.study import progress, scheduling_settings, statistics
from quizsvc.web.pages.chrome import bp, parse_form, said, see_other
from quizsvc.web.progress_charts import progress_charts

DUE_SHOWN = 20  # due cards the progress page lists, most overdue first


@bp.get("/progress")
def progress_page() -> str:
    """Show due today, the charts (reviews per day, retention per week, the 30-day
    forecast), the desired retention, mastery and calibration."""
    moved = request.args.get("moved", "")
    return render_progress(moved=int(moved) if moved.isdigit() else None)


def render_progress(retention_error: tuple[str, str] | None = None,
                    retention_value: str | None = None, moved: int | None = None) -> str:
    """Render the progress page (with the retention form's error, if any)."""
    ctx = current_context()
    summary = progress.progress_report(ctx)
    by_section = progress.section_report(ctx)
    due = progress.due_reviews(ctx, limit=DUE_SHOWN)
    charts = progress_charts(statistics.review_statistics(ctx), due.forecast)
    titles = {qid: q.title for qid, q in ctx.index.questions.items()}
    return render_template(
        "progress.html", summary=summary, due=due, charts=charts, by_section=by_section,
        calibration_words=calibration.in_words(summary.calibration),
        mastery=progress.list_mastery(ctx), titles=titles,
        scheduling=scheduling_settings.scheduling_view(ctx),
        lesson_titles={lesson_id: lesson.title for lesson_id, lesson in ctx.index.lessons.items()},
        retention_error=retention_error, retention_value=retention_value, moved=moved)


@bp.post("/progress/retention")
@retention_limit()
def set_retention() -> BaseResponse | tuple[str, int]:
    """Save the desired retention from the progress page's form; the cards follow it."""
    try:
        form = parse_form(DesiredRetentionFormSchema())
        changed = scheduling_settings.set_desired_retention(
            current_context(), form["desired_retention"])
    except Invalid as error:
        return render_progress(said(error), request.form.get("desired_retention", "")), 422
    return see_other("web.progress_page", anchor="retention",
                     moved=str(changed.rescheduled_cards or 0))

"""The learner's pages, one module per area, as ``quizsvc.api.resources`` is for the API.

``chrome`` holds the ``web`` blueprint and what every page shares (language, navigation,
refusals as pages); ``study`` the home page, sessions, questions and attempts; ``lessons`` the
lessons, their self-assessments and Anki page; ``open_book`` the page that asks before the
book opens; ``browse`` the card browser and reports of a problem; ``progress``,
``simulator`` and ``link`` their pages; ``cohorts`` joining, leaving, the instructor's page and
erasing a learner's data; ``author`` the author's sign-in and item analysis. Importing this
package adds every area's routes to ``bp``, which
``quizsvc.create_app`` registers. The presentation helpers the pages share are
``quizsvc.web.presentation``.
"""

from quizsvc.web.pages import (
    author,
    browse,
    cohorts,
    lessons,
    link,
    open_book,
    progress,
    simulator,
    study,
)
from quizsvc.web.pages.chrome import bp

__all__ = ["author", "bp", "browse", "cohorts", "lessons", "link", "open_book", "progress",
           "simulator", "study"]

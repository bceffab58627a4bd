"""Choose the request's language and say things in it through Flask-Babel.

Every interface string is an English gettext message id (``_()`` in templates and code); the
Chinese renderings live in ``quizsvc/translations/zh/LC_MESSAGES/messages.po``, compiled to
the ``.mo`` beside it (``pybabel compile``, see the README). English pages need no catalog:
the message ids are the English text. The lesson itself is not here: bank content keeps its
own zh/en fields (``bank.model.Text``).

The pages' locale comes from ``?lang=``, then the ``lang`` cookie, then Chinese, the lesson's
own language. The JSON API answers in English; an error envelope adds ``said``, the same
refusal in the request's ``Accept-Language`` (zh or en), which the pages' scripts show
(``quizsvc.http.errors``).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from babel.dates import format_timedelta
from flask import Flask, request
from flask_babel import Babel, force_locale, get_locale, gettext

from quizsvc.errors import N_
from quizsvc.http.validators import Said

LANGS: tuple[str, ...] = ("zh", "en")
LANG_COOKIE = "lang"
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


def pick_lang(value: str | None) -> str:
    """Return a supported language code, defaulting to Chinese (the lesson's own language)."""
    return value if value in LANGS else "zh"


def current_lang() -> str:
    """Return the page language: ``?lang=`` first, then the ``lang`` cookie, then Chinese."""
    return pick_lang(request.args.get("lang") or request.cookies.get(LANG_COOKIE))


def accepted_lang() -> str | None:
    """Return the language the request's ``Accept-Language`` asks for, if it names one."""
    return request.accept_languages.best_match(LANGS) if request.accept_languages else None


def init_app(app: Flask) -> None:
    """Install Flask-Babel with the page language as its locale and our catalogs."""
    Babel(app, locale_selector=current_lang, default_locale="zh",
          default_translation_directories=str(TRANSLATIONS))


def interval_text(delta: timedelta) -> str:
    """Say a next-review interval in the page's locale, short as a button needs it.

    Babel rounds to the largest unit that reaches it (``threshold=1``): "10 min", "3 days",
    "2 mths"; an interval under a minute is said as "<1 min" the way Anki's buttons do.
    """
    if delta < timedelta(minutes=1):
        return str(gettext("<1 min"))
    return str(format_timedelta(delta, threshold=1, format="short", locale=get_locale()))


def message(template: str, params: dict[str, Any] | None = None) -> str:
    """Say a message through the catalog: a service template (``quizsvc.errors``) filled
    with its ``params``, or, without params, a fixed sentence such as marshmallow's."""
    text = str(gettext(template))
    return text % params if params is not None else text


def say_reason(reason: Any, lang: str | None = None) -> str:
    """Say one field reason from a schema: a ``Said`` by its template and params, any
    other (marshmallow's fixed sentences) looked up as it is; in ``lang``, or the page's."""
    template, params = ((reason.template, reason.params) if isinstance(reason, Said)
                        else (str(reason), None))
    return message_in(lang, template, params) if lang else message(template, params)


def message_in(lang: str, template: str, params: dict[str, Any] | None = None) -> str:
    """Say a message in ``lang`` whatever the request's own locale is."""
    with force_locale(lang):
        return message(template, params)


# marshmallow's own messages for the fields our form schemas use: a form a page posts
# by hand (never the pages' own forms) may meet them. Listed so that ``pybabel extract``
# puts them in the catalog; a page looks each up as marshmallow sent it.
MARSHMALLOW_MESSAGES: tuple[str, ...] = (
    N_("Missing data for required field."),
    N_("Unknown field."),
    N_("Field may not be null."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Not a valid string."),
    N_("Not a valid boolean."),
    N_("Invalid input type."),
)

"""The interface catalog is complete, current and consistent with the code that uses it.

Every interface string is a gettext message id in the code (``_()`` in templates, ``gettext``,
``_l`` and ``N_`` in Python). These tests extract them the way ``pybabel extract`` does and
hold the committed catalogs to them, so a string added or reworded without its Chinese, or a
``.po`` edited without compiling it, fails here instead of showing English on a Chinese page.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from quizsvc.http.language import TRANSLATIONS

ROOT = Path(__file__).resolve().parents[2]
PO = TRANSLATIONS / "zh" / "LC_MESSAGES" / "messages.po"
MO = TRANSLATIONS / "zh" / "LC_MESSAGES" / "messages.mo"
KEYWORDS = {**DEFAULT_KEYWORDS, "_l": None, "_lp": ((1, "c"), 2)}
METHODS = [("quizsvc/**.py", "python"), ("quizsvc/web/templates/**.html", "jinja2")]


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale="zh")


def extracted() -> set[tuple[str | None, str | tuple[str, ...]]]:
    """The message ids the code uses, as (context, id) pairs."""
    found: set[tuple[str | None, str | tuple[str, ...]]] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(ROOT), METHODS, keywords=KEYWORDS):
        found.add((context, message if isinstance(message, str) else tuple(message)))
    return found


def catalog_ids(catalog: Catalog) -> set[tuple[str | None, str | tuple[str, ...]]]:
    return {(m.context, m.id if isinstance(m.id, str) else tuple(m.id))
            for m in catalog if m.id}


def test_every_interface_string_of_the_code_has_its_chinese() -> None:
    catalog = read_catalog(PO)
    missing = extracted() - catalog_ids(catalog)
    assert not missing, f"run the README's pybabel extract/update and translate: {missing}"
    untranslated = [m.id for m in catalog if m.id and (m.fuzzy or not (
        m.string if isinstance(m.string, str) else all(m.string)))]
    assert not untranslated


def test_the_catalog_holds_no_string_the_code_no_longer_uses() -> None:
    stale = catalog_ids(read_catalog(PO)) - extracted()
    assert not stale, f"run the README's pybabel update (it drops them): {stale}"


def test_each_translation_keeps_the_placeholders_of_its_message_id() -> None:
    problems = [(message.id, [str(error) for error in errors])
                for message, errors in read_catalog(PO).check() if errors]
    assert not problems


def test_the_committed_compiled_catalog_is_the_po_compiled() -> None:
    compiled = io.BytesIO()
    write_mo(compiled, read_catalog(PO))
    with MO.open("rb") as committed:
        shipped = read_mo(committed)
    fresh = read_mo(io.BytesIO(compiled.getvalue()))
    assert {(m.context, str(m.id)): m.string for m in shipped if m.id} == {
        (m.context, str(m.id)): m.string for m in fresh if m.id}, "run pybabel compile"


@pytest.mark.parametrize("path", ["/", "/quiz", "/lessons", "/progress", "/link"])
def test_pages_speak_the_chosen_language_and_remember_it(client: object, path: str) -> None:
    english = client.get(f"{path}?lang=en")  # type: ignore[attr-defined]
    assert english.status_code == 200 and 'lang="en"' in english.get_data(as_text=True)
    again = client.get(path).get_data(as_text=True)  # type: ignore[attr-defined]
    assert 'lang="en"' in again  # the cookie keeps the choice
    chinese = client.get(f"{path}?lang=zh").get_data(as_text=True)  # type: ignore[attr-defined]
    assert 'lang="zh' in chinese and "闭卷测验" in chinese

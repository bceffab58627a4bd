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


def test_every_bound_the_ledger_reports_has_a_word_on_the_page() -> None:
    from quizsvc.ledger.output import BOUNDS
    from quizsvc.web import labels

    assert set(BOUNDS) | {"not eligible"} <= set(labels.BOUNDS)
    assert {f"bound_{name}" for name in labels.BOUNDS} <= set(labels.SIMULATOR_SCRIPT)


def test_marshmallows_range_length_and_choice_refusals_keep_their_template() -> None:
    import marshmallow as ma

    from quizsvc.http.validators import Length, OneOf, Range, Said

    class Form(ma.Schema):
        size = ma.fields.Integer(validate=Range(min=1, max=50))
        code = ma.fields.String(validate=Length(min=1, max=4))
        mode = ma.fields.String(validate=OneOf(["quiz", "review"]))

    with pytest.raises(ma.ValidationError) as caught:
        Form().load({"size": 0, "code": "ABCDE", "mode": "x"})
    size, code, mode = (caught.value.messages[k][0] for k in ("size", "code", "mode"))
    # The same English as marshmallow's own, and the template a catalog can say.
    assert size == "Must be greater than or equal to 1 and less than or equal to 50."
    assert code == "Longer than maximum length 4." or code.startswith("Length must be")
    assert mode == "Must be one of: quiz, review."
    assert all(isinstance(m, Said) for m in (size, code, mode))
    assert size.template % size.params == size


def test_a_schema_refusal_on_a_chinese_page_is_said_in_chinese(client: object) -> None:
    client.get("/?lang=zh")  # type: ignore[attr-defined]
    csrf = client.get_cookie("csrf_token").value  # type: ignore[attr-defined]
    page = client.post("/link/redeem", data={  # type: ignore[attr-defined]
        "csrf_token": csrf, "code": "X" * 65})
    assert page.status_code == 422
    text = page.get_data(as_text=True)
    assert "长度必须在 1 到 64 之间。" in text and 'maxlength="64"' in text


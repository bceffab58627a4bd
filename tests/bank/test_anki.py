"""The Anki export: what the deck holds, and what the real Anki client makes of the package.

The client is the ``anki`` package from PyPI (the library inside Anki's desktop app): it
imports each package into a fresh collection in a temporary folder, as File > Import does.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from quizsvc.bank import BankError, anki, read_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR, Bank
from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import QuestionKind
from quizsvc.bank.publication import Publication
from tests.support.anki import anki_collection, import_package
from tests.support.isolation import WEB_OR_DATABASE, pulled_in

LESSON = "vllm-v1-ledger"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
NOTE_TYPES = {anki.FLASHCARD: "quizsvc flashcard", anki.GLOSSARY: "quizsvc glossary term",
              anki.CONCEPT: "quizsvc concept check", anki.WORKED: "quizsvc worked example"}
CHANGED_CARD = "card-kv-blocks"


@pytest.fixture(scope="module")
def bank() -> Bank:
    """Return the real bank, its lesson's glossary included."""
    return read_bank(DEFAULT_BANK_DIR)


def kinds(bank: Bank) -> dict[QuestionKind, int]:
    """Count the lesson's questions by kind."""
    found: dict[QuestionKind, int] = {}
    for question in bank.questions_for(LESSON):
        found[question.kind] = found.get(question.kind, 0) + 1
    return found


def expected_counts(bank: Bank) -> dict[str, int]:
    """Say how many notes of each kind the lesson should give: every flashcard, term and
    explain question, the graded concept checks that keep contents for what leaves the
    server, and a few worked examples of every numeric question."""
    by_kind = kinds(bank)
    publication = Publication(bank)
    publishing = sum(publication.publishes(q) for q in bank.questions_for(LESSON)
                     if q.kind in GRADED and q.kind is not QuestionKind.NUMERIC)
    return {anki.FLASHCARD: by_kind[QuestionKind.FLASHCARD],
            anki.GLOSSARY: len(bank.lessons[LESSON].glossary),
            anki.CONCEPT: by_kind[QuestionKind.EXPLAIN] + publishing,
            anki.WORKED: anki.WORKED_EXAMPLES * by_kind[QuestionKind.NUMERIC]}


def publishing_concept_check(bank: Bank) -> str:
    """Return the id of a single-choice concept check the deck holds."""
    publication = Publication(bank)
    return next(q.id for q in bank.questions_for(LESSON)
                if q.kind is QuestionKind.CHOICE and publication.publishes(q))


def test_the_deck_holds_every_flashcard_term_and_explanation_and_what_may_leave(bank):
    deck = anki.build_deck(bank, LESSON, "both")
    assert deck.counts() == expected_counts(bank)
    assert deck.counts()[anki.WORKED] >= 3 and deck.counts()[anki.CONCEPT] >= 3
    assert len({note.guid for note in deck.notes}) == len(deck.notes)


def test_note_guids_come_from_the_ids_and_are_the_same_in_every_export(bank):
    decks = [anki.build_deck(bank, LESSON, lang) for lang in anki.LANG_MODES]
    guids = [[note.guid for note in deck.notes] for deck in decks]
    assert guids[0] == guids[1] == guids[2]
    assert anki.guid("question", CHANGED_CARD) in guids[0]
    assert anki.guid("glossary", LESSON, "token-budget") in guids[0]
    assert anki.guid("example", "spec-demand", "3") in guids[0]


def test_numeric_questions_become_fixed_worked_examples_clearly_marked(bank):
    deck = anki.build_deck(bank, LESSON, "en")
    examples = [note for note in deck.notes if note.kind == anki.WORKED]
    assert all("quizsvc::worked-example" in note.tags for note in examples)
    first = next(note for note in examples if note.fields[0] == "spec-demand")
    assert "Worked example 1 of 3 (fixed numbers" in first.fields[2]
    assert "例题 1/3" in first.fields[1]
    [variant, *_] = Publication(bank).variants(bank.questions["spec-demand"], 3)
    assert str(variant.answer[0]) in first.fields[4]


def test_a_concept_check_shows_its_options_in_front_and_the_answer_and_why_behind(bank):
    deck = anki.build_deck(bank, LESSON, "zh")
    question = bank.questions[publishing_concept_check(bank)]
    note = next(n for n in deck.notes if n.fields[0] == question.id)
    fields = dict(zip(anki.FIELDS[anki.CONCEPT], note.fields, strict=True))
    [variant] = Publication(bank).variants(question, 1)
    ids = [o.id for o in variant.input.options]
    right = variant.input.options[ids.index(variant.answer)]
    letter = anki.LETTERS[ids.index(variant.answer)]
    assert fields["Question zh"].startswith(anki.inline_html(variant.prompt.zh)[:20])
    assert fields["Question zh"].count("<li>") == len(ids)
    assert '<ol type="A">' in fields["Question zh"]
    assert f"{letter}. {anki.inline_html(right.text.zh)}</div>" in fields["Answer zh"]
    assert f"{letter}. {anki.inline_html(right.text.en)}</div>" in fields["Answer en"]
    anchor = question.anchors[0]
    assert fields["Source"].startswith(
        f"{anchor.file} · {anchor.function} · {anchor.lines[0]}-{anchor.lines[1]}")
    for wrong in variant.misconceptions:
        wrong_letter = anki.LETTERS[ids.index(wrong.answer)]
        assert f"{wrong.name.zh}: {wrong_letter}. " in fields["Explanation zh"]
    assert set(note.tags) >= {"quizsvc", "quizsvc::lesson::vllm-v1-ledger",
                              f"quizsvc::section::{question.section}",
                              "quizsvc::concept-check", *question.tags}


def test_glossary_terms_are_notes_of_their_own(bank):
    deck = anki.build_deck(bank, LESSON, "both")
    terms = {note.fields[0]: note for note in deck.notes if note.kind == anki.GLOSSARY}
    glossary = bank.lessons[LESSON].glossary
    assert list(terms) == [term.id for term in glossary]
    assert terms["token-budget"].fields[1:] == (
        "token_budget", "token 预算", "token budget",
        "每次 schedule() 从 max_num_scheduled_tokens 开始，每个被调度请求扣 n。",
        "Starts at max_num_scheduled_tokens at every schedule(); each scheduled request takes n.")
    for term in glossary:
        assert f"quizsvc::rule::{term.rule}" in terms[term.id].tags, term.id


def test_a_lesson_without_a_glossary_gives_no_glossary_notes(tiny_bank):
    from tests.support.tiny_bank import LESSON as TINY

    plain = read_bank(tiny_bank)
    assert plain.lessons[TINY].glossary == ()
    deck = anki.build_deck(plain, TINY, "zh")
    assert deck.counts()[anki.GLOSSARY] == 0
    assert deck.counts()[anki.CONCEPT] == sum(
        Publication(plain).publishes(q) for q in plain.questions_for(TINY)
        if q.kind in GRADED and q.kind is not QuestionKind.NUMERIC)


def test_the_deck_says_anki_study_never_becomes_mastery(bank):
    for lang in anki.LANG_MODES:
        description = anki.build_deck(bank, LESSON, lang).description
        assert ("never" in description or "不会成为掌握记录" in description
                or "becomes mastery" in description)


@pytest.mark.parametrize(("lesson", "lang", "error"), [
    ("no-such-lesson", "zh", BankError), (LESSON, "fr", ValueError)])
def test_an_unknown_lesson_or_language_is_refused(bank, lesson, lang, error):
    with pytest.raises(error):
        anki.build_deck(bank, lesson, lang)


# ---------------------------------------------------------------- the real client


def test_anki_imports_the_package_with_its_deck_notes_fields_and_tags(bank, tmp_path):
    deck = anki.build_deck(bank, LESSON, "zh")
    with anki_collection(tmp_path) as collection:
        log = import_package(collection, anki.package(deck, NOW), tmp_path / "deck.apkg")
        assert len(log.new) == len(deck.notes) and not log.updated and not log.duplicate
        names = [d.name for d in collection.decks.all_names_and_ids()]
        assert deck.name in names
        assert deck.name == ("quizsvc::vLLM 调度账本:预算、在途工作与投机回退 / The vLLM "
                             "scheduling ledger: budgets, in-flight work and speculative "
                             "rollback")
        counts = {kind: len(collection.find_notes(f'"note:{name}"'))
                  for kind, name in NOTE_TYPES.items()}
        assert counts == expected_counts(bank)
        assert len(collection.find_cards(f'"deck:{deck.name}"')) == len(deck.notes)

        flashcard = collection.get_note(collection.find_notes(f'"Id:{CHANGED_CARD}"')[0])
        assert flashcard.keys() == list(anki.FIELDS[anki.FLASHCARD])
        assert flashcard["Front zh"] == "一次 KV 分配需要多少块？"
        assert flashcard["Front en"] == "How many blocks does one KV allocation need?"
        assert "all or nothing" in flashcard["Back en"]
        assert flashcard["Source"].startswith("vllm/v1/core/kv_cache_manager.py")
        assert set(flashcard.tags) == {"quizsvc", "quizsvc::lesson::vllm-v1-ledger",
                                       "quizsvc::section::kv-preemption",
                                       "quizsvc::flashcard", "kv-blocks", "formula"}
        card = flashcard.cards()[0]
        assert "一次 KV 分配需要多少块？" in card.question()
        assert "How many blocks" not in card.question()  # zh only on a zh deck
        assert "全有或全无" in card.answer()

        term = collection.get_note(collection.find_notes('"Id:token-budget"')[0])
        assert term["Term"] == "token_budget" and term["Name en"] == "token budget"
        assert "quizsvc::glossary" in term.tags and "quizsvc::rule::two-budgets" in term.tags
        example = collection.find_notes("tag:quizsvc::worked-example")
        assert len(example) == expected_counts(bank)[anki.WORKED]


def changed_bank(tmp_path: Path) -> Bank:
    """Copy the real bank and change the back of one flashcard."""
    root = tmp_path / "changed-bank"
    shutil.copytree(DEFAULT_BANK_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / LESSON / "questions" / "flashcard" / f"{CHANGED_CARD}.yaml"
    card = yaml.safe_load(path.read_text(encoding="utf-8"))
    card["back"]["en"] = "Enough blocks for C + hit + n + L positions, or none at all."
    path.write_text(yaml.safe_dump(card, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return read_bank(root)


def test_importing_a_newer_export_updates_the_changed_note_and_adds_none(bank, tmp_path):
    first = anki.build_deck(bank, LESSON, "en")
    newer = anki.build_deck(changed_bank(tmp_path), LESSON, "en")
    changed = [a.guid for a, b in zip(first.notes, newer.notes, strict=True) if a != b]
    assert changed == [anki.guid("question", CHANGED_CARD)]
    with anki_collection(tmp_path) as collection:
        import_package(collection, anki.package(first, NOW), tmp_path / "first.apkg")
        fields_before = {collection.get_note(n).guid: collection.get_note(n).fields
                         for n in collection.find_notes("")}
        # Study one card in Anki meanwhile: an update must keep its schedule.
        card_id = collection.find_cards(f'"Id:{CHANGED_CARD}"')[0]
        collection.sched.set_due_date([card_id], "5")
        studied = collection.get_card(card_id)

        log = import_package(collection, anki.package(newer, NOW + timedelta(days=7)),
                             tmp_path / "newer.apkg")
        assert not log.new
        updated = {collection.get_note(entry.id.nid).guid for entry in log.updated}
        assert anki.guid("question", CHANGED_CARD) in updated
        assert collection.note_count() == len(first.notes)
        assert collection.card_count() == len(first.notes)
        note = collection.get_note(collection.find_notes(f'"Id:{CHANGED_CARD}"')[0])
        assert note["Back en"] == "Enough blocks for C + hit + n + L positions, or none at all."
        fields_after = {collection.get_note(n).guid: collection.get_note(n).fields
                        for n in collection.find_notes("")}
        assert {g for g in fields_after if fields_after[g] != fields_before[g]} == set(changed)
        kept = collection.get_card(card_id)
        assert (kept.type, kept.due, kept.ivl) == (studied.type, studied.due, studied.ivl)


def test_an_export_in_another_language_updates_the_same_notes_in_the_same_deck(bank, tmp_path):
    with anki_collection(tmp_path) as collection:
        zh = anki.build_deck(bank, LESSON, "zh")
        import_package(collection, anki.package(zh, NOW), tmp_path / "zh.apkg")
        log = import_package(collection, anki.package(anki.build_deck(bank, LESSON, "en"),
                                                      NOW + timedelta(days=1)),
                             tmp_path / "en.apkg")
        assert not log.new and collection.note_count() == len(zh.notes)
        card = collection.get_card(collection.find_cards(f'"Id:{CHANGED_CARD}"')[0])
        assert "How many blocks" in card.question() and "一次 KV" not in card.question()
        assert len(collection.find_cards(f'"deck:{zh.name}"')) == len(zh.notes)


# ---------------------------------------------------------------- the command


def test_the_export_command_writes_a_package_anki_imports(tmp_path, capsys):
    from quizsvc.cli import main

    out = tmp_path / "decks" / "ledger.apkg"
    assert main(["export", "anki", "--lesson", LESSON, "--lang", "both", "--out",
                 str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "worked-example" in printed
    with anki_collection(tmp_path) as collection:
        log = import_package(collection, out.read_bytes(), tmp_path / "copy.apkg")
        assert len(log.new) == len(anki.build_deck(read_bank(DEFAULT_BANK_DIR), LESSON,
                                                   "both").notes)


@pytest.mark.parametrize(("args", "message"), [
    (["--lesson", "nope"], "no lesson"), (["--lesson", LESSON, "--lang", "fr"], "invalid")])
def test_the_export_command_refuses_an_unknown_lesson_or_language(tmp_path, args, message,
                                                                  capsys):
    from quizsvc.cli import main

    try:
        status = main(["export", "anki", *args, "--out", str(tmp_path / "x.apkg")])
    except SystemExit as stop:  # argparse's refusal of --lang
        status = stop.code
    assert status == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.apkg").exists()


def test_the_anki_export_imports_no_web_or_database_code():
    # The bank validates its files with marshmallow; the web and the database stay out.
    assert pulled_in(("quizsvc.bank.anki", "quizsvc.bank.anki_commands"),
                     WEB_OR_DATABASE - {"marshmallow"}) == []

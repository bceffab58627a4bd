"""The bank points at what teaches it: rules, anchors, the glossary, forms and teaching order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from quizsvc.bank import BankError, read_bank
from quizsvc.bank.check import check_bank
from quizsvc.bank.export import variant_to_dict
from quizsvc.bank.kinds import GRADED, VARIED
from quizsvc.bank.kinds.numeric import PROMPT_FORMAT
from quizsvc.bank.model import GlossaryTerm, QuestionKind
from tests.support.tiny_bank import LESSON, choice_data, write_yaml

LESSON_ID = "vllm-v1-ledger"


def test_every_graded_question_names_rules_that_its_lesson_defines(bank):
    lesson = bank.lessons[LESSON_ID]
    known = {rule.id for rule in lesson.rules}
    graded = [q for q in bank.questions.values() if q.kind in GRADED]
    assert graded and all(q.rules for q in graded)
    assert all(set(q.rules) <= known for q in bank.questions.values())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reveal_links_to_the_first_rules_anchor_which_the_lesson_text_carries(bank, lang):
    text = bank.lesson_text(LESSON_ID, lang)
    anchors = set(re.findall(r"^\{#(rule-[a-z0-9-]+)\}$", text, flags=re.M))
    for question in bank.questions.values():
        if question.kind not in GRADED:
            continue
        link = bank.variant(question.id, 0).lesson_link
        assert link == f"/lessons/{LESSON_ID}#rule-{question.rules[0]}"
        assert link.split("#")[1] in anchors


def test_rules_are_spread_over_the_sections_instead_of_one_paragraph(bank):
    links = {bank.variant(q.id, 0).lesson_link for q in bank.questions.values()
             if q.kind in GRADED}
    assert len(links) >= 30  # 31 of 58 graded questions once landed on one paragraph


def test_the_export_carries_the_rules_and_the_form(bank):
    variant = bank.variant("choice-seats", 4)
    body = variant_to_dict(variant, reveal=False)
    assert body["rules"] == ["max-num-seqs"] and body["form"] == variant.form
    assert variant_to_dict(variant)["rules"] == ["max-num-seqs"]


def test_the_glossary_loads_as_frozen_terms_with_the_agreed_field_names(bank):
    raw = yaml.safe_load((bank.root / LESSON_ID / "glossary.yaml").read_text(encoding="utf-8"))
    assert list(raw) == ["terms"]
    for entry in raw["terms"]:
        assert {"id", "term", "name", "definition", "rule"} <= set(entry)
        assert set(entry) <= {"id", "term", "name", "definition", "rule", "flashcard"}
    terms = bank.lessons[LESSON_ID].glossary
    assert all(isinstance(term, GlossaryTerm) for term in terms)
    assert len(terms) == len(raw["terms"])
    by_term = {term.term: term for term in terms}
    computed = by_term["num_computed_tokens"]
    assert computed.rule == "counters" and computed.flashcard == "card-num-computed-tokens"
    with pytest.raises(AttributeError):
        computed.rule = "other"  # frozen
    cards = {q.id for q in bank.questions.values() if q.kind is QuestionKind.FLASHCARD}
    assert all(term.flashcard in cards for term in terms if term.flashcard)


def test_at_least_half_of_the_choice_multi_and_order_questions_have_three_forms():
    report = check_bank(seeds=40, only=None)
    assert report.ok, report.errors[:5]
    varied = [s for s in report.stats if s.kind in VARIED]
    assert len(varied) >= 20
    assert sum(s.forms >= 3 for s in varied) * 2 >= len(varied)


def test_each_form_is_graded_from_its_own_key(bank):
    seen = {}
    forms = len(bank.entry("choice-threshold-lone").spec["forms"])
    for seed in range(60):
        variant = bank.variant("choice-threshold-lone", seed)
        seen.setdefault(variant.form, variant)
    assert sorted(seen) == list(range(forms))
    for variant in seen.values():
        assert bank.grade(variant, variant.answer).correct
        others = [o.id for o in variant.input.options if o.id != variant.answer]
        assert not any(bank.grade(variant, other).correct for other in others)
    answers = {variant.form: variant.answer for variant in seen.values()}
    assert len(set(answers.values())) > 1  # the forms' keys differ
    prompts = {variant.prompt.en for variant in seen.values()}
    assert len(prompts) == forms >= 3


def test_a_multi_pool_draws_its_options_and_grades_on_the_ones_shown(bank):
    for seed in range(10):
        variant = bank.variant("multi-schedulerout-fields", seed)
        shown = {o.id for o in variant.input.options}
        assert len(shown) == 5 and len(variant.answer) == 3
        assert set(variant.answer) <= shown
        assert bank.grade(variant, variant.answer).correct


def test_numbers_in_choice_statements_come_from_replayed_scenarios(bank):
    """The seats form quotes its scenario: the unused budget it states is the ledger's."""
    form = bank.entry("choice-seats").spec["forms"][0]
    assert "26" in form["options"][0]["text"]["en"]
    assert "{{" not in str(bank.entry("choice-seats").spec)


def test_the_teaching_order_starts_with_the_worked_examples_and_follows_the_rules(bank):
    lesson = bank.lessons[LESSON_ID]
    ordered = bank.teaching_order(LESSON_ID)
    assert bank.questions_for(LESSON_ID) == ordered
    assert [q.section for q in ordered[:6]] == ["mixed-step"] * 6
    assert [q.id for q in ordered[:2]] == ["mixed-step-allocation", "computed-after-schedule"]
    rule_index = {rule.id: i for i, rule in enumerate(lesson.rules)}
    section_index = {s.id: i for i, s in enumerate(lesson.sections)}
    def group(q):
        return 0 if q.kind is QuestionKind.NUMERIC else 1 if q.kind in GRADED else 2

    keys = [(section_index[q.section], group(q), rule_index[q.rules[0]])
            for q in ordered if q.rules]
    assert keys == sorted(keys)
    first_self_rated = next(i for i, q in enumerate(ordered) if group(q) == 2)
    assert all(group(q) < 2 for q in ordered[:first_self_rated])
    assert ordered[first_self_rated].section == "mixed-step"


def test_counts_in_english_prompts_agree_with_their_nouns():
    assert PROMPT_FORMAT.vformat("{n:token|tokens} and {m:block is|blocks are}", (),
                                 {"n": 1, "m": 3}) == "1 token and 3 blocks are"
    assert PROMPT_FORMAT.vformat("{n:draft|drafts}", (), {"n": 0}) == "0 drafts"


# ---------------------------------------------------------------- the check fails when it must


def break_it(root: Path, change) -> list[str]:
    change(root / LESSON)
    return check_bank(root, seeds=2).errors


def test_the_check_fails_on_a_rule_that_no_page_teaches(tiny_bank):
    def drop_anchor(lesson: Path) -> None:
        text = lesson / "lesson.en.md"
        text.write_text(text.read_text(encoding="utf-8").replace("{#rule-running-first}\n", ""),
                        encoding="utf-8")

    errors = break_it(tiny_bank, drop_anchor)
    assert any("rule running-first (en): no page teaches it" in e for e in errors)


def test_the_check_fails_on_a_graded_question_without_rules(tiny_bank):
    data = choice_data()
    del data["rules"]
    write_yaml(tiny_bank / LESSON / "questions" / "pick-one.yaml", data)
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "rules"
    assert "pick-one.yaml: rules:" in check_bank(tiny_bank, seeds=1).errors[0]


def test_the_check_fails_on_a_prompt_term_the_glossary_lacks(tiny_bank):
    data = choice_data()
    data["prompt"] = {"zh": "num_computed_tokens 何时增加？",
                      "en": "When does num_computed_tokens rise?"}
    write_yaml(tiny_bank / LESSON / "questions" / "pick-one.yaml", data)
    errors = check_bank(tiny_bank, seeds=1).errors
    assert any("the glossary lacks 'num_computed_tokens'" in e for e in errors)


def test_the_check_fails_on_a_debug_log_or_a_count_that_disagrees(tiny_bank):
    data = choice_data()
    data["solution"] = {"zh": "分配为 {'A': 1}。", "en": "It gets 1 tokens (SPEC §5)."}
    data["prompt"] = {"zh": "需要几块？", "en": "It needs 3 block(s). Which one?"}
    write_yaml(tiny_bank / LESSON / "questions" / "pick-one.yaml", data)
    errors = check_bank(tiny_bank, seeds=1).errors
    assert any("reads like a debug log" in e and ".zh" in e for e in errors)
    assert any("'1 tokens'" in e for e in errors)
    assert any("prompt.en: 'k(s)'" in e for e in errors)


def test_an_unknown_quote_in_a_question_is_a_load_error_naming_the_file(tiny_bank):
    data = choice_data()
    data["prompt"] = {"zh": "{{nowhere.A.n}} 个", "en": "{{nowhere.A.n}} tokens"}
    write_yaml(tiny_bank / LESSON / "questions" / "pick-one.yaml", data)
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "(texts)" and "nowhere" in caught.value.reason


def test_a_glossary_term_must_name_a_known_rule_and_flashcard(tiny_bank):
    term = {"id": "ledger", "term": "C", "name": {"zh": "账本", "en": "ledger"},
            "definition": {"zh": "计数", "en": "a count"}, "rule": "running-first",
            "flashcard": "no-such-card"}
    write_yaml(tiny_bank / LESSON / "glossary.yaml", {"terms": [term]})
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "terms.0.flashcard"
    term["rule"] = "elsewhere"
    write_yaml(tiny_bank / LESSON / "glossary.yaml", {"terms": [term]})
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "terms.0.rule"


def test_a_broken_quote_in_the_lesson_text_fails_the_load_not_a_page(tiny_bank):
    text = tiny_bank / LESSON / "lesson.zh.md"
    text.write_text(text.read_text(encoding="utf-8") + "\n{{nowhere.A.n}}\n", encoding="utf-8")
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "text.zh" and "nowhere" in caught.value.reason

"""Hold the bank's promises about its texts: what it tests is taught, what it says is defined.

``quizsvc bank check`` runs these over a loaded bank:

- every rule is taught: its anchor ``{#rule-<id>}`` heads a subsection of its own section in
  every language of the lesson, a worked example sits in that subsection, the quick reference
  links to it, and at least one graded question tests it;
- every term a learner reads in a question (prompt, option, solution, flashcard) is in the
  lesson's glossary: code-like names (``num_computed_tokens``, ``SchedulerOutput``, ``EOS``)
  are found mechanically, plain lesson words (prefill, draft, preemption...) from
  ``LESSON_WORDS``;
- no learner-facing text is a debug log: no Python reprs (``{'R1': 1}``) and no internal
  references (the spec's section signs, golden-trace names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from quizsvc.bank.examples import BLOCK
from quizsvc.bank.model import Lesson, Text, Variant

RULE_ANCHOR = re.compile(r"^\{#rule-([a-z0-9]+(?:-[a-z0-9]+)*)\}[ \t]*$", re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$", re.MULTILINE)
# Code-like names: snake_case with an underscore, CamelCase with two capitals or more (an
# optional leading underscore), and ALL-CAPS words of two letters or more.
SNAKE = re.compile(r"(?<![\w.])_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])")
CAMEL = re.compile(r"(?<![\w.])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?!\w)|(?<![\w.])[A-Z]{2,}[a-z]\w*")
CAPS = re.compile(r"(?<![\w.])[A-Z]{2,}(?:_[A-Z]+)*(?![\w.])")
DOTTED = re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+\b")
# The lesson's plain-language words that a learner must be able to look up, as the English
# texts write them (the Chinese texts use the same terms or their translations).
LESSON_WORDS: dict[str, str] = {
    "prefill": r"\bprefill(?:s|ed|ing)?\b",
    "chunked prefill": r"\bchunked prefill",
    "decode": r"\bdecod(?:e|es|ed|ing)\b",
    "draft": r"\bdrafts?\b",
    "bonus token": r"\bbonus token",
    "lookahead": r"\blookahead\b",
    "placeholder": r"\bplaceholders?\b",
    "preemption": r"\bpreempt(?:s|ed|ion|ing)?\b",
    "prefix cache": r"\bprefix[- ]cach(?:e|ing)\b|\bprefix hit",
    "KV block": r"\bKV blocks?\b|\bblocks?\b",
    "null block": r"\bnull block",
    "batch queue": r"\bbatch queue",
    "admission": r"\badmi(?:t|ts|tted|ssion|ssions)\b",
    "head-of-line blocking": r"\bhead-of-line\b",
    "running loop": r"\brunning loop\b",
    "waiting loop": r"\bwaiting loop\b",
    "demand": r"\bdemand\b",
    "rollback": r"\broll(?:ed|s)? back\b|\brollback\b",
    "in flight": r"\bin flight\b|\bin-flight\b",
    "sync scheduling": r"\bsync(?:hronous)?\b",
    "async scheduling": r"\basync(?:hronous)?\b",
}
# Plain English that looks like a code name but is not a lesson term.
NOT_TERMS = frozenset({"OK", "ID", "IDS", "CPU", "GPU", "API", "JSON", "URL", "HTML", "I", "II"})
# Learner-facing text never shows these: Python reprs, internal references.
DEBUG_TEXT = re.compile(
    r"\{'|\['|\{\"|\": |SPEC\b|§|\bgolden\b|\btrace\.json\b|\bs\d\d_[a-z_]+\.py\b"
)
# An English count that disagrees with its noun ("1 requests").
ONE_PLURAL = re.compile(
    r"(?<![\d.])(?<![+−-] )1 "
    r"(?:requests|tokens|drafts|blocks|outputs|steps|entries|seats|positions)\b"
)
# "block(s)": a count whose noun hedges instead of agreeing with the number.
HEDGED_PLURAL = re.compile(r"\w\(s\)")
# Template fields and file names are not terms: ``{running_names}``, ``scheduler.py``.
NOT_TEXT = re.compile(r"\{[A-Za-z_]\w*(?::[^}]*)?\}|\b\w+\.py\b")


@dataclass(frozen=True)
class LearnerText:
    """One piece of learner-facing text of a question, and where it came from."""

    question_id: str
    where: str
    text: Text


def question_texts(question_id: str, spec: dict[str, Any]) -> Iterator[LearnerText]:
    """Yield every text of a question's file a learner reads: each form's prompt, options,
    items and solution, a flashcard's front and back, the title."""
    yield LearnerText(question_id, "title", Text(**spec["title"]))
    for index, part in enumerate([spec, *(spec.get("forms") or [])]):
        prefix = "" if index == 0 else f"forms.{index - 1}."
        for key in ("prompt", "solution", "front", "back"):
            if part.get(key):
                yield LearnerText(question_id, prefix + key, Text(**part[key]))
        for key in ("options", "items"):
            for i, option in enumerate(part.get(key) or []):
                yield LearnerText(question_id, f"{prefix}{key}.{i}", Text(**option["text"]))


def code_terms(body: str) -> set[str]:
    """Return the code-like names in ``body``: each part of a dotted name counts on its own."""
    body = NOT_TEXT.sub(" ", body)
    found: set[str] = set()
    for match in DOTTED.finditer(body):
        for part in match.group(0).split("."):
            found |= code_terms(part) if "." not in part else set()
    plain = DOTTED.sub(" ", body)
    for pattern in (SNAKE, CAMEL, CAPS):
        found.update(pattern.findall(plain))
    return {term for term in found if term not in NOT_TERMS}


def plain_terms(body: str) -> set[str]:
    """Return the lesson words (``LESSON_WORDS``) that ``body`` (English) uses."""
    return {word for word, pattern in LESSON_WORDS.items() if re.search(pattern, body)}


def missing_terms(texts: Iterable[LearnerText], glossary_terms: set[str]) -> dict[str, set[str]]:
    """Return, per term the glossary lacks, the questions whose texts use it."""
    missing: dict[str, set[str]] = {}
    for item in texts:
        used = code_terms(item.text.zh) | code_terms(item.text.en) | plain_terms(item.text.en)
        for term in used - glossary_terms:
            missing.setdefault(term, set()).add(item.question_id)
    return missing


def debug_text(texts: Iterable[LearnerText]) -> list[str]:
    """Return a problem for every learner-facing text that reads like a debug log, or whose
    English counts disagree with their nouns."""
    problems = []
    seen: set[tuple[str, str, str]] = set()  # one report per question, language and finding
    for item in texts:
        for lang in ("zh", "en"):
            found = DEBUG_TEXT.search(item.text.get(lang))
            if found and (item.question_id, lang, found.group(0)) not in seen:
                seen.add((item.question_id, lang, found.group(0)))
                problems.append(f"{item.question_id} {item.where}.{lang}: reads like a debug log "
                                f"({found.group(0)!r}); write it for a learner")
        wrong = ONE_PLURAL.search(item.text.en) or HEDGED_PLURAL.search(item.text.en)
        if wrong and (item.question_id, "en", wrong.group(0)) not in seen:
            seen.add((item.question_id, "en", wrong.group(0)))
            problems.append(f"{item.question_id} {item.where}.en: {wrong.group(0)!r}: the noun "
                            "must agree with its number")
    return problems


def variant_texts(variant: Variant) -> Iterator[LearnerText]:
    """Yield the texts a learner reads of one built variant: prompt, options, solution."""
    where = f"seed {variant.seed}"
    yield LearnerText(variant.question_id, f"{where} prompt", variant.prompt)
    yield LearnerText(variant.question_id, f"{where} solution", variant.solution)
    for option in variant.input.options:
        yield LearnerText(variant.question_id, f"{where} option {option.id}", option.text)


def sections_of(markdown: str) -> dict[str, str]:
    """Split a lesson text at its level-2 headings: heading text -> the text under it."""
    parts: dict[str, str] = {}
    matches = [m for m in HEADING.finditer(markdown) if len(m.group(1)) == 2]
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(markdown)
        parts[match.group(2)] = markdown[match.end():end]
    return parts


def rule_blocks(section_text: str) -> dict[str, str]:
    """Split a section's text at its rule anchors: rule id -> that rule's subsection."""
    blocks: dict[str, str] = {}
    anchors = list(RULE_ANCHOR.finditer(section_text))
    for index, match in enumerate(anchors):
        end = anchors[index + 1].start() if index + 1 < len(anchors) else len(section_text)
        blocks[match.group(1)] = section_text[match.end():end]
    return blocks


def rule_problems(lesson: Lesson, texts: dict[str, str], reference: dict[str, str],
                  example_rules: dict[str, str], tested: set[str]) -> list[str]:
    """Return a problem for every rule of ``lesson`` that no page teaches as promised.

    ``texts``/``reference`` map a language to the raw markdown; ``example_rules`` maps an
    example id to its rule; ``tested`` holds the rules some graded question names.
    """
    problems = []
    headings = {section.id: section.heading for section in lesson.sections}
    for lang, markdown in texts.items():
        sections = sections_of(markdown)
        for rule in lesson.rules:
            heading = headings.get(rule.section)
            where = f"rule {rule.id} ({lang})"
            body = sections.get(heading.get(lang)) if heading else None
            if body is None:
                problems.append(f"{where}: its section {rule.section!r} has no heading in the text")
                continue
            block = rule_blocks(body).get(rule.id)
            if block is None:
                problems.append(f"{where}: no page teaches it: no {{#rule-{rule.id}}} heading in "
                                f"section {rule.section!r}")
                continue
            if not re.match(r"\s*###\s+\S", block):
                problems.append(f"{where}: its anchor must sit right above its heading")
            placed = [e for e in BLOCK.findall(block) if example_rules.get(e) == rule.id]
            if not placed:
                problems.append(f"{where}: no worked example of this rule in its subsection")
    for lang, markdown in reference.items():
        for rule in lesson.rules:
            if f"#rule-{rule.id})" not in markdown:
                problems.append(f"rule {rule.id}: the quick reference ({lang}) does not link it")
    for rule in lesson.rules:
        if rule.id not in tested:
            problems.append(f"rule {rule.id}: no graded question tests it")
    return problems

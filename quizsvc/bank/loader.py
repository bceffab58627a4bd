"""Read a bank directory: validate every file, cross-check ids, hash the content.

Layout (one folder per lesson, one file or folder per question)::

    question_bank/<lesson-id>/lesson.yaml            sections, misconception catalogue
    question_bank/<lesson-id>/lesson.zh.md, .en.md   the lesson text the service serves
    question_bank/<lesson-id>/rules.yaml             the rules the bank tests, by section
    question_bank/<lesson-id>/glossary.yaml          every term the texts use, and where taught
    question_bank/<lesson-id>/reference.zh.md, .en.md  the quick reference (formulas, limits)
    question_bank/<lesson-id>/examples/<id>.yaml     worked examples: scenarios the texts quote
    question_bank/<lesson-id>/questions/**/<id>.yaml a choice/multi/order/anchor/flashcard/
                                                      explain question
    question_bank/<lesson-id>/questions/**/<id>/     a numeric template: question.yaml plus
                                                      its generator module

A directory holding ``question.yaml`` is a question folder; any other directory is walked for
more questions. Every problem is a ``BankError`` naming the file, the field and the reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from quizsvc.bank import examples, schema
from quizsvc.bank.errors import BankError
from quizsvc.bank.examples import QuoteError, Quotes, WorkedExample
from quizsvc.bank.kinds import KINDS, Kind
from quizsvc.bank.model import (
    GlossaryTerm,
    Lesson,
    Question,
    QuestionKind,
    Rule,
    Section,
    SourceAnchor,
    Text,
)
from quizsvc.bank.numeric import Generator, load_generator
from quizsvc.bank.schema import text

LESSON_FILE = "lesson.yaml"
RULES_FILE = "rules.yaml"
GLOSSARY_FILE = "glossary.yaml"
EXAMPLES_DIR = "examples"
QUESTION_FILE = "question.yaml"
QUESTIONS_DIR = "questions"
# Spec keys whose values are data, not learner-facing text: quotes are never filled there.
DATA_KEYS = frozenset({"scenarios", "anchors", "params", "tags", "rules", "misconceptions",
                       "forms_written"})


@dataclass(frozen=True)
class MisconceptionInfo:
    """A named wrong model from a lesson's catalogue: its name, the wrong rule it follows, and
    the lesson's rule it breaks (``rules.yaml`` id)."""

    id: str
    name: Text
    rule: Text
    breaks: str


@dataclass(frozen=True)
class LessonEntry:
    """A loaded lesson: where its texts live, its misconceptions and its worked examples.

    ``texts`` and ``reference`` map a language to the markdown file; ``examples`` are the
    replayed worked examples by id, which the lesson's texts quote; ``pages`` holds the texts
    with their examples and quotes filled in (``"lesson"`` / ``"reference"`` -> language ->
    markdown), filled when the bank loads so a broken quote fails the load, not a page.
    """

    lesson: Lesson
    directory: Path
    texts: dict[str, Path]
    misconceptions: dict[str, MisconceptionInfo]
    reference: dict[str, Path] = field(default_factory=dict)
    examples: dict[str, WorkedExample] = field(default_factory=dict)
    pages: dict[str, dict[str, str]] = field(default_factory=dict)

    def quotes(self, local: dict[str, tuple[dict[str, Any], int]] | None = None) -> Quotes:
        """Return the quotable replays: the lesson's examples, plus a question's own ones."""
        traces = {key: (ex.trace, ex.step) for key, ex in self.examples.items()}
        traces.update(local or {})
        return Quotes(traces)


@dataclass(frozen=True)
class QuestionEntry:
    """A loaded question: the public ``Question``, its validated spec, its file, its generator."""

    question: Question
    spec: dict[str, Any]
    path: Path
    generator: Generator | None = None


@dataclass(frozen=True)
class BankContent:
    """Everything read from one bank directory, before it is wrapped in a ``Bank``."""

    root: Path
    version: str
    lessons: dict[str, LessonEntry]
    questions: dict[str, QuestionEntry]


def read_yaml(path: Path) -> Any:
    """Parse one YAML file, reporting syntax errors with the file and line."""
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise BankError(str(path), where, f"invalid YAML: {problem}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BankError(str(path), "(file)", f"cannot be read: {error}") from None


def content_hash(root: Path) -> str:
    """Hash every content file of the bank, plus the ledger core's source.

    A variant is promised to be reproducible from ``(question id, seed, bank version)``; the
    answers of numeric questions come from the ledger core, so its source is part of what
    the version names. Byte caches and hidden files are left out.
    """
    digest = hashlib.sha256()
    files = [
        path
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]
    for path in files:
        digest.update(b"bank/" + path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    spec = importlib.util.find_spec("quizsvc.ledger")
    for location in (spec.submodule_search_locations or []) if spec else []:
        for path in sorted(Path(location).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(b"ledger/" + path.relative_to(location).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def replay(scenario: dict[str, Any]) -> dict[str, Any]:
    """Replay a scenario through the ledger core (imported on first use)."""
    from quizsvc.ledger import replay as ledger_replay

    return ledger_replay(scenario)


def _text_paths(directory: Path, names: dict[str, str] | None, path: Path, key: str
                ) -> dict[str, Path]:
    found = {}
    for lang, name in (names or {}).items():
        text_path = directory / name
        if not text_path.is_file():
            raise BankError(str(path), f"{key}.{lang}", f"file {name!r} not found")
        found[lang] = text_path
    return found


def read_rules(directory: Path, sections: tuple[Section, ...]) -> tuple[Rule, ...]:
    """Read ``rules.yaml`` (none: the lesson tests no named rules) and check each section."""
    path = directory / RULES_FILE
    if not path.is_file():
        return ()
    data = schema.load_with(schema.RulesFileSchema(), read_yaml(path), str(path))
    known = {section.id for section in sections}
    rules = []
    for index, item in enumerate(data["rules"]):
        if item["section"] not in known:
            raise BankError(str(path), f"rules.{index}.section",
                            f"{item['section']!r} is not a section of the lesson")
        rules.append(Rule(item["id"], text(item["title"]), item["section"]))
    return tuple(rules)


def read_glossary(directory: Path, rules: tuple[Rule, ...]) -> tuple[GlossaryTerm, ...]:
    """Read ``glossary.yaml`` (none: an empty glossary) and check that each term's rule exists."""
    path = directory / GLOSSARY_FILE
    if not path.is_file():
        return ()
    data = schema.load_with(schema.GlossaryFileSchema(), read_yaml(path), str(path))
    known = {rule.id for rule in rules}
    terms = []
    for index, item in enumerate(data["terms"]):
        if item["rule"] not in known:
            raise BankError(str(path), f"terms.{index}.rule", f"{item['rule']!r} is not a rule")
        terms.append(GlossaryTerm(item["id"], item["term"], text(item["name"]),
                                  text(item["definition"]), item["rule"], item["flashcard"]))
    return tuple(terms)


def read_examples(directory: Path, rules: tuple[Rule, ...]) -> dict[str, WorkedExample]:
    """Read and replay every ``examples/<id>.yaml``; a scenario the ledger refuses is an error."""
    folder = directory / EXAMPLES_DIR
    if not folder.is_dir():
        return {}
    known = {rule.id for rule in rules}
    found: dict[str, WorkedExample] = {}
    for path in sorted(folder.glob("*.yaml")):
        spec = schema.load_with(schema.ExampleSchema(), read_yaml(path), str(path))
        if spec["id"] != path.stem:
            raise BankError(str(path), "id", f"must equal the file name {path.stem!r}")
        if spec["rule"] not in known:
            raise BankError(str(path), "rule", f"{spec['rule']!r} is not a rule")
        try:
            found[spec["id"]] = examples.make_example(spec, replay)
        except QuoteError as error:
            raise BankError(str(path), "scenario", str(error)) from None
        except Exception as error:  # the ledger refusing a scenario names it
            raise BankError(str(path), "scenario", f"{type(error).__name__}: {error}") from None
    return found


def check_headings(path: Path, sections: tuple[Section, ...], texts: dict[str, Path]) -> None:
    """Require every section's heading to be a heading of each language's text."""
    for lang, text_path in texts.items():
        headings = [
            line.lstrip("#").strip()
            for line in text_path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")
        ]
        for index, section in enumerate(sections):
            if section.heading is None:
                continue
            wanted = section.heading.get(lang)
            if wanted not in headings:
                raise BankError(
                    str(path),
                    f"sections.{index}.heading.{lang}",
                    f"no heading {wanted!r} in {text_path.name}",
                )


def read_lesson(directory: Path) -> LessonEntry:
    """Read and validate ``lesson.yaml``, its rules, glossary, examples and text files."""
    path = directory / LESSON_FILE
    data = schema.load_with(schema.LessonSchema(), read_yaml(path), str(path))
    if data["id"] != directory.name:
        raise BankError(str(path), "id", f"must equal the folder name {directory.name!r}")
    texts = _text_paths(directory, data["text"], path, "text")
    reference = _text_paths(directory, data["reference"], path, "reference")
    sections = tuple(
        Section(s["id"], text(s["title"]), text(s["heading"]) if s["heading"] else None)
        for s in data["sections"]
    )
    check_headings(path, sections, texts)
    rules = read_rules(directory, sections)
    lesson = Lesson(id=data["id"], title=text(data["title"]), sections=sections, rules=rules,
                    glossary=read_glossary(directory, rules))
    rule_ids = {rule.id for rule in rules}
    for index, m in enumerate(data["misconceptions"]):
        if m["breaks"] not in rule_ids:
            raise BankError(str(path), f"misconceptions.{index}.breaks",
                            f"no rule {m['breaks']!r} in rules.yaml")
    misconceptions = {
        m["id"]: MisconceptionInfo(m["id"], text(m["name"]), text(m["rule"]), m["breaks"])
        for m in data["misconceptions"]
    }
    worked = read_examples(directory, rules)
    pages: dict[str, dict[str, str]] = {}
    for page, files in (("lesson", texts), ("reference", reference)):
        key = "text" if page == "lesson" else "reference"
        for lang, text_path in files.items():
            try:
                pages.setdefault(page, {})[lang] = examples.expand(
                    text_path.read_text(encoding="utf-8"), worked, lang)
            except QuoteError as error:
                raise BankError(str(text_path), f"{key}.{lang}", str(error)) from None
    return LessonEntry(lesson, directory, texts, misconceptions, reference, worked, pages)


def question_files(directory: Path) -> list[tuple[Path, str]]:
    """List ``(yaml path, expected id)`` for every question under ``directory``."""
    found: list[tuple[Path, str]] = []
    for child in sorted(directory.iterdir()):
        if child.name.startswith((".", "_")):
            continue
        if child.is_dir():
            if (child / QUESTION_FILE).is_file():
                found.append((child / QUESTION_FILE, child.name))
            else:
                found.extend(question_files(child))
        elif child.suffix in (".yaml", ".yml"):
            found.append((child, child.stem))
    return found


def check_references(spec: dict[str, Any], lesson: LessonEntry, path: Path) -> None:
    """Check that a question's section, rules and misconception ids exist in its lesson.

    A question that names rules belongs to the section of its first rule: that is where its
    reveal sends a learner back to.
    """
    sections = {section.id for section in lesson.lesson.sections}
    if spec["section"] not in sections:
        raise BankError(str(path), "section", f"{spec['section']!r} is not a section of the lesson")
    for index, rule_id in enumerate(spec.get("rules", [])):
        rule = lesson.lesson.rule(rule_id)
        if rule is None:
            raise BankError(str(path), f"rules.{index}", f"{rule_id!r} is not a rule of the lesson")
        if index == 0 and rule.section != spec["section"]:
            raise BankError(str(path), "section",
                            f"must be {rule.section!r}, the section of its first rule {rule_id!r}")
    for field_name, mid in named_misconceptions(spec):
        if mid not in lesson.misconceptions:
            raise BankError(str(path), field_name, f"{mid!r} is not in the lesson's catalogue")


def named_misconceptions(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """List the wrong models a question names, each with the field that names it: its own
    ``misconceptions`` and those of its options (of every form)."""
    named: list[tuple[str, str]] = [
        (f"misconceptions.{i}", mid) for i, mid in enumerate(spec.get("misconceptions", []))
    ]
    for form_index, form in enumerate(spec.get("forms") or [spec]):
        prefix = f"forms.{form_index}." if spec.get("forms_written") else ""
        for key in ("options", "items"):
            for i, option in enumerate(form.get(key, [])):
                if option.get("misconception"):
                    named.append((f"{prefix}{key}.{i}.misconception", option["misconception"]))
    return named


def fill_quotes(value: Any, quotes: Quotes, lang: str | None = None) -> Any:
    """Return ``value`` with every ``{{example.who.field}}`` of its texts filled in.

    Texts are ``{zh, en}`` mappings; data fields (``DATA_KEYS``) are left as they are.
    """
    if isinstance(value, dict):
        if set(value) == {"zh", "en"} and all(isinstance(v, str) for v in value.values()):
            return {key: quotes.fill(item, key) for key, item in value.items()}
        return {key: item if key in DATA_KEYS else fill_quotes(item, quotes, lang)
                for key, item in value.items()}
    if isinstance(value, list):
        return [fill_quotes(item, quotes, lang) for item in value]
    return value


def local_scenarios(spec: dict[str, Any], path: Path) -> dict[str, tuple[dict[str, Any], int]]:
    """Replay a question's own scenarios (the numbers its texts quote)."""
    found = {}
    for name, entry in spec.get("scenarios", {}).items():
        try:
            trace = replay(dict(entry["scenario"]))
            examples.step_record(trace, entry["step"])
        except Exception as error:  # a scenario the ledger refuses names itself
            raise BankError(str(path), f"scenarios.{name}",
                            f"{type(error).__name__}: {error}") from None
        found[name] = (trace, entry["step"])
    return found


def read_question(path: Path, expected_id: str, lesson: LessonEntry,
                  kinds: Mapping[str, Kind] = KINDS) -> QuestionEntry:
    """Read, validate and cross-check one question file (its kind looked up in ``kinds``)."""
    kind, spec = schema.load_question(read_yaml(path), str(path), kinds)
    if spec["id"] != expected_id:
        raise BankError(str(path), "id", f"must equal the file or folder name {expected_id!r}")
    check_references(spec, lesson, path)
    try:
        spec = fill_quotes(spec, lesson.quotes(local_scenarios(spec, path)))
    except QuoteError as error:
        raise BankError(str(path), "(texts)", str(error)) from None
    generator = None
    if kind.computed:
        if path.name != QUESTION_FILE:
            raise BankError(str(path), "kind", f"a {kind.name} question needs its own folder")
        generator = load_generator(path.parent / spec["generator"])
    elif path.name == QUESTION_FILE and any(path.parent.glob("*.py")):
        raise BankError(str(path), "kind", "only numeric questions have generator modules")
    question = Question(
        id=spec["id"],
        lesson=lesson.lesson.id,
        kind=kind.name,
        section=spec["section"],
        tags=tuple(spec["tags"]),
        anchors=tuple(
            SourceAnchor(a["file"], a["function"], (a["lines"][0], a["lines"][1]))
            for a in spec["anchors"]
        ),
        title=text(spec["title"]),
        rules=tuple(spec["rules"]),
        misconceptions=tuple(dict.fromkeys(mid for _, mid in named_misconceptions(spec))),
    )
    return QuestionEntry(question, spec, path, generator)


def check_glossary_cards(lesson: LessonEntry, questions: dict[str, QuestionEntry]) -> None:
    """Require each glossary term's flashcard to be a flashcard question of its lesson."""
    path = lesson.directory / GLOSSARY_FILE
    for index, term in enumerate(lesson.lesson.glossary):
        if term.flashcard is None:
            continue
        entry = questions.get(term.flashcard)
        if (entry is None or entry.question.kind is not QuestionKind.FLASHCARD
                or entry.question.lesson != lesson.lesson.id):
            raise BankError(str(path), f"terms.{index}.flashcard",
                            f"{term.flashcard!r} is not a flashcard of the lesson")


def read_content(root: Path, kinds: Mapping[str, Kind] = KINDS) -> BankContent:
    """Read every lesson and question under ``root``, failing on the first bad file (the
    questions' kinds are looked up in ``kinds``)."""
    if not root.is_dir():
        raise BankError(str(root), "(directory)", "bank directory not found")
    lessons: dict[str, LessonEntry] = {}
    questions: dict[str, QuestionEntry] = {}
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        if not (directory / LESSON_FILE).is_file():
            continue
        lesson = read_lesson(directory)
        lessons[lesson.lesson.id] = lesson
        questions_dir = directory / QUESTIONS_DIR
        if not questions_dir.is_dir():
            continue
        for path, expected_id in question_files(questions_dir):
            entry = read_question(path, expected_id, lesson, kinds)
            if entry.question.id in questions:
                other = questions[entry.question.id].path
                raise BankError(str(path), "id", f"duplicate of {other}")
            questions[entry.question.id] = entry
        check_glossary_cards(lesson, questions)
    if not lessons:
        raise BankError(str(root), "(directory)", f"no lesson folder with a {LESSON_FILE}")
    return BankContent(root, content_hash(root), lessons, questions)

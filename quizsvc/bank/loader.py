"""Read a bank directory: validate every file, cross-check ids, hash the content.

Layout (one folder per lesson, one file or folder per question)::

    question_bank/<lesson-id>/lesson.yaml            sections, misconception catalogue
    question_bank/<lesson-id>/lesson.zh.md, .en.md   the lesson text the service serves
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from quizsvc.bank import schema
from quizsvc.bank.errors import BankError
from quizsvc.bank.model import Lesson, Question, QuestionKind, Section, SourceAnchor, Text
from quizsvc.bank.numeric import Generator, load_generator

LESSON_FILE = "lesson.yaml"
QUESTION_FILE = "question.yaml"
QUESTIONS_DIR = "questions"


@dataclass(frozen=True)
class MisconceptionInfo:
    """A named wrong model from a lesson's catalogue: its name and the wrong rule it follows."""

    id: str
    name: Text
    rule: Text


@dataclass(frozen=True)
class LessonEntry:
    """A loaded lesson with where its texts live and its misconception catalogue."""

    lesson: Lesson
    directory: Path
    texts: dict[str, Path]
    misconceptions: dict[str, MisconceptionInfo]


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


def text(data: dict[str, str]) -> Text:
    """Build a ``Text`` from a validated ``{zh, en}`` mapping."""
    return Text(zh=data["zh"], en=data["en"])


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


def read_lesson(directory: Path) -> LessonEntry:
    """Read and validate ``lesson.yaml`` and check that its text files exist."""
    path = directory / LESSON_FILE
    data = schema.load_with(schema.LessonSchema(), read_yaml(path), str(path))
    if data["id"] != directory.name:
        raise BankError(str(path), "id", f"must equal the folder name {directory.name!r}")
    texts = {}
    for lang, name in data["text"].items():
        text_path = directory / name
        if not text_path.is_file():
            raise BankError(str(path), f"text.{lang}", f"file {name!r} not found")
        texts[lang] = text_path
    sections = tuple(
        Section(s["id"], text(s["title"]), text(s["heading"]) if s["heading"] else None)
        for s in data["sections"]
    )
    for index, section in enumerate(sections):
        for lang, text_path in texts.items():
            if section.heading is None:
                continue
            wanted = section.heading.get(lang)
            headings = [
                line.lstrip("#").strip()
                for line in text_path.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")
            ]
            if wanted not in headings:
                raise BankError(
                    str(path),
                    f"sections.{index}.heading.{lang}",
                    f"no heading {wanted!r} in {text_path.name}",
                )
    lesson = Lesson(id=data["id"], title=text(data["title"]), sections=sections)
    misconceptions = {
        m["id"]: MisconceptionInfo(m["id"], text(m["name"]), text(m["rule"]))
        for m in data["misconceptions"]
    }
    return LessonEntry(lesson, directory, texts, misconceptions)


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
    """Check that a question's section and misconception ids exist in its lesson."""
    sections = {section.id for section in lesson.lesson.sections}
    if spec["section"] not in sections:
        raise BankError(str(path), "section", f"{spec['section']!r} is not a section of the lesson")
    named: list[tuple[str, str]] = [
        (f"misconceptions.{i}", mid) for i, mid in enumerate(spec.get("misconceptions", []))
    ]
    for key in ("options", "items"):
        for i, option in enumerate(spec.get(key, [])):
            if option.get("misconception"):
                named.append((f"{key}.{i}.misconception", option["misconception"]))
    for field_name, mid in named:
        if mid not in lesson.misconceptions:
            raise BankError(str(path), field_name, f"{mid!r} is not in the lesson's catalogue")


def read_question(path: Path, expected_id: str, lesson: LessonEntry) -> QuestionEntry:
    """Read, validate and cross-check one question file."""
    spec = schema.load_question(read_yaml(path), str(path))
    if spec["id"] != expected_id:
        raise BankError(str(path), "id", f"must equal the file or folder name {expected_id!r}")
    check_references(spec, lesson, path)
    kind = QuestionKind(spec["kind"])
    generator = None
    if kind is QuestionKind.NUMERIC:
        if path.name != QUESTION_FILE:
            raise BankError(str(path), "kind", "a numeric question needs its own folder")
        generator = load_generator(path.parent / spec["generator"])
    elif path.name == QUESTION_FILE and any(path.parent.glob("*.py")):
        raise BankError(str(path), "kind", "only numeric questions have generator modules")
    question = Question(
        id=spec["id"],
        lesson=lesson.lesson.id,
        kind=kind,
        section=spec["section"],
        tags=tuple(spec["tags"]),
        anchors=tuple(
            SourceAnchor(a["file"], a["function"], (a["lines"][0], a["lines"][1]))
            for a in spec["anchors"]
        ),
        title=text(spec["title"]),
    )
    return QuestionEntry(question, spec, path, generator)


def read_content(root: Path) -> BankContent:
    """Read every lesson and question under ``root``, failing on the first bad file."""
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
            entry = read_question(path, expected_id, lesson)
            if entry.question.id in questions:
                other = questions[entry.question.id].path
                raise BankError(str(path), "id", f"duplicate of {other}")
            questions[entry.question.id] = entry
    if not lessons:
        raise BankError(str(root), "(directory)", f"no lesson folder with a {LESSON_FILE}")
    return BankContent(root, content_hash(root), lessons, questions)

"""A small hand-made bank (one lesson, one rule, one choice question) for tests that break a
bank on purpose, and the helpers that write its YAML."""

from __future__ import annotations

from pathlib import Path

import yaml

LESSON = "tiny-lesson"


def write_yaml(path: Path, data: object) -> Path:
    """Write ``data`` as YAML, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def text(zh: str, en: str | None = None) -> dict[str, str]:
    """Return a ``{zh, en}`` mapping."""
    return {"zh": zh, "en": en or zh}


def lesson_data() -> dict:
    """Return a valid lesson.yaml body."""
    return {
        "id": LESSON,
        "title": text("小课", "Tiny lesson"),
        "text": {"zh": "lesson.zh.md", "en": "lesson.en.md"},
        "sections": [
            {"id": "budget", "title": text("预算", "Budget"), "heading": text("预算", "Budget")}
        ],
        "misconceptions": [
            {"id": "waiting-first", "breaks": "running-first", "name": text("先 waiting"),
             "rule": text("先给 waiting")}
        ],
    }


def rules_data() -> dict:
    """Return a valid rules.yaml body: one rule, taught in the tiny lesson's one section."""
    return {"rules": [{"id": "running-first", "title": text("先 running", "Running first"),
                       "section": "budget"}]}


def choice_data(qid: str = "pick-one") -> dict:
    """Return a valid choice question body."""
    return {
        "id": qid,
        "kind": "choice",
        "section": "budget",
        "rules": ["running-first"],
        "tags": ["budget"],
        "anchors": [
            {"file": "vllm/v1/core/sched/scheduler.py", "function": "Scheduler.schedule",
             "lines": [839, 848]}
        ],
        "title": text("谁先", "Who first"),
        "prompt": text("谁先拿预算?", "Who is served first?"),
        "options": [
            {"id": "running", "text": text("running")},
            {"id": "waiting", "text": text("waiting"), "misconception": "waiting-first"},
        ],
        "answer": "running",
        "solution": text("running 先。", "Running first."),
    }


def write_tiny_bank(tmp_path: Path) -> Path:
    """Write a valid one-question bank under ``tmp_path`` and return its directory."""
    root = tmp_path / "bank"
    lesson_dir = root / LESSON
    write_yaml(lesson_dir / "lesson.yaml", lesson_data())
    write_yaml(lesson_dir / "rules.yaml", rules_data())
    (lesson_dir / "lesson.zh.md").write_text(
        "# 小课\n\n## 预算\n\n{#rule-running-first}\n### 先 running\n\n正文\n", encoding="utf-8")
    (lesson_dir / "lesson.en.md").write_text(
        "# Tiny\n\n## Budget\n\n{#rule-running-first}\n### Running first\n\nText\n",
        encoding="utf-8")
    write_yaml(lesson_dir / "questions" / "pick-one.yaml", choice_data())
    return root

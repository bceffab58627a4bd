"""A bad bank file fails with its path, the field and the reason; a good one loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizsvc.bank import BankError, NotFound, load_bank, read_bank
from quizsvc.bank.model import QuestionKind
from tests.support.tiny_bank import LESSON, choice_data, lesson_data, text, write_yaml


def question_path(root: Path, name: str = "pick-one.yaml") -> Path:
    return root / LESSON / "questions" / name


def test_a_valid_tiny_bank_loads_with_its_lesson_sections_and_question(tiny_bank):
    bank = read_bank(tiny_bank)
    assert list(bank.lessons) == [LESSON]
    assert [s.id for s in bank.lessons[LESSON].sections] == ["budget"]
    assert bank.questions["pick-one"].kind is QuestionKind.CHOICE
    assert bank.questions["pick-one"].anchors[0].lines == (839, 848)


def edit(data: dict, path: str, value) -> dict:
    """Set ``value`` at a dotted ``path`` ("options.1.text"); ``...`` deletes the key."""
    *parents, last = path.split(".")
    node = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is ...:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


BAD_QUESTIONS = [
    ("an unknown key", "colour", "blue", "colour", "Unknown field"),
    ("no English title", "title.en", ..., "title.en", "Missing data"),
    ("an empty Chinese prompt", "prompt.zh", "", "prompt.zh", "Shorter than minimum"),
    ("an answer that is no option", "answer", "nobody", "answer", "is not an option id"),
    ("an unknown kind", "kind", "essay", "kind", "must be one of"),
    ("a section the lesson lacks", "section", "elsewhere", "section", "not a section"),
    ("a misconception not catalogued", "options.1.misconception", "made-up",
     "options.1.misconception",
     "not in the lesson's catalogue"),
    ("a reversed line range", "anchors.0.lines", [848, 839], "anchors.0.lines",
     "first line must not exceed the last"),
    ("an anchor outside vllm", "anchors.0.file", "/etc/passwd", "anchors.0.file",
     "vllm/... .py path"),
    ("no anchors", "anchors", [], "anchors", "Shorter than minimum"),
    ("an id unlike its file name", "id", "other-id", "id", "must equal the file"),
    ("duplicate option ids", "options.1.id", "running", "options", "unique"),
    ("the right option tagged as a misconception", "options.0.misconception", "waiting-first",
     "options", "cannot carry a misconception"),
]


@pytest.mark.parametrize(("case", "path", "value", "field", "reason"), BAD_QUESTIONS,
                         ids=[row[0] for row in BAD_QUESTIONS])
def test_a_bad_question_file_fails_with_path_field_and_reason(tiny_bank, case, path, value,
                                                              field, reason):
    write_yaml(question_path(tiny_bank), edit(choice_data(), path, value))
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    error = caught.value
    assert error.path.endswith("pick-one.yaml")
    assert error.field == field
    assert reason in error.reason
    assert str(error).count("\n") == 0


def test_invalid_yaml_names_the_line(tiny_bank):
    question_path(tiny_bank).write_text("id: pick-one\nkind: [choice\n", encoding="utf-8")
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field.startswith("line ")
    assert "invalid YAML" in caught.value.reason


def test_a_question_file_that_is_not_a_mapping_is_refused(tiny_bank):
    question_path(tiny_bank).write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(BankError, match="must be a mapping"):
        read_bank(tiny_bank)


def test_duplicate_question_ids_across_folders_are_refused(tiny_bank):
    write_yaml(question_path(tiny_bank, "more/pick-one.yaml"), choice_data())
    with pytest.raises(BankError, match="duplicate of"):
        read_bank(tiny_bank)


BAD_LESSONS = [
    ("a missing text file", "text.en", "missing.md", "text.en", "not found"),
    ("no Chinese text", "text", {"en": "lesson.en.md"}, "text", "Chinese text (zh) is required"),
    ("a heading absent from the text", "sections.0.heading", text("没有", "Nowhere"),
     "sections.0.heading.zh", "no heading"),
    ("duplicate sections", "sections", [lesson_data()["sections"][0]] * 2, "sections",
     "duplicate ids"),
    ("an id unlike its folder", "id", "other-lesson", "id", "must equal the folder name"),
]


@pytest.mark.parametrize(("case", "path", "value", "field", "reason"), BAD_LESSONS,
                         ids=[row[0] for row in BAD_LESSONS])
def test_a_bad_lesson_file_fails_with_path_field_and_reason(tiny_bank, case, path, value, field,
                                                            reason):
    write_yaml(tiny_bank / LESSON / "lesson.yaml", edit(lesson_data(), path, value))
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.path.endswith("lesson.yaml")
    assert caught.value.field == field
    assert reason in caught.value.reason


def numeric_data() -> dict:
    data = choice_data("count-it")
    for key in ("options", "answer", "solution"):
        del data[key]
    data.update(kind="numeric", params={"budget": {"min": 4, "max": 8}}, misconceptions=[],
                states=["async_scheduling", "num_speculative_tokens", "spec_method"])
    return data


def test_a_numeric_question_needs_its_own_folder(tiny_bank):
    write_yaml(question_path(tiny_bank, "count-it.yaml"), numeric_data())
    with pytest.raises(BankError, match="needs its own folder"):
        read_bank(tiny_bank)


def test_a_numeric_folder_without_its_generator_is_refused(tiny_bank):
    write_yaml(question_path(tiny_bank, "count-it/question.yaml"), numeric_data())
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.path.endswith("generator.py")
    assert caught.value.reason == "file not found"


def test_a_generator_without_describe_is_refused(tiny_bank):
    write_yaml(question_path(tiny_bank, "count-it/question.yaml"), numeric_data())
    question_path(tiny_bank, "count-it/generator.py").write_text("def build(p):\n    return p\n")
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field == "describe"


def test_a_generator_that_fails_to_import_names_itself(tiny_bank):
    write_yaml(question_path(tiny_bank, "count-it/question.yaml"), numeric_data())
    question_path(tiny_bank, "count-it/generator.py").write_text("import not_a_module\n")
    with pytest.raises(BankError, match="import failed"):
        read_bank(tiny_bank)


@pytest.mark.parametrize(("param", "reason"), [
    ({"min": 9, "max": 2}, "min must not exceed max"),
    ({"min": 1}, "a range needs both min and max"),
    ({"min": 1, "max": 2, "choices": [1]}, "either min and max, or choices"),
    ({"choices": [1.5]}, "integers or strings"),
])
def test_a_bad_parameter_declaration_is_refused(tiny_bank, param, reason):
    data = numeric_data()
    data["params"] = {"budget": param}
    write_yaml(question_path(tiny_bank, "count-it/question.yaml"), data)
    with pytest.raises(BankError) as caught:
        read_bank(tiny_bank)
    assert caught.value.field.startswith("params.budget")
    assert reason in caught.value.reason


def test_a_missing_bank_directory_is_a_bank_error(tmp_path):
    with pytest.raises(BankError, match="bank directory not found"):
        read_bank(tmp_path / "nowhere")


def test_load_bank_caches_per_path_and_reads_the_environment(tiny_bank, monkeypatch):
    monkeypatch.setenv("QUIZSVC_BANK_DIR", str(tiny_bank))
    first = load_bank()
    assert load_bank() is first
    assert load_bank(tiny_bank) is first
    assert list(first.lessons) == [LESSON]


def test_the_lesson_text_is_served_per_language_with_chinese_as_fallback(tiny_bank):
    bank = read_bank(tiny_bank)
    assert "## 预算" in bank.lesson_text(LESSON, "zh")
    assert "## Budget" in bank.lesson_text(LESSON, "en")
    assert bank.lesson_text(LESSON, "fr") == bank.lesson_text(LESSON, "zh")


def test_unknown_lessons_and_questions_are_not_found(tiny_bank):
    bank = read_bank(tiny_bank)
    with pytest.raises(NotFound):
        bank.lesson_text("nope", "zh")
    with pytest.raises(NotFound):
        bank.variant("nope", 0)
    with pytest.raises(NotFound):
        bank.questions_for("nope")


def test_the_real_lesson_texts_are_the_shared_lesson(bank):
    zh = bank.lesson_text("vllm-v1-ledger", "zh")
    en = bank.lesson_text("vllm-v1-ledger", "en")
    assert "需求=(11+3)−10=4" in zh
    assert "Allocation `[1, 6, 1]`" in en
    assert zh.startswith("# vLLM 调度账本")

"""Export (JSON lines that re-derive through the ledger) and printable worksheets."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from quizsvc.bank import BankError
from quizsvc.bank.export import parse_seeds
from quizsvc.bank.pointer import build, escape, resolve, unescape
from quizsvc.bank.publication import Publication
from quizsvc.bank.worksheet import make_worksheet, pick_items
from quizsvc.cli import main
from quizsvc.ledger import replay


def exported(capsys, *args: str) -> list[dict]:
    assert main(["bank", "export", "--json", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_export_prints_one_json_line_per_variant_with_its_answer(capsys):
    lines = exported(capsys, "--question", "spec-rollback", "--seeds", "0-4")
    assert [line["seed"] for line in lines] == [0, 1, 2, 3, 4]
    assert {line["question_id"] for line in lines} == {"spec-rollback"}
    assert all(len(line["answer"]) == 3 for line in lines)


def test_an_exported_numeric_answer_re_derives_from_its_scenario_and_pointers(capsys):
    for line in exported(capsys, "--question", "kv-preemption-victim", "--seeds", "0-9"):
        trace = replay(line["scenario"])
        assert [resolve(trace, ref) for ref in line["answer_ref"]] == line["answer"]


def test_the_exported_scenario_replays_through_the_ledger_command_too(capsys):
    line = exported(capsys, "--question", "mixed-step-allocation", "--seeds", "5")[0]
    result = subprocess.run(
        [sys.executable, "-m", "quizsvc.cli", "ledger", "replay"],
        input=json.dumps(line["scenario"]), capture_output=True, text=True, check=True,
    )
    trace = json.loads(result.stdout)
    assert [resolve(trace, ref) for ref in line["answer_ref"]] == line["answer"]


def test_export_of_a_lesson_covers_every_question(capsys, bank):
    lines = exported(capsys, "--lesson", "vllm-v1-ledger")
    assert {line["question_id"] for line in lines} == set(bank.questions)


@pytest.mark.parametrize(("args", "message"), [
    (["--question", "no-such-question"], "no question"),
    (["--seeds", "9-1"], "runs backwards"),
    (["--seeds", "x"], "is not N or N-M"),
])
def test_export_refuses_bad_arguments_with_exit_2(capsys, args, message):
    assert main(["bank", "export", "--json", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("spec", "seeds"), [
    ("0-3", [0, 1, 2, 3]), ("7", [7]), ("1,3,10-12", [1, 3, 10, 11, 12]), ("2,2", [2]),
])
def test_seed_ranges_are_parsed(spec, seeds):
    assert parse_seeds(spec) == seeds


@pytest.mark.parametrize("spec", ["", "1,", "-3", "0-200000", "a-b"])
def test_bad_seed_ranges_are_refused(spec):
    with pytest.raises(BankError):
        parse_seeds(spec)


@pytest.mark.parametrize(("tokens", "pointer"), [
    (["steps", 2, "requests", "A"], "/steps/2/requests/A"),
    (["a/b", "m~n"], "/a~1b/m~0n"),
    ([], ""),
])
def test_json_pointers_are_built_and_escaped_as_rfc_6901_says(tokens, pointer):
    assert build(tokens) == pointer
    assert unescape(escape("~1/")) == "~1/"


def test_json_pointers_resolve_and_fail_loudly():
    doc = {"steps": [{"a/b": 1, "m~n": [5, 6]}]}
    assert resolve(doc, "/steps/0/a~1b") == 1
    assert resolve(doc, "/steps/0/m~0n/1") == 6
    for bad in ("/steps/1", "/steps/01", "/steps/0/x", "steps", "/steps/0/a~1b/0"):
        with pytest.raises(KeyError):
            resolve(doc, bad)


def test_a_worksheet_is_reproducible_from_its_seed(bank):
    first = make_worksheet(bank, "vllm-v1-ledger", 20, 42, "zh", "md")
    again = make_worksheet(bank, "vllm-v1-ledger", 20, 42, "zh", "md")
    other = make_worksheet(bank, "vllm-v1-ledger", 20, 43, "zh", "md")
    assert first == again
    assert first.sheet != other.sheet
    assert len(first.items) == 20


def test_a_worksheet_mixes_numeric_and_other_questions_without_repeats(bank):
    publishing = [q for q in bank.questions_for("vllm-v1-ledger")
                  if q.kind.value != "numeric" and Publication(bank).publishes(q)]
    count = 2 * min(10, len(publishing))  # half numeric, half the others that may leave
    items = pick_items(bank, "vllm-v1-ledger", count, 42)
    kinds = [item.kind.value for item in items]
    assert kinds.count("numeric") == count // 2
    assert len({item.question_id for item in items}) == count


def test_the_sheet_hides_answers_and_the_key_has_answers_and_worked_solutions(bank):
    sheet = make_worksheet(bank, "vllm-v1-ledger", 8, 1, "en", "md")
    numeric = next(item for item in sheet.items if item.kind.value == "numeric")
    assert "Answer key" not in sheet.sheet
    assert numeric.solution.en.splitlines()[0] in sheet.key
    assert numeric.solution.en.splitlines()[0] not in sheet.sheet
    assert sheet.key.count("**Answer:**") == 8


def test_the_html_worksheet_is_a_standalone_escaped_page(bank):
    sheet = make_worksheet(bank, "vllm-v1-ledger", 6, 3, "zh", "html")
    for page in (sheet.sheet, sheet.key):
        assert page.startswith("<!doctype html>")
        assert '<html lang="zh-CN">' in page
        assert "<script" not in page
        assert "http" not in page  # no external assets
    assert "<pre>" in sheet.key


def test_the_worksheet_command_writes_the_sheet_and_the_key(tmp_path, capsys):
    args = ["worksheet", "--lesson", "vllm-v1-ledger", "--count", "20", "--seed", "42",
            "--lang", "zh", "--format", "html", "--out", str(tmp_path)]
    assert main(args) == 0
    written = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[-1] for p in written] == [
        "vllm-v1-ledger-worksheet-42-zh.html", "vllm-v1-ledger-answers-42-zh.html"]
    assert (tmp_path / "vllm-v1-ledger-answers-42-zh.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "code"), [
    (["--lesson", "nope"], 2),
    (["--lesson", "vllm-v1-ledger", "--count", "999"], 2),
])
def test_the_worksheet_command_refuses_bad_input(tmp_path, args, code, capsys):
    assert main(["worksheet", *args, "--out", str(tmp_path)]) == code
    assert "error" in capsys.readouterr().err


def test_the_bank_package_imports_no_web_or_database_code():
    code = (
        "import sys, quizsvc.bank, quizsvc.bank.commands, quizsvc.bank.worksheet;"
        "bad = {'flask', 'sqlalchemy', 'quizsvc.api', 'quizsvc.store', 'quizsvc.web'};"
        "print(sorted(bad & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"

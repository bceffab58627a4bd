"""Write an exercise set as Moodle XML, the format of Moodle's question bank import.

Each question becomes one category holding its variants, so a quiz that draws "a random
question from this category" gives each student their own numbers. What each kind becomes:

- a numeric vector: ``cloze`` (Embedded answers), one ``NUMERICAL`` field per element, each
  worth the same, so the mark is the share of elements right, as quizsvc grades;
- a single number: ``numerical``;
- choice and anchor: ``multichoice`` with one right answer;
- multi: ``multichoice`` with ``single=false``, each right option worth 1/k and each wrong
  one -1/k, so the mark is max(0, (hits - false picks) / k), as quizsvc grades;
- order: ``ordering`` (core since Moodle 4.4, a plugin before), answers in the right order,
  graded by absolute position: the share of items in their place, as quizsvc grades.

A wrong model's answer is written as a 0-mark answer whose feedback names the model; the
worked solution is the general feedback. The numbers that re-create the export (seeds-from,
the seeds, the bank version) are in a comment at the top, in each category's description
and in each question's name and ID number.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from xml.sax.saxutils import escape

from quizsvc.bank.catalog import Bank
from quizsvc.bank.errors import BankError
from quizsvc.bank.lms.exercises import ExerciseSet, ExportItem
from quizsvc.bank.lms.wording import instruction, plain, sides, text_html, word, wrong_model
from quizsvc.bank.model import Misconception, Question, Text, Variant
from quizsvc.bank.worksheet import inline_html

PENALTY = "0.3333333"  # Moodle's default: a retry in interactive mode costs a third
IDNUMBER_LENGTH = 100  # Moodle's limit on a question's ID number
MAX_RIGHT_OPTIONS = 10  # Moodle's fraction list holds 1/k for k up to 10
CLOZE_ENTITIES = {"{": "&#123;", "}": "&#125;", "~": "&#126;", "#": "&#35;", "\\": "&#92;"}


def cdata(text: str) -> str:
    """Wrap ``text`` in CDATA, splitting any ``]]>`` it holds so the section cannot end early."""
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def text_element(tag: str, body_html: str, fmt: str = "html") -> str:
    """Return a Moodle text element (``questiontext``, ``feedback``...) holding HTML."""
    return f'<{tag} format="{fmt}"><text>{cdata(body_html)}</text></{tag}>'


def comment(record: dict[str, object]) -> str:
    """Return the export's record as an XML comment (a comment may not hold ``--``)."""
    body = json.dumps(record, ensure_ascii=False, sort_keys=True)
    if "--" in body or body.endswith("-"):
        body = body.replace("-", "\\u002d")  # JSON's own escape, read back by any parser
    return f"<!-- quizsvc export {body} -->"


def category_segment(name: str) -> str:
    """Return a category name as one segment of a Moodle category path ("/" is doubled)."""
    return " ".join(name.split()).replace("/", "//")


def fraction(share: float) -> str:
    """Write a share of the mark as a Moodle percentage (``33.33333``, ``50``)."""
    return f"{share * 100:.5f}".rstrip("0").rstrip(".")


def name_of(question: Question, variant: Variant) -> str:
    """Name a variant in the question bank: the question id and the seed."""
    return f"{question.id} · {variant.seed}"


def idnumber(question: Question, variant: Variant) -> str:
    """Return a variant's ID number, unique in its category and stable across exports."""
    return f"quizsvc-{question.id}-{variant.seed}"[:IDNUMBER_LENGTH]


def names_by_answer(misconceptions: Iterable[Misconception]) -> dict[object, list[Text]]:
    """Group the named wrong models by the answer they give (several may give one answer)."""
    grouped: dict[object, list[Text]] = {}
    for wrong in misconceptions:
        key = tuple(wrong.answer) if isinstance(wrong.answer, list) else wrong.answer
        names = grouped.setdefault(key, [])
        if wrong.name not in names:
            names.append(wrong.name)
    return grouped


def prompt_html(variant: Variant, lang: str) -> str:
    """Return the question text: the prompt, and what to do for multi and order."""
    body = text_html(variant.prompt, lang)
    key = instruction(variant.input.type)
    return body + (f"<p><em>{text_html(word(key), lang, 'span')}</em></p>" if key else "")


def header(qtype: str, question: Question, variant: Variant, question_html: str,
           lang: str) -> list[str]:
    """Return the elements every question starts with: name, text, worked solution, marks."""
    return [
        f'<question type="{qtype}">',
        f"<name><text>{escape(name_of(question, variant))}</text></name>",
        text_element("questiontext", question_html),
        text_element("generalfeedback", text_html(variant.solution, lang)),
        "<defaultgrade>1</defaultgrade>",
        f"<penalty>{PENALTY}</penalty>",
        "<hidden>0</hidden>",
        f"<idnumber>{escape(idnumber(question, variant))}</idnumber>",
    ]


def tags(question: Question, variant: Variant) -> str:
    """Return the question's tags: quizsvc, the lesson, the question, the rules it tests."""
    values = ["quizsvc", question.lesson, question.id, *(f"rule-{r}" for r in variant.rules)]
    body = "".join(f"<tag><text>{escape(value)}</text></tag>" for value in values)
    return f"<tags>{body}</tags>"


def combined_feedback() -> list[str]:
    """Return the empty right / partly right / wrong feedback a choice-like type expects."""
    return [text_element(tag, "") for tag in
            ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")]


def answer(fraction_text: str, body: str, feedback_html: str = "",
           fmt: str = "html", extra: str = "") -> str:
    """Return one ``answer`` element with its feedback (and ``extra``, e.g. a tolerance)."""
    return (f'<answer fraction="{fraction_text}" format="{fmt}"><text>{body}</text>'
            f"{text_element('feedback', feedback_html)}{extra}</answer>")


def feedback_for(names: list[Text] | None, lang: str) -> str:
    """Return the feedback naming the wrong model(s) of an answer ("" for none)."""
    return text_html(wrong_model(names), lang, "span") if names else ""


def choice_question(question: Question, variant: Variant, lang: str) -> list[str]:
    """Write a choice, anchor or multi variant as ``multichoice``."""
    multi = variant.input.type == "multi"
    wrong = names_by_answer(variant.misconceptions)
    right = set(variant.answer) if multi else {variant.answer}
    if len(right) > MAX_RIGHT_OPTIONS:
        raise BankError(question.id, "answer",
                        f"Moodle cannot weigh {len(right)} right options (at most "
                        f"{MAX_RIGHT_OPTIONS})")
    share = fraction(1 / len(right))
    lines = header("multichoice", question, variant, prompt_html(variant, lang), lang)
    lines += [f"<single>{'false' if multi else 'true'}</single>",
              "<shuffleanswers>true</shuffleanswers>",
              "<answernumbering>abc</answernumbering>",
              "<showstandardinstruction>0</showstandardinstruction>",
              *combined_feedback(),
              "<shownumcorrect/>" if multi else ""]
    for option in variant.input.options:
        wrong_mark = f"-{share}" if multi else "0"
        mark = share if option.id in right else wrong_mark
        lines.append(answer(mark, cdata(text_html(option.text, lang, "span")),
                            feedback_for(wrong.get(option.id), lang)))
    return lines


def numerical_question(question: Question, variant: Variant, lang: str) -> list[str]:
    """Write a single-number variant as ``numerical``: the answer, then each wrong model's."""
    lines = header("numerical", question, variant, prompt_html(variant, lang), lang)
    exact = "<tolerance>0</tolerance>"
    lines.append(answer("100", str(int(variant.answer)), fmt="moodle_auto_format",
                        extra=exact))
    for value, names in names_by_answer(variant.misconceptions).items():
        if value != variant.answer and isinstance(value, int):
            lines.append(answer("0", str(value), feedback_for(names, lang),
                                fmt="moodle_auto_format", extra=exact))
    lines += ["<unitgradingtype>0</unitgradingtype>", "<unitpenalty>0.1000000</unitpenalty>",
              "<showunits>3</showunits>", "<unitsleft>0</unitsleft>"]
    return lines


def cloze_safe(fragment: str) -> str:
    """Return HTML that Cloze's syntax cannot mistake for a field: braces, ``~``, ``#`` and
    the backslash (which escapes the character after it) as character references (the
    browser shows them as written)."""
    return "".join(CLOZE_ENTITIES.get(char, char) for char in fragment)


def cloze_feedback(fragment: str) -> str:
    """Return a field's feedback as Cloze needs it: Moodle decodes the character
    references of a feedback once before storing it as HTML, so the HTML is escaped once
    more, and the characters that end a feedback (``~``, ``}``) are references."""
    return cloze_safe(html.escape(fragment, quote=False))


def numerical_field(right: int, wrong: list[tuple[int, list[Text]]], lang: str) -> str:
    """Return one Cloze ``NUMERICAL`` field: exact answer first, then each wrong model's
    value with feedback naming the model, worth nothing."""
    choices = [f"={right}:0"]
    choices += [f"%0%{value}:0#{cloze_feedback(feedback_for(names, lang))}"
                for value, names in wrong]
    return "{1:NUMERICAL:" + "~".join(choices) + "}"


def cloze_question(question: Question, variant: Variant, lang: str) -> list[str]:
    """Write a vector variant as ``cloze``: the prompt, then one field per element."""
    lines_html = [cloze_safe(prompt_html(variant, lang))]
    for index, (label, right) in enumerate(zip(variant.input.labels, variant.answer,
                                               strict=True)):
        by_value: dict[int, list[Text]] = {}
        for wrong in variant.misconceptions:
            value = wrong.answer[index] if isinstance(wrong.answer, list) else None
            if isinstance(value, int) and value != right:
                names = by_value.setdefault(value, [])
                if wrong.name not in names:
                    names.append(wrong.name)
        lines_html.append(f"<p>{cloze_safe(inline_html(label))} = "
                          f"{numerical_field(right, sorted(by_value.items()), lang)}</p>")
    return header("cloze", question, variant, "\n".join(lines_html), lang)


def ordering_question(question: Question, variant: Variant, lang: str) -> list[str]:
    """Write an order variant as ``ordering``: the answers in the right order (their
    fraction is their position), shown shuffled, graded by absolute position."""
    texts = {option.id: option.text for option in variant.input.options}
    lines = header("ordering", question, variant, prompt_html(variant, lang), lang)
    lines += ["<layouttype>VERTICAL</layouttype>", "<selecttype>ALL</selecttype>",
              f"<selectcount>{len(variant.answer)}</selectcount>",
              "<gradingtype>ABSOLUTE_POSITION</gradingtype>",
              "<showgrading>SHOW</showgrading>", "<numberingstyle>none</numberingstyle>",
              *combined_feedback(), "<shownumcorrect/>"]
    for position, option_id in enumerate(variant.answer, start=1):
        lines.append(answer(str(position), cdata(text_html(texts[option_id], lang, "span"))))
    return lines


WRITERS = {"vector": cloze_question, "integer": numerical_question, "order": ordering_question,
           "choice": choice_question, "multi": choice_question}  # by answer input


def question_xml(question: Question, variant: Variant, lang: str) -> str:
    """Write one variant as the Moodle question type that fits its answer input."""
    write = WRITERS.get(variant.input.type)
    if write is None:
        raise BankError(question.id, "kind", f"a {variant.kind} question cannot go to Moodle")
    lines = write(question, variant, lang)
    lines += [tags(question, variant), "</question>"]
    return "\n".join(line for line in lines if line)


def category_xml(path: str, about_html: str) -> str:
    """Return the pseudo-question that files the questions after it in category ``path``."""
    return ('<question type="category">\n'
            f"<category><text>{escape(path)}</text></category>\n"
            f"{text_element('info', about_html)}\n"
            "</question>")


def category_path(bank: Bank, exercises: ExerciseSet, item: ExportItem, lang: str) -> str:
    """Return where an item's variants go: one category per question, under one per export
    (so a second export with other seeds does not mix its variants into the first's)."""
    lesson = bank.lessons[exercises.lesson_id]
    parent = f"quizsvc {plain(lesson.title, lang)} (seeds-from {exercises.seeds_from})"
    child = f"{plain(item.question.title, lang)} [{item.question.id}]"
    return f"$course$/top/{category_segment(parent)}/{category_segment(child)}"


def moodle_xml(bank: Bank, exercises: ExerciseSet, lang: str) -> bytes:
    """Write ``exercises`` as a Moodle XML file (UTF-8 bytes) in ``lang`` (zh, en, both)."""
    sides(lang)  # ValueError for an unknown language mode
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', comment(exercises.record()), "<quiz>"]
    for item in exercises.items:
        about = word("about", question=item.question.id, count=len(item.variants),
                     seeds=", ".join(str(seed) for seed in item.seeds),
                     seeds_from=exercises.seeds_from, version=exercises.bank_version)
        parts.append(category_xml(category_path(bank, exercises, item, lang),
                                  text_html(about, lang)))
        parts += [question_xml(item.question, variant, lang) for variant in item.variants]
    parts.append("</quiz>")
    return ("\n".join(parts) + "\n").encode("utf-8")

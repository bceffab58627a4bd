"""Printable worksheets: an exercise sheet and a separate answer key, reproducible from a seed.

For classes and offline practice. The same ``(lesson, count, seed, bank version)`` always
picks the same questions and the same variants; the key carries the answers, the named
wrong models and the ledger's worked solution for each numeric item.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass

from quizsvc.bank.catalog import Bank
from quizsvc.bank.model import Variant
from quizsvc.bank.publication import Publication

# What a learner is told to do beyond picking one option, by answer input
# (``AnswerInput.type``): the worksheets, the Anki deck and the LMS exports word it each
# in their own way.
INSTRUCTIONS = {"multi": "choose_all", "order": "order"}
NUMBERS = ("integer", "vector")  # the answer inputs written as numbers
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_COUNT = 200
PUBLISHED_START_SPAN = 2**40  # where in the published seeds a worksheet item starts looking

WORDS = {
    "zh": {
        "sheet": "练习卷",
        "key": "答案与解析",
        "seed": "种子",
        "version": "题库版本",
        "instructions": "闭卷作答。数值题写整数;向量题按给定顺序写出每个分量。",
        "answer": "答案",
        "answer_line": "作答",
        "order": "按正确顺序写出字母",
        "choose_one": "选一项",
        "choose_all": "选出所有正确项",
        "wrong_models": "常见错误模型及其答案",
        "solution": "解析",
    },
    "en": {
        "sheet": "Exercise sheet",
        "key": "Answer key",
        "seed": "seed",
        "version": "bank version",
        "instructions": "Closed book. Numeric answers are integers; give every element of a "
        "vector in the order shown.",
        "answer": "Answer",
        "answer_line": "Answer",
        "order": "write the letters in the right order",
        "choose_one": "choose one",
        "choose_all": "choose all that apply",
        "wrong_models": "Common wrong models and their answers",
        "solution": "Worked solution",
    },
}


@dataclass(frozen=True)
class Worksheet:
    """A rendered worksheet: the exercise sheet, the answer key, the variants behind them."""

    sheet: str
    key: str
    items: tuple[Variant, ...]


def pick_items(bank: Bank, lesson_id: str, count: int, seed: int,
               publication: Publication | None = None) -> list[Variant]:
    """Pick ``count`` gradable variants for a lesson, numeric ones first, from ``seed``.

    Every numeric family appears before any family repeats; choice-like questions fill the
    rest; when the count exceeds what the bank holds, numeric families are drawn again at
    other seeds (a new variant, not a copy). A worksheet's answer key leaves the server, so
    every variant is one of the contents kept for what leaves it (``quizsvc.bank.
    publication``), never one the service serves closed-book; a question too small to spare
    a content is left out.
    """
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count must be between 1 and {MAX_COUNT}")
    publication = publication or Publication(bank)
    rng = random.Random(f"worksheet|{lesson_id}|{seed}")
    questions = [q for q in bank.questions_for(lesson_id)
                 if bank.kinds[q.kind].graded and publication.publishes(q)]
    numeric = [q for q in questions if bank.kinds[q.kind].computed]
    others = [q for q in questions if not bank.kinds[q.kind].computed]
    rng.shuffle(numeric)
    rng.shuffle(others)
    share = min(len(numeric), max(1, (count + 1) // 2)) if numeric else 0
    chosen = numeric[:share] + others[: count - share]
    while len(chosen) < count and (numeric or others):
        chosen.append(rng.choice(numeric or others))
    rng.shuffle(chosen)
    items = []
    for question in chosen:
        items += publication.variants(question, 1, start=rng.randrange(PUBLISHED_START_SPAN))
    return items


def _answer_text(variant: Variant, lang: str) -> str:
    letters = {o.id: LETTERS[i] for i, o in enumerate(variant.input.options)}
    shape = variant.input.type
    if shape == "vector":
        pairs = zip(variant.input.labels, variant.answer, strict=True)
        return "[" + ", ".join(f"{label}={value}" for label, value in pairs) + "]"
    if shape == "integer":
        return str(variant.answer)
    if shape == "multi":
        return ", ".join(sorted(letters[a] for a in variant.answer))
    if shape == "order":
        return " → ".join(letters[a] for a in variant.answer)
    return letters[variant.answer]


def _wrong_text(variant: Variant, lang: str) -> list[str]:
    letters = {o.id: LETTERS[i] for i, o in enumerate(variant.input.options)}
    lines = []
    for wrong in variant.misconceptions:
        answer = wrong.answer
        shown = letters.get(answer, str(answer)) if isinstance(answer, str) else str(answer)
        lines.append(f"{wrong.name.get(lang)}: {shown}")
    return lines


def _blank(variant: Variant, words: dict[str, str]) -> str:
    if variant.input.type == "vector":
        return "[ " + ", ".join(f"{label} = ____" for label in variant.input.labels) + " ]"
    if variant.input.type in NUMBERS:
        return "______"
    return f"({words[INSTRUCTIONS.get(variant.input.type, 'choose_one')]}) ______"


def render_markdown(
    bank: Bank, lesson_id: str, items: list[Variant], seed: int, lang: str
) -> tuple[str, str]:
    """Render the exercise sheet and the answer key as Markdown."""
    words = WORDS["en" if lang == "en" else "zh"]
    title = bank.lessons[lesson_id].title.get(lang)
    meta = f"{words['seed']} {seed} · {words['version']} {bank.version}"
    sheet = [f"# {title} — {words['sheet']}", "", f"*{meta}*", "", words["instructions"], ""]
    key = [f"# {title} — {words['key']}", "", f"*{meta}*", ""]
    for number, variant in enumerate(items, 1):
        question = bank.questions[variant.question_id]
        sheet += [f"## {number}. {question.title.get(lang)}", "", variant.prompt.get(lang), ""]
        for index, option in enumerate(variant.input.options):
            sheet.append(f"- **{LETTERS[index]}.** {option.text.get(lang)}")
        if variant.input.options:
            sheet.append("")
        sheet += [f"{words['answer_line']}: {_blank(variant, words)}", ""]
        key += [f"## {number}. {question.title.get(lang)}", ""]
        key += [f"**{words['answer']}:** {_answer_text(variant, lang)}", ""]
        wrong = _wrong_text(variant, lang)
        if wrong:
            key += [f"*{words['wrong_models']}:*", ""] + [f"- {line}" for line in wrong] + [""]
        key += [f"*{words['solution']}:*", "", "```text", variant.solution.get(lang), "```", ""]
    return "\n".join(sheet).rstrip() + "\n", "\n".join(key).rstrip() + "\n"


CSS = """
body { font-family: system-ui, "Noto Sans CJK SC", sans-serif; max-width: 48rem; margin: 2rem auto;
       line-height: 1.5; padding: 0 1rem; }
h2 { font-size: 1.1rem; margin-top: 2rem; break-after: avoid; }
section { break-inside: avoid; }
pre { white-space: pre-wrap; background: #f4f4f4; padding: 0.5rem; font-size: 0.85rem; }
.blank { margin-top: 0.5rem; }
.meta { color: #555; font-size: 0.9rem; }
code { background: #f4f4f4; padding: 0 0.2rem; }
"""


def inline_html(text: str) -> str:
    """Render plain bank text as HTML: escaped, `code` spans kept, line breaks kept."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return escaped.replace("\n", "<br>\n")


def _page(title: str, body: list[str], lang: str) -> str:
    head = (
        f'<!doctype html>\n<html lang="{"en" if lang == "en" else "zh-CN"}">\n<head>\n'
        f'<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f"<style>{CSS}</style>\n</head>\n<body>\n"
    )
    return head + "\n".join(body) + "\n</body>\n</html>\n"


def render_html(
    bank: Bank, lesson_id: str, items: list[Variant], seed: int, lang: str
) -> tuple[str, str]:
    """Render the exercise sheet and the answer key as standalone, printable HTML pages."""
    words = WORDS["en" if lang == "en" else "zh"]
    title = bank.lessons[lesson_id].title.get(lang)
    meta = f'<p class="meta">{words["seed"]} {seed} · {words["version"]} {bank.version}</p>'
    sheet = [f"<h1>{html.escape(title)} — {words['sheet']}</h1>", meta]
    sheet.append(f"<p>{html.escape(words['instructions'])}</p>")
    key = [f"<h1>{html.escape(title)} — {words['key']}</h1>", meta]
    for number, variant in enumerate(items, 1):
        question_title = html.escape(bank.questions[variant.question_id].title.get(lang))
        sheet += [
            "<section>",
            f"<h2>{number}. {question_title}</h2>",
            f"<p>{inline_html(variant.prompt.get(lang))}</p>",
        ]
        if variant.input.options:
            sheet.append('<ol type="A">')
            sheet += [f"<li>{inline_html(o.text.get(lang))}</li>" for o in variant.input.options]
            sheet.append("</ol>")
        blank = html.escape(_blank(variant, words))
        sheet += [f'<p class="blank">{words["answer_line"]}: {blank}</p>', "</section>"]
        answer = html.escape(_answer_text(variant, lang))
        key += [
            "<section>",
            f"<h2>{number}. {question_title}</h2>",
            f"<p><strong>{words['answer']}:</strong> {answer}</p>",
        ]
        wrong = _wrong_text(variant, lang)
        if wrong:
            key.append(f"<p><em>{words['wrong_models']}:</em></p><ul>")
            key += [f"<li>{html.escape(line)}</li>" for line in wrong]
            key.append("</ul>")
        key += [
            f"<p><em>{words['solution']}:</em></p>",
            f"<pre>{html.escape(variant.solution.get(lang))}</pre>",
            "</section>",
        ]
    return (
        _page(f"{title} — {words['sheet']}", sheet, lang),
        _page(f"{title} — {words['key']}", key, lang),
    )


def make_worksheet(
    bank: Bank, lesson_id: str, count: int, seed: int, lang: str, fmt: str
) -> Worksheet:
    """Pick the items and render the sheet and the key in ``fmt`` ("md" or "html")."""
    bank.lesson_entry(lesson_id)  # NotFound for an unknown lesson
    items = pick_items(bank, lesson_id, count, seed)
    render = render_html if fmt == "html" else render_markdown
    sheet, key = render(bank, lesson_id, items, seed, lang)
    return Worksheet(sheet, key, tuple(items))

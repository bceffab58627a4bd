"""Write bank text for an LMS in zh, en or both: HTML for what students read, plain text for
names a teacher sees in the question bank.

Bank text goes through ``quizsvc.bank.worksheet.inline_html``, the renderer the worksheets and
the Anki deck use (escaped, ``code`` spans kept, line breaks kept), so an LMS shows a prompt
as the other exports do. ``both`` writes Chinese first, then English, in every text.
"""

from __future__ import annotations

from quizsvc.bank.model import Text
from quizsvc.bank.worksheet import INSTRUCTIONS, inline_html

LANG_MODES = ("zh", "en", "both")
LANG_TAGS = {"zh": "zh-Hans", "en": "en"}

WORDS = {
    "wrong_model": Text("错误模型：{name}", "Wrong model: {name}"),
    "solution": Text("解析", "Worked solution"),
    "order": Text("按正确顺序排列。", "Put these in the right order."),
    "choose_all": Text("选出所有正确项。", "Choose all that apply."),
    "about": Text(
        "quizsvc 导出的随机练习：题目 {question}，{count} 个变体（种子 {seeds}），"
        "由 seeds-from {seeds_from} 生成，题库版本 {version}。"
        "在测验中“从本类别随机抽一题”，每个学生会拿到自己的变体。",
        "Randomized exercise exported by quizsvc: question {question}, {count} variants "
        "(seeds {seeds}), drawn from seeds-from {seeds_from}, bank version {version}. "
        "Add “a random question from this category” to a quiz and each student draws their "
        "own variant."),
}


def sides(lang: str) -> tuple[str, ...]:
    """Return the languages ``lang`` writes, in order ("both": Chinese, then English)."""
    if lang not in LANG_MODES:
        raise ValueError(f"lang must be one of {', '.join(LANG_MODES)}")
    return ("zh", "en") if lang == "both" else (lang,)


def text_html(text: Text, lang: str, tag: str = "div") -> str:
    """Render bank text as HTML in ``lang``; "both" puts each language in its own element
    marked with its ``lang`` attribute (``tag``: "div" for blocks, "span" inside a line)."""
    chosen = sides(lang)
    if len(chosen) == 1:
        return inline_html(text.get(chosen[0]))
    joiner = "<br>" if tag == "span" else ""
    return joiner.join(f'<{tag} lang="{LANG_TAGS[side]}">{inline_html(text.get(side))}</{tag}>'
                       for side in chosen)


def plain(text: Text, lang: str) -> str:
    """Return bank text as plain text in ``lang`` ("both": "zh / en" when they differ)."""
    parts = list(dict.fromkeys(text.get(side) for side in sides(lang)))
    return " / ".join(parts)


def instruction(input_type: str) -> str | None:
    """Return the key of the instruction an answer input adds under its prompt (multi and
    order), or None."""
    return INSTRUCTIONS.get(input_type)


def word(key: str, **values: object) -> Text:
    """Return one of ``WORDS`` with ``values`` filled in, in both languages."""
    template = WORDS[key]
    return Text(template.zh.format(**values), template.en.format(**values))


def wrong_model(names: list[Text]) -> Text:
    """Say whose answer this is: the wrong model(s) named, joined in each language."""
    template = WORDS["wrong_model"]
    return Text(template.zh.format(name="；".join(name.zh for name in names)),
                template.en.format(name="; ".join(name.en for name in names)))

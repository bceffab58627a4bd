"""Write an exercise set as a QTI 2.1 item bank: a content package (.zip) holding
``imsmanifest.xml`` and one ``assessmentItem`` per variant.

QTI 2.1 rather than Canvas's own QTI 1.2 dialect: 2.1 is the version the IMS published with
a schema and the one QTI systems other than Canvas read (TAO, OpenOLAT/ONYX, Inspera,
Blackboard), it has an order interaction and integer text entries, which 1.2 as Canvas
writes it lacks, and Canvas imports 2.x packages through the same "QTI .zip" import.

What each kind becomes (response processing written out, no template to fetch):

- choice and anchor: ``choiceInteraction`` with one choice; 1 point for the right one;
- multi: ``choiceInteraction`` with any number of choices, mapped +1/k per right option and
  -1/k per wrong one, bounded below by 0, as quizsvc grades;
- order: ``orderInteraction``; 1/n per item in its place, as quizsvc grades;
- numeric: one integer ``textEntryInteraction`` per element (``RESPONSE_1``...), 1/n each.

A wrong model's answer sets modal feedback naming the model; the worked solution is modal
feedback shown after every attempt. ``quizsvc-export.json`` records the numbers that make
the package again (seeds-from, the seeds, the bank version); each item's identifier and
title carry its question id and seed.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from xml.etree import ElementTree as ET

from quizsvc.bank.catalog import Bank
from quizsvc.bank.errors import BankError
from quizsvc.bank.lms.exercises import ExerciseSet
from quizsvc.bank.lms.wording import (
    LANG_TAGS,
    instruction,
    plain,
    sides,
    text_html,
    word,
    wrong_model,
)
from quizsvc.bank.model import Question, Variant
from quizsvc.bank.worksheet import NUMBERS, inline_html

QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI_SCHEMA = f"{QTI_NS} http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
CP_SCHEMA = f"{CP_NS} http://www.imsglobal.org/xsd/imscp_v1p1.xsd"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "xml:lang"  # the xml prefix needs no declaration
ITEM_TYPE = "imsqti_item_xmlv2p1"
RECORD_FILE = "quizsvc-export.json"
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # every entry's date: the same export gives the same bytes
NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
SOLUTION = "solution"


def q(tag: str) -> str:
    """Return a QTI 2.1 element name: unprefixed, the documents declare QTI as the default
    namespace on their root (ElementTree's own namespace writing would prefix them)."""
    return tag


def document(tag: str, namespace: str, schema: str, **attrib: str) -> ET.Element:
    """Return the root element of a document in ``namespace``, with its schema location."""
    return ET.Element(tag, {"xmlns": namespace, "xmlns:xsi": XSI_NS,
                            "xsi:schemaLocation": schema, **attrib})


def add(parent: ET.Element, tag: str, text: str | None = None, **attrib: str) -> ET.Element:
    """Append a QTI element with attributes (and text) to ``parent``; return it."""
    child = ET.SubElement(parent, q(tag), attrib)
    child.text = text
    return child


def identifier(value: str, prefix: str) -> str:
    """Return ``prefix-value`` as a QTI identifier (an XML NCName), checking it is one."""
    made = f"{prefix}-{value}"
    if not NCNAME.match(made):
        raise BankError("export", "identifier", f"{made[:80]!r} is not a QTI identifier")
    return made


def option_id(option: str) -> str:
    """Return the QTI identifier of a bank option id (``o-<id>``)."""
    return identifier(option, "o")


def item_id(question: Question, variant: Variant) -> str:
    """Return a variant's item identifier: its question id and seed."""
    return identifier(f"{question.id}-{variant.seed}", "quizsvc")


def xhtml(fragment: str, tag: str = "div") -> ET.Element:
    """Parse an HTML fragment of ``wording`` into a QTI element ``tag`` (void tags closed,
    HTML's ``lang`` written as ``xml:lang``): the parse also proves the fragment well formed."""
    wrapper = ET.fromstring(f'<{tag}>{fragment.replace("<br>", "<br/>")}</{tag}>')
    for element in wrapper.iter():
        language = element.attrib.pop("lang", None)
        if language is not None:
            element.set(XML_LANG, language)
    return wrapper


def declare_outcomes(item: ET.Element) -> None:
    """Declare SCORE (0 to 1), MAXSCORE (1) and FEEDBACK (the modal feedback to show)."""
    score = add(item, "outcomeDeclaration", identifier="SCORE", cardinality="single",
                baseType="float")
    add(add(score, "defaultValue"), "value", "0")
    maximum = add(item, "outcomeDeclaration", identifier="MAXSCORE", cardinality="single",
                  baseType="float")
    add(add(maximum, "defaultValue"), "value", "1")
    add(item, "outcomeDeclaration", identifier="FEEDBACK", cardinality="multiple",
        baseType="identifier")


def set_score(parent: ET.Element, value: str) -> None:
    """Set SCORE to a constant."""
    add(add(parent, "setOutcomeValue", identifier="SCORE"), "baseValue", value,
        baseType="float")


def add_to_score(parent: ET.Element, share: float) -> None:
    """Add ``share`` to SCORE."""
    total = add(add(parent, "setOutcomeValue", identifier="SCORE"), "sum")
    add(total, "variable", identifier="SCORE")
    add(total, "baseValue", repr(share), baseType="float")


def show_feedback(parent: ET.Element, feedback: str) -> None:
    """Add a modal feedback's identifier to FEEDBACK."""
    shown = add(add(parent, "setOutcomeValue", identifier="FEEDBACK"), "multiple")
    add(shown, "variable", identifier="FEEDBACK")
    add(shown, "baseValue", feedback, baseType="identifier")


def response_if(processing: ET.Element) -> ET.Element:
    """Start a ``responseCondition``; return its ``responseIf`` (the test goes in first, then
    the rules it guards)."""
    return add(add(processing, "responseCondition"), "responseIf")


def matches(parent: ET.Element, response: str, base_type: str, value: str) -> None:
    """Test that a response equals a constant."""
    test = add(parent, "match")
    add(test, "variable", identifier=response)
    add(test, "baseValue", value, baseType=base_type)


def correct_match(parent: ET.Element, response: str) -> None:
    """Test that a response equals its correct response."""
    test = add(parent, "match")
    add(test, "variable", identifier=response)
    add(test, "correct", identifier=response)


def feedback_id(misconception_id: str) -> str:
    """Return the modal feedback identifier of a wrong model."""
    return identifier(misconception_id, "wrong")


def choice_item(item: ET.Element, body: ET.Element, variant: Variant) -> ET.Element:
    """Declare, show and score a choice, anchor or multi variant; return its processing."""
    multi = variant.input.type == "multi"
    right = list(variant.answer) if multi else [variant.answer]
    declaration = ET.Element(q("responseDeclaration"), identifier="RESPONSE",
                             cardinality="multiple" if multi else "single",
                             baseType="identifier")
    item.insert(0, declaration)
    correct = add(declaration, "correctResponse")
    for option in right:
        add(correct, "value", option_id(option))
    if multi:
        share = 1 / len(right)
        mapping = add(declaration, "mapping", lowerBound="0", upperBound="1",
                      defaultValue="0")
        for option in variant.input.options:
            add(mapping, "mapEntry", mapKey=option_id(option.id),
                mappedValue=repr(share if option.id in right else -share))
    interaction = add(body, "choiceInteraction", responseIdentifier="RESPONSE",
                      shuffle="true", maxChoices="0" if multi else "1")
    return interaction


def score_choice(processing: ET.Element, variant: Variant) -> None:
    """Score a choice-like response: right or not, or (multi) by its mapping."""
    if variant.input.type == "multi":
        branching = add(processing, "responseCondition")
        empty = add(branching, "responseIf")
        add(add(empty, "isNull"), "variable", identifier="RESPONSE")
        set_score(empty, "0")
        add(add(add(branching, "responseElse"), "setOutcomeValue", identifier="SCORE"),
            "mapResponse", identifier="RESPONSE")
        return
    branch = response_if(processing)
    correct_match(branch, "RESPONSE")
    set_score(branch, "1")


def flag_choice_models(processing: ET.Element, variant: Variant) -> None:
    """Show a wrong model's feedback when its option is chosen (multi: among a wrong set)."""
    for wrong in variant.misconceptions:
        branch = response_if(processing)
        if variant.input.type == "multi":
            both = add(branch, "and")
            add(add(both, "not"), "match").extend([
                ET.Element(q("variable"), identifier="RESPONSE"),
                ET.Element(q("correct"), identifier="RESPONSE")])
            member = add(both, "member")
            add(member, "baseValue", option_id(wrong.answer), baseType="identifier")
            add(member, "variable", identifier="RESPONSE")
        else:
            matches(branch, "RESPONSE", "identifier", option_id(wrong.answer))
        show_feedback(branch, feedback_id(wrong.id))


def order_item(item: ET.Element, body: ET.Element, processing: ET.Element,
               variant: Variant) -> ET.Element:
    """Declare, show and score an order variant: 1/n per item in its place."""
    declaration = ET.Element(q("responseDeclaration"), identifier="RESPONSE",
                             cardinality="ordered", baseType="identifier")
    item.insert(0, declaration)
    correct = add(declaration, "correctResponse")
    for option in variant.answer:
        add(correct, "value", option_id(option))
    share = 1 / len(variant.answer)
    for position in range(1, len(variant.answer) + 1):
        branch = response_if(processing)
        same = add(branch, "match")
        add(add(same, "index", n=str(position)), "variable", identifier="RESPONSE")
        add(add(same, "index", n=str(position)), "correct", identifier="RESPONSE")
        add_to_score(branch, share)
    return add(body, "orderInteraction", responseIdentifier="RESPONSE", shuffle="true")


def numeric_item(item: ET.Element, body: ET.Element, processing: ET.Element,
                 variant: Variant) -> None:
    """Declare, show and score a numeric variant: one integer entry per element, 1/n each;
    a wrong model's whole answer shows its feedback."""
    vector = variant.input.type == "vector"
    values = list(variant.answer) if vector else [variant.answer]
    labels = list(variant.input.labels) if vector else [""]
    responses = [f"RESPONSE_{i}" for i in range(1, len(values) + 1)] if vector else ["RESPONSE"]
    for position, (response, value) in enumerate(zip(responses, values, strict=True)):
        declaration = ET.Element(q("responseDeclaration"), identifier=response,
                                 cardinality="single", baseType="integer")
        item.insert(position, declaration)
        add(add(declaration, "correctResponse"), "value", str(int(value)))
    for response, label in zip(responses, labels, strict=True):
        line = xhtml(f"{inline_html(label)} = " if label else "", "p")
        add(line, "textEntryInteraction", responseIdentifier=response, expectedLength="8")
        body.append(line)
        branch = response_if(processing)
        correct_match(branch, response)
        add_to_score(branch, 1 / len(values))
    for wrong in variant.misconceptions:
        answers = list(wrong.answer) if vector else [wrong.answer]
        if len(answers) != len(values) or answers == values:
            continue
        branch = response_if(processing)
        every = add(branch, "and")
        for response, value in zip(responses, answers, strict=True):
            matches(every, response, "integer", str(int(value)))
        show_feedback(branch, feedback_id(wrong.id))


def add_choices(interaction: ET.Element, variant: Variant, lang: str) -> None:
    """Add a variant's options, in the order it shows them, as ``simpleChoice`` elements."""
    for option in variant.input.options:
        choice = add(interaction, "simpleChoice", identifier=option_id(option.id))
        choice.append(xhtml(text_html(option.text, lang)))


def add_feedback(item: ET.Element, variant: Variant, lang: str) -> None:
    """Add the modal feedbacks: one per wrong model, then the worked solution."""
    names = {m.id: m.name for m in variant.misconceptions}  # one feedback per wrong model
    for misconception_id, name in names.items():
        feedback = add(item, "modalFeedback", outcomeIdentifier="FEEDBACK", showHide="show",
                       identifier=feedback_id(misconception_id))
        feedback.append(xhtml(text_html(wrong_model([name]), lang)))
    solution = add(item, "modalFeedback", outcomeIdentifier="FEEDBACK", showHide="show",
                   identifier=SOLUTION, title=plain(word("solution"), lang))
    solution.append(xhtml(text_html(variant.solution, lang)))


def assessment_item(question: Question, variant: Variant, lang: str) -> ET.Element:
    """Build the QTI 2.1 ``assessmentItem`` of one variant."""
    item = document("assessmentItem", QTI_NS, QTI_SCHEMA,
                    identifier=item_id(question, variant),
                    title=f"{plain(question.title, lang)} · {variant.seed}",
                    adaptive="false", timeDependent="false")
    if len(sides(lang)) == 1:
        item.set(XML_LANG, LANG_TAGS[lang])
    declare_outcomes(item)
    body = add(item, "itemBody")
    body.append(xhtml(text_html(variant.prompt, lang)))
    key = instruction(variant.input.type)
    if key:
        body.append(xhtml(text_html(word(key), lang, "span"), "p"))
    processing = ET.Element(q("responseProcessing"))
    shape = variant.input.type
    if shape in NUMBERS:
        numeric_item(item, body, processing, variant)
    elif shape == "order":
        add_choices(order_item(item, body, processing, variant), variant, lang)
    elif shape in ("choice", "multi"):
        add_choices(choice_item(item, body, variant), variant, lang)
        score_choice(processing, variant)
        flag_choice_models(processing, variant)
    else:
        raise BankError(question.id, "kind", f"a {variant.kind} question cannot go to QTI")
    show_feedback(processing, SOLUTION)
    item.append(processing)
    add_feedback(item, variant, lang)
    return item


def manifest(exercises: ExerciseSet, files: dict[str, str]) -> ET.Element:
    """Build ``imsmanifest.xml``: one item resource per variant, and the export's record."""
    root = document("manifest", CP_NS, CP_SCHEMA, identifier=identifier(
        f"{exercises.lesson_id}-{exercises.seeds_from}", "quizsvc"))
    metadata = ET.SubElement(root, "metadata")
    ET.SubElement(metadata, "schema").text = "QTIv2.1 Package"
    ET.SubElement(metadata, "schemaversion").text = "1.0.0"
    ET.SubElement(root, "organizations")
    resources = ET.SubElement(root, "resources")
    for ident, href in files.items():
        resource = ET.SubElement(resources, "resource", identifier=ident, type=ITEM_TYPE,
                                 href=href)
        ET.SubElement(resource, "file", href=href)
    record = ET.SubElement(resources, "resource", identifier="quizsvc-export",
                           type="webcontent", href=RECORD_FILE)
    ET.SubElement(record, "file", href=RECORD_FILE)
    return root


def xml_bytes(root: ET.Element) -> bytes:
    """Serialise a document as UTF-8 with its XML declaration."""
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def qti_package(bank: Bank, exercises: ExerciseSet, lang: str) -> bytes:
    """Write ``exercises`` as a QTI 2.1 content package (.zip bytes) in ``lang``."""
    sides(lang)  # ValueError for an unknown language mode
    documents: dict[str, bytes] = {}
    files: dict[str, str] = {}
    for export_item in exercises.items:
        for variant in export_item.variants:
            element = assessment_item(export_item.question, variant, lang)
            href = f"items/{element.get('identifier')}.xml"
            files[str(element.get("identifier"))] = href
            documents[href] = xml_bytes(element)
    record = {**exercises.record(), "lang": lang, "qti": "2.1"}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        entries = {"imsmanifest.xml": xml_bytes(manifest(exercises, files)),
                   RECORD_FILE: (json.dumps(record, ensure_ascii=False, indent=1,
                                            sort_keys=True) + "\n").encode("utf-8"),
                   **documents}
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            package.writestr(info, data)
    return out.getvalue()

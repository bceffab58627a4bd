"""The question bank: authored questions, seed -> variant generators, and grading.

The service and the web pages use only what this module exports::

    bank = load_bank()                        # cached per directory
    bank.variant(question_id, seed)           # -> Variant, reproducible from the triple
    bank.grade(variant, raw_answer)           # -> Grade (errors.Invalid: unreadable)
    key = AnswerKey.from_variant(variant)     # what grading and the reveal need, sealed
    key.to_json() / AnswerKey.from_json(text) # store it when serving (ValueError: rebuild)
    bank.grade_key(key, raw_answer)           # -> the same Grade, without the variant
"""

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.catalog import Bank, load_bank, read_bank
from quizsvc.bank.errors import BankError, NotFound

__all__ = ["AnswerKey", "Bank", "BankError", "NotFound", "load_bank", "read_bank"]

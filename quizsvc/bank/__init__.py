"""The question bank: authored questions, seed -> variant generators, and grading.

The service and the web pages use only what this module exports::

    bank = load_bank()                        # cached per directory
    bank.variant(question_id, seed)           # -> Variant, reproducible from the triple
    bank.grade(variant, raw_answer)           # -> Grade
"""

from quizsvc.bank.catalog import Bank, load_bank, read_bank
from quizsvc.bank.errors import BankError, NotFound

__all__ = ["Bank", "BankError", "NotFound", "load_bank", "read_bank"]

"""Offer ``quizsvc export FORMAT``: the bank written for other programs.

``anki`` (``quizsvc.bank.anki_commands``) writes a lesson's study deck; ``moodle`` and
``qti`` (``quizsvc.bank.lms.commands``) write randomized exercises for an LMS. Each format
adds its own sub-command here, so the group is made once.
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank import anki_commands
from quizsvc.bank.lms import commands as lms_commands


def register(subparsers: Any) -> None:
    """Add ``export`` and its formats to the ``quizsvc`` parser."""
    export = subparsers.add_parser("export", help="export the bank for other programs")
    actions = export.add_subparsers(dest="export_command", metavar="FORMAT", required=True)
    anki_commands.add_format(actions)
    lms_commands.add_formats(actions)

"""Name the LMS formats and the function that writes each, for the command and the API alike."""

from __future__ import annotations

from collections.abc import Callable

from quizsvc.bank.catalog import Bank
from quizsvc.bank.lms.exercises import ExerciseSet
from quizsvc.bank.lms.moodle import moodle_xml
from quizsvc.bank.lms.qti import qti_package

WRITERS: dict[str, Callable[[Bank, ExerciseSet, str], bytes]] = {
    "moodle": moodle_xml, "qti": qti_package}

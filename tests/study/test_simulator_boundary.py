"""The simulator package plans and nothing more: the use case that replays is the sandbox."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_simulator_loads_no_use_case_store_or_web_module() -> None:
    code = (
        "import sys, quizsvc.study.simulator\n"
        "bad = [m for m in ('flask', 'sqlalchemy', 'marshmallow', 'quizsvc.store',"
        " 'quizsvc.study.context', 'quizsvc.study.sandbox') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""

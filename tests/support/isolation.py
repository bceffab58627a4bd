"""Tell which modules importing some of ours pulls in, in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

WEB_OR_DATABASE = frozenset({"flask", "sqlalchemy", "marshmallow", "quizsvc.api",
                             "quizsvc.store", "quizsvc.web"})


def pulled_in(modules: tuple[str, ...], watched: frozenset[str] = WEB_OR_DATABASE
              ) -> list[str]:
    """Import ``modules`` in a new Python process; return which of ``watched`` it loaded."""
    code = (f"import sys, json; import {', '.join(modules)}; "
            f"print(json.dumps(sorted(set(sys.modules) & set({sorted(watched)!r}))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout)

"""Build each URL rule's builder once per test process, not once per app.

The suite makes a fresh app for nearly every test (``tests/conftest.py``: ``app``), and about
a third of ``create_app``'s time went to werkzeug compiling, for each of its ~100 URL rules,
the same small Python function that builds that rule's URLs (``Rule._compile_builder``: an
AST, then ``compile``). That function depends only on the rule's parsed parts (static text and
argument names), its defaults, and whether unknown arguments are appended; the rule itself is
passed in at call time (its converters are read from it then). So equal rules of two apps
get the same function, and each test still builds, registers and routes a whole app of its own.

``Rule._compile_builder`` is werkzeug's private method, so ``pyproject.toml`` pins werkzeug; a
version without it fails here, at import, rather than quietly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing.rules import Rule

_BUILDERS: dict[tuple[Any, ...], Callable[..., tuple[str, str]]] = {}


def share_url_builders() -> None:
    """Make ``Rule._compile_builder`` return the function an equal rule already compiled."""
    compile_builder = Rule.__dict__["_compile_builder"]
    if getattr(compile_builder, "shared", False):
        return

    def shared(self: Rule, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        defaults = self.defaults or {}
        if any(dynamic and part in defaults for dynamic, part in self._trace):
            # A default for a part of the path is baked into the function by its converter:
            # none of the app's rules has one, and such a rule is compiled as werkzeug does.
            return compile_builder(self, append_unknown)
        key = (tuple(self._trace), repr(sorted(defaults.items())), append_unknown)
        builder = _BUILDERS.get(key)
        if builder is None:
            builder = _BUILDERS[key] = compile_builder(self, append_unknown)
        return builder

    shared.shared = True  # type: ignore[attr-defined]
    Rule._compile_builder = shared  # type: ignore[method-assign]

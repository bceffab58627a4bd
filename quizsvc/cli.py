"""The ``quizsvc`` console script: one entry point, one sub-command group per package.

Each package that offers commands exposes ``register(subparsers)`` in a ``commands`` module
(``quizsvc serve``, which runs the whole service, in ``quizsvc.serve``); this file only wires
them together. A commands module imports what it needs when a command runs, so
``quizsvc ledger ...`` never imports Flask.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from quizsvc import serve
from quizsvc.bank import commands as bank_commands
from quizsvc.ledger import commands as ledger_commands
from quizsvc.store import commands as store_commands
from quizsvc.study import cohort_commands, export_commands, fsrs_commands

COMMAND_MODULES = (ledger_commands, bank_commands, export_commands, store_commands,
                   fsrs_commands, cohort_commands, serve)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every package's sub-commands registered."""
    parser = argparse.ArgumentParser(prog="quizsvc", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``quizsvc`` command line and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    return int(handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

"""The ``quizsvc`` console script: one entry point, one sub-command group per package.

Each package that offers commands exposes ``register(subparsers)`` in a ``commands`` module;
this file only wires them together, so the ledger's commands never import Flask.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# (module, attribute) pairs; each registers its own sub-commands. Missing modules are skipped
# so that a partial checkout still offers what it has.
COMMAND_MODULES: tuple[str, ...] = (
    "quizsvc.ledger.commands",
    "quizsvc.bank.commands",
    "quizsvc.bank.anki_commands",
    "quizsvc.store.commands",
    "quizsvc.store.fsrs_commands",
    "quizsvc.web.commands",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every package's sub-commands registered."""
    parser = argparse.ArgumentParser(prog="quizsvc", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name == module_name:
                continue
            raise
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

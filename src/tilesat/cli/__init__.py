"""The ``tilesat`` command: a thin layer over the library.

Exit statuses: 0 success (``unique`` for check-unique), 1 ``multiple``,
2 bad input or usage, 3 ``none`` (no tiling), 130 interrupted, 141 standard
output closed early (``| head``).

One module per group of commands; each registers its commands on ``app``
when imported.  The process-level edges (usage errors, a failing or
closed stdout) are handled once, in :class:`tilesat.cli.root.TilesatGroup`.

A process runs one command, so :func:`main` imports only that command's
module (what the others import -- pictures, explanations, the studio --
would be most of a small count's time); ``tilesat.cli.app`` has them all.

The top layer: it may import every package (``serve`` starts the studio).
"""

from __future__ import annotations

import importlib
import os
import sys

#: The modules that register commands, in --help's order.
MODULES = ("search", "count", "pack", "compare", "fuzz", "dimacs", "make", "info", "serve", "explain")
#: Each command's module (tests/test_cli.py checks this against the commands registered).
COMMAND_MODULES = {
    "solve": "search", "check-unique": "search", "count": "count", "list": "count", "pack": "pack",
    "compare": "compare", "fuzz": "fuzz", "export": "dimacs", "decode": "dimacs", "verify-proof": "dimacs",
    "export-family": "dimacs", "generate": "make", "tromino": "make", "info": "info", "pieces": "info",
    "serve": "serve", "explain": "explain",
}


def load_commands(modules=MODULES):
    """Import the command modules (each registers its commands on ``app``); return ``app``."""
    for name in modules:
        importlib.import_module(f"{__name__}.{name}")
    from .root import app

    return app


def command_module(args: list[str]) -> str | None:
    """The module of the command these arguments run, or None (no command, an
    unknown one, shell completion): then every command is loaded."""
    if "_TILESAT_COMPLETE" in os.environ:  # typer's shell completion offers every command
        return None
    words = iter(args)
    for word in words:
        if word == "--max-memory":  # the group's one option with a value
            next(words, None)
        elif not word.startswith("-"):
            return COMMAND_MODULES.get(word)
    return None


def __getattr__(name: str):
    if name == "app":  # every command, as the library's callers and tests expect
        return load_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The ``tilesat`` console script (exits with the command's status)."""
    module = command_module(sys.argv[1:])
    app = load_commands(MODULES if module is None else (module,))
    app(prog_name="tilesat")


if __name__ == "__main__":
    sys.exit(main())

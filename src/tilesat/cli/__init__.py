"""The ``tilesat`` command: a thin layer over the library.

Exit statuses: 0 success (``unique`` for check-unique), 1 ``multiple``,
2 bad input or usage, 3 ``none`` (no tiling), 130 interrupted, 141 standard
output closed early (``| head``).

One module per group of commands; each registers its commands on ``app``
when imported (below).  The process-level edges (usage errors, a failing or
closed stdout) are handled once, in :class:`tilesat.cli.root.TilesatGroup`.

The top layer: it may import every package (``serve`` starts the studio).
"""

from __future__ import annotations

import sys

from .root import app

# each module registers its commands on ``app``, in this order in --help
from . import search, count, pack, compare, fuzz, dimacs, make, info, serve, explain  # noqa: F401


def main() -> None:
    """The ``tilesat`` console script (exits with the command's status)."""
    app(prog_name="tilesat")


if __name__ == "__main__":
    sys.exit(main())

"""The ``tilesat`` command: a thin layer over the library.

Exit statuses: 0 success (``unique`` for check-unique), 1 ``multiple``,
2 bad input or usage, 3 ``none`` (no tiling), 130 interrupted.

One module per group of commands; each registers its commands on ``app``
when imported (at the end of this file).
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .. import __version__
from .. import limits
from ..errors import TilesatError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Polyomino tiling compiled to SAT: solve boards, check that a puzzle's solution is unique.",
)


def _version(value: bool):
    if value:
        print(f"tilesat {__version__}")
        raise typer.Exit()


def _max_memory(ctx: typer.Context, param: typer.CallbackParam, value: Optional[str]):
    # always set, also to None: a test's runner keeps the process (and the limit) between commands
    source = ctx.get_parameter_source(param.name)
    name = limits.ENV_VAR if source is not None and source.name == "ENVIRONMENT" else "--max-memory"
    try:
        limits.set_memory_limit(None if value is None else limits.parse_size(value), name)
    except TilesatError as e:
        raise typer.BadParameter(str(e)) from None
    return value


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
    max_memory: Annotated[Optional[str], typer.Option(
        "--max-memory", metavar="SIZE", envvar=limits.ENV_VAR, callback=_max_memory,
        help="Refuse instances whose placements, formula and solver copy would need more than SIZE "
             "(e.g. 4G, 512M); default: 80% of the available memory.")] = None,
):
    pass


def main() -> None:
    app(prog_name="tilesat")


# after ``app`` exists: each module registers its commands on it, in this order in --help
from . import search, count, pack, compare, dimacs, make, info  # noqa: E402,F401

if __name__ == "__main__":
    sys.exit(main())

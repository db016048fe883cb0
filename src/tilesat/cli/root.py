"""The ``tilesat`` command group: one line ``error: ...`` (exit 2) for every
usage error, a failing stdout handled once, ``--version`` and ``--max-memory``.
The commands register themselves on :data:`app` (:mod:`tilesat.cli`)."""

from __future__ import annotations

import gc
import sys
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from .. import __version__
from ..running import memory
from ..errors import TilesatError
from .plain_values import without_pydantic
from .common import EXIT_USAGE, _err, begin_run, interrupt_reported, is_interrupted, stdout_failed

# typer's public BadParameter derives from the (vendored, in typer >= 0.26)
# click's ClickException, the base of every usage error: found this way, no
# private module is imported
_CLICK_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _plain_flags(params) -> list:
    """A flag shows as ``--json``, not ``--json <bool>`` (typer 0.29 labels flags with their type)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class TilesatGroup(TyperGroup):
    """The command group, with one line ``error: ...`` (exit 2) for every usage
    error, in place of click's box, and a failing stdout handled once."""

    def get_params(self, ctx):
        return without_pydantic(_plain_flags(super().get_params(ctx)))

    def resolve_command(self, ctx, args):
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:  # its options, --help included (made and kept on first use)
            without_pydantic(_plain_flags(command.get_params(ctx)))
        return name, command, rest

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:  # a caller that handles errors itself
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        args = sys.argv[1:] if args is None else list(args)
        begin_run()
        status = 0
        try:
            if not args:  # no command: the help, as a usage error
                super().main(["--help"], prog_name, complete_var, standalone_mode=False, **extra)
                status = EXIT_USAGE
            else:
                status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            if is_interrupted(status) and not interrupt_reported():
                # Ctrl-C while typer was still reading the arguments: typer says nothing
                _err().print("interrupted: stopped while starting; nothing was done", markup=False)
            sys.stdout.flush()  # a closed pipe or a full disk shows here, not in Python's exit
        except _CLICK_ERROR as e:
            _err().print(f"error: {_usage_message(e)}", markup=False)
            status = EXIT_USAGE
        except typer.Abort:  # end of input at a prompt
            _err().print("error: aborted", markup=False)
            status = EXIT_USAGE
        except OSError as e:  # stdout, outside any command (--help | head)
            status = stdout_failed(e)
        if is_interrupted(status):
            # stop within a second: the interpreter's last collection over a big count's objects took
            # 1-2 s more on a loaded machine (the answer was out in 0.1 s); nothing left needs it
            gc.freeze()
        sys.exit(status if isinstance(status, int) else 0)


def _usage_message(e) -> str:
    ctx = getattr(e, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return f"{e.format_message()}{hint}".replace("\n", " ")


app = typer.Typer(
    cls=TilesatGroup,
    add_completion=True,  # typer's --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    context_settings={"help_option_names": ["-h", "--help"]},  # every command inherits -h
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
    name = memory.ENV_VAR if source is not None and source.name == "ENVIRONMENT" else "--max-memory"
    try:
        memory.set_memory_limit(None if value is None else memory.parse_size(value), name)
    except TilesatError as e:
        raise typer.BadParameter(str(e)) from None
    return value


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
    max_memory: Annotated[Optional[str], typer.Option(
        "--max-memory", metavar="SIZE", envvar=memory.ENV_VAR, callback=_max_memory,
        help="Refuse instances whose placements, formula and solver copy would need more than SIZE "
             "(e.g. 4G, 512M); default: 80% of the available memory.")] = None,
):
    pass

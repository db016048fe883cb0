"""The ``tilesat`` console script's entry: a Ctrl-C before any work ends at once.

Importing the command line (numpy, PySAT, typer, rich) and reading the
arguments take about half a second.  A KeyboardInterrupt raised in the
middle of imports can come out as another error (or as a death by SIGINT
when the interpreter finalises half-imported modules: both seen), so until
a command starts (``cli.common.friendly`` puts Python's handler back)
SIGINT ends the process straight away: one line, exit 130 (SIGTERM and
SIGHUP alike: 143, 129).  Nothing was done yet, so there is nothing to
clean up.  Once the command has run, they are ignored: its output is
complete and the process ends with its status
(:func:`.running.processes.ends_with_its_command`).
"""

import gc
import os
import signal
import sys


def _stop_while_starting(signum, frame):
    os.write(2, b"interrupted: stopped while starting; nothing was done\n")
    os._exit(128 + signum)


def main() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_while_starting)
    if sys.argv[1:] == ["--version"]:  # the one answer that needs none of the command line's imports
        from . import __version__

        try:
            os.write(1, f"tilesat {__version__}\n".encode())
            return
        except OSError:  # a closed or full stdout: the command line says so as it always does
            pass
    # the start-up's objects (the libraries' modules) live until exit: the collector's passes over them
    # free nothing; it is off until the command starts (cli.common.friendly), then leaves them aside
    gc.disable()
    from .running.stdout_guard import reserve_stdout

    reserve_stdout()  # before any native library loads: fd 1 is tilesat's document alone
    from .cli import main as cli_main
    from .running.processes import ends_with_its_command

    ends_with_its_command()
    try:
        cli_main()
    finally:
        # the process ends here: the interpreter's last collection would walk every object
        # left and find next to nothing to free (docs/benchmarks/records.md)
        gc.freeze()

import os
import signal
import sys

import pytest
import typer.testing
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))  # for the oracle module

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# typer's CliRunner builds the click command from the app on every invoke, every command's
# signature read again (30-60 ms, a third of an in-process CLI test's time): build it once per
# app and set of registered commands (a command module imported later registers more).
# A private function of typer's: where a release renames it, the runner is left as it is (slower).
_build_command = getattr(typer.testing, "_get_command", None)
_built: dict = {}


def _command_of(app):
    key = (id(app), len(app.registered_commands), len(app.registered_groups), id(app.registered_callback))
    if key not in _built or _built[key][0] is not app:
        _built[key] = (app, _build_command(app))
    return _built[key][1]


if _build_command is not None:
    typer.testing._get_command = _command_of


@pytest.fixture(autouse=True)
def _signal_handlers_put_back():
    """Each test starts with the signal handlers pytest had: a command run
    in-process that was interrupted ignores further Ctrl-Cs as it ends (a real
    process then exits), and the tests after it must not inherit that."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in saved.items():
        if signal.getsignal(signum) is not handler and handler is not None:
            signal.signal(signum, handler)


@pytest.fixture
def board(tmp_path):
    """``board(text)``: the path of a new instance file holding ``text``."""
    def make(text, name="b.txt"):
        p = tmp_path / name
        p.write_text(text)
        return p

    return make

"""The layer covers every command: those of the documentation's command table
and those ``tilesat --help`` lists each have contract tests named after them
(``test_<command>_...``) in this package."""

import importlib
import pkgutil
import re
from pathlib import Path

from .process import expect, tilesat

COMMANDS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "commands.md"


def _documented_commands() -> list[str]:
    return re.findall(r"^\| `tilesat ([a-z-]+)", COMMANDS_PAGE.read_text(), re.M)


def _listed_commands() -> list[str]:
    """The commands box of ``tilesat --help``: a name at the start of a row."""
    help_text = expect(tilesat("--help"), 0).text
    box = help_text.split("Commands", 1)[1]
    return re.findall(r"^\W ([a-z][a-z-]+) {2,}", box, re.M)


def _contract_tests() -> list[str]:
    names = []
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name.startswith("test_"):
            names += [n for n in dir(importlib.import_module(f"{__package__}.{module.name}")) if n.startswith("test_")]
    return names


def test_every_command_has_contract_tests():
    documented, listed = _documented_commands(), _listed_commands()
    assert len(documented) >= 16 and set(documented) <= set(listed), (documented, listed)
    tests = _contract_tests()
    untested = [c for c in listed if not any(t.startswith(f"test_{c.replace('-', '_')}_") for t in tests)]
    assert not untested, f"commands without a contract test here: {untested}"

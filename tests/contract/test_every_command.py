"""The layer covers every command of the README's command table: each has
contract tests named after it (``test_<command>_...``) in this package."""

import importlib
import pkgutil
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_commands() -> list[str]:
    table = README.read_text().split("## Commands", 1)[1].split("\n\n", 2)[1]
    return re.findall(r"^\| `tilesat ([a-z-]+)", table, re.M)


def _contract_tests() -> list[str]:
    names = []
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name.startswith("test_"):
            names += [n for n in dir(importlib.import_module(f"{__package__}.{module.name}")) if n.startswith("test_")]
    return names


def test_every_command_of_the_readme_has_contract_tests():
    commands = _readme_commands()
    assert len(commands) == 16, commands  # the table as the README has it (check-unique ... serve)
    tests = _contract_tests()
    untested = [c for c in commands if not any(t.startswith(f"test_{c.replace('-', '_')}_") for t in tests)]
    assert not untested, f"commands of the README without a contract test: {untested}"

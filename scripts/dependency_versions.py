"""Print the installed version of each of tilesat's direct dependencies
(``dependencies`` and the ``dev`` extra of pyproject.toml), one per line,
beside the range pyproject asks for: CI prints them first, so that a run that
fails after a new release shows what changed.

    python scripts/dependency_versions.py [--extra dev] [--extra bench]
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: not asked for directly, but their releases change what tilesat does (numba compiles
#: xcover and the enumerators; distributed runs --cluster dask; click parses the command line)
INDIRECT = ("numba", "llvmlite", "distributed", "click", "scipy")


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project.get("optional-dependencies", {}).get(extra, [])
    return wanted


def name_of(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", action="append", default=None, help="optional-dependency groups too (default: dev)")
    extras = parser.parse_args().extra or ["dev"]
    print(f"python {platform.python_version()} ({sys.executable}) on {platform.platform()}")
    seen = set()
    for requirement in requirements(extras):
        name = name_of(requirement)
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "not installed"
        print(f"{name:16} {version:14} (asked: {requirement})")
    for name in INDIRECT:
        try:
            print(f"{name:16} {metadata.version(name):14} (through another dependency)")
        except metadata.PackageNotFoundError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

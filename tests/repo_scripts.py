"""The benchmark scripts of ``scripts/`` as modules, for tests that check
their data or reuse their definitions (a script imports its siblings by name,
so ``scripts/`` is on the path while it loads)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def import_script(name: str):
    """``scripts/NAME.py`` imported as the module ``NAME``."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(SCRIPTS))

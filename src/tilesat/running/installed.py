"""The entry points installed packages declare (tilesat's plugins).

Importing ``importlib.metadata`` (email, zipfile, csv, ...) takes 15-30 ms,
a tenth of a small count's whole process, and every count asks for the
engines' group (``--method``'s help, ``auto``).  Usually no installed
package declares one, and that is seen by reading the few
``entry_points.txt`` files where ``importlib.metadata`` would find them:
only when one of them names the group (or a place they cannot be read
this way is in use) is ``importlib.metadata`` imported to load it.
"""

from __future__ import annotations

import os
import sys


def entry_points(group: str) -> list:
    """``importlib.metadata.entry_points(group=group)``, as a list."""
    if not _may_declare(group):
        return []
    import importlib.metadata

    return list(importlib.metadata.entry_points(group=group))


def _may_declare(group: str) -> bool:
    """False only when no distribution on ``sys.path`` names ``group`` in its entry
    points: every entry a directory (not a zip file, not an egg) read as
    ``importlib.metadata`` reads them, and no other finder of distributions installed."""
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return True
    for entry in sys.path:
        path = entry or "."
        if path.lower().endswith(".egg"):
            return True
        try:
            names = os.listdir(path)
        except OSError:
            if os.path.isfile(path):  # a zip file's distributions
                return True
            continue  # not there: nothing installed there
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(path, name, "entry_points.txt"), encoding="utf-8",
                              errors="replace") as f:
                        if group in f.read():
                            return True
                except OSError:  # none (most packages), or an .egg-info file
                    continue
    return False

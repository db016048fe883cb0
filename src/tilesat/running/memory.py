"""The memory limit of a run: ``--max-memory``, ``TILESAT_MAX_MEMORY``, else a
share of the memory available now (also bounded by ``ulimit -v`` and a
cgroup's limit), and the cap on the bytes read from an instance file.

What an instance is expected to need is :mod:`tilesat.model.footprint`'s
business; this module only says how much there is.
"""

from __future__ import annotations

import os
import re
import resource

from ..errors import TilesatError

KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40

#: Instance files are read up to this size, no further (``/dev/zero``, a FIFO
#: or a huge file end in one clear line): 64 MiB is an 8000x8000 grid, whose
#: formula would need terabytes.
MAX_INSTANCE_BYTES = 64 * MiB

#: Without ``--max-memory``, an instance may use this share of the memory
#: available when the check runs (the rest: the interpreter, other programs).
AVAILABLE_SHARE = 0.8

#: The environment variable read when ``--max-memory`` is not given.
ENV_VAR = "TILESAT_MAX_MEMORY"

#: Estimates below this are let through without reading /proc: less than the
#: interpreter itself, so no machine that runs tilesat lacks it (keeps the
#: check off the time of small boards).  An explicit limit is always checked.
ALWAYS_FITS = 64 * MiB

_explicit: tuple[int, str] | None = None

_SIZE = re.compile(r"(?i)\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(i?b)?\s*")
_UNIT = {"": 1, "k": KiB, "m": MiB, "g": GiB, "t": TiB}


def parse_size(text: str) -> int:
    """``4G``, ``512M``, ``1.5g``, ``64MiB``, ``100000`` (bytes) as a number of
    bytes; units are powers of 1024, as in ``sort -S``."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        raise TilesatError(f"bad size {text!r}: use a number with K, M, G or T, e.g. 4G or 512M")
    value = float(m.group(1)) * _UNIT[m.group(2).lower()]
    if not 1 <= value < 2**63:
        raise TilesatError(f"bad size {text!r}: it must be at least 1 byte")
    return int(value)


def format_size(nbytes: float) -> str:
    """``1.5 GiB``, ``40 GiB``, ``512 MiB``: two or three significant figures."""
    for unit, name in ((TiB, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if nbytes >= unit:
            value = nbytes / unit
            return f"{value:.1f} {name}" if value < 10 else f"{value:.0f} {name}"
    return f"{int(nbytes)} bytes"


def set_memory_limit(nbytes: int | None, source: str = "--max-memory") -> None:
    """Use ``nbytes`` as the memory limit from now on (``None``: back to the
    environment variable, else the available memory).  ``source`` names the
    limit in messages."""
    global _explicit
    if nbytes is not None and nbytes < 1:
        raise TilesatError(f"{source}: the memory limit must be at least 1 byte")
    _explicit = None if nbytes is None else (int(nbytes), source)


def explicit_limit() -> tuple[int, str] | None:
    """The limit set by :func:`set_memory_limit` or ``TILESAT_MAX_MEMORY``, if any."""
    if _explicit is not None:
        return _explicit
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return None
    try:
        return parse_size(text), ENV_VAR
    except TilesatError as e:
        raise TilesatError(f"{ENV_VAR}: {e}") from None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None  # "max", absent, unreadable: no limit from there


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * KiB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _process_sizes() -> tuple[int, int]:
    """(virtual size, data size) of this process in bytes (0, 0 if unknown)."""
    try:
        with open("/proc/self/statm") as f:
            fields = f.read().split()
        page = os.sysconf("SC_PAGE_SIZE")
        return int(fields[0]) * page, int(fields[5]) * page
    except (OSError, ValueError, IndexError):
        return 0, 0


def available_memory() -> tuple[int, str]:
    """(bytes, what they are): the least of the machine's available memory,
    what a cgroup limit leaves, and what ``ulimit -v`` / ``ulimit -d`` leave."""
    found: list[tuple[int, str]] = []
    avail = _meminfo_available()
    if avail is not None:
        found.append((avail, "available memory"))
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit = _read_int(limit_path)
        if limit is not None and limit < 2**60:  # cgroup v1 writes "no limit" as ~2^63
            found.append((max(limit - (_read_int(usage_path) or 0), 0), "the cgroup's memory limit"))
    vsize, dsize = _process_sizes()
    for which, used, name in ((resource.RLIMIT_AS, vsize, "ulimit -v"), (resource.RLIMIT_DATA, dsize, "ulimit -d")):
        soft = resource.getrlimit(which)[0]
        if soft != resource.RLIM_INFINITY:
            found.append((max(soft - used, 0), f"memory {name} leaves"))
    if not found:
        return 2**62, "no known limit"
    return min(found)


def memory_limit() -> tuple[int, str]:
    """(bytes, why): the memory an instance may take, and where that figure
    comes from (for the message)."""
    explicit = explicit_limit()
    if explicit is not None:
        return explicit
    avail, what = available_memory()
    return int(avail * AVAILABLE_SHARE), f"{AVAILABLE_SHARE:.0%} of the {what}; set --max-memory to change it"

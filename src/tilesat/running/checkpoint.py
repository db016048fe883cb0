"""Checkpoints of a count or a listing split into units (``--checkpoint FILE``).

A JSON-lines file: a header, then one record per finished unit, appended
as each unit finishes and pushed to the disk (flush + fsync) before the
run goes on.  The header is written whole to a temporary file then renamed
over the name, so a checkpoint is never half a header; a crash in the
middle of a record leaves a last line without its newline, which is dropped
(that unit runs again).  Every line carries a CRC-32 of its content: any
other damage is refused, in one line.

The header names what the checkpoint is for: a fingerprint of the
instance (its canonical text), the method, up-to-symmetry, and the units
(how many were asked for and a hash of the plan they gave).  A run with
the same file resumes only when all of them match: the units' counts can
then be added to the new ones and the total is exact.  A resume plans its
units with the header's parameters, so it may use more or fewer workers
than the run that wrote it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zlib
from pathlib import Path

from ..errors import TilesatError
from .inputs import read_bytes

FORMAT = "tilesat-checkpoint/1"

#: A checkpoint is read up to this size: a line per unit, and a count plans
#: at most MAX_UNITS units (a few hundred bytes each).
MAX_UNITS = 1 << 17
MAX_BYTES = 256 << 20


class CheckpointError(TilesatError):
    """A checkpoint that cannot be used: damaged, or made by another run."""


def _line(data: dict) -> str:
    body = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return json.dumps({"crc": zlib.crc32(body.encode()), "data": data}, separators=(",", ":"), sort_keys=True) + "\n"


def _parse(line: str) -> dict | None:
    """A line's data, or None when it is not a line this module wrote intact."""
    try:
        outer = json.loads(line)
        data = outer["data"]
        body = json.dumps(data, separators=(",", ":"), sort_keys=True)
        if not isinstance(data, dict) or outer["crc"] != zlib.crc32(body.encode()):
            return None
        return data
    except (ValueError, KeyError, TypeError):
        return None


class Checkpoint:
    """One checkpoint file.  :meth:`open` reads it if it exists (checking
    what it is for), :meth:`begin` writes the header of a new one or checks
    the plan of an old one, :meth:`add` appends a finished unit's record."""

    def __init__(self, path: str | os.PathLike, kind: str, identity: dict):
        self.path = Path(path)
        self.kind = kind  # "count" or "list"
        self.identity = identity  # instance digest, method, up_to_symmetry, ...
        self.header: dict | None = None
        self.records: dict[int, dict] = {}
        self.in_order: list[dict] = []  # the same records as in the file (a count's splits add units in this order)
        self._valid_bytes = 0  # the length of the intact lines (a torn last line is cut off)
        self._file = None

    def refuse(self, why: str) -> CheckpointError:
        """The error refusing this checkpoint, saying ``why``."""
        return CheckpointError(f"checkpoint {self.path}: {why}")

    def open(self) -> "Checkpoint":
        """Read the file if there is one; a checkpoint for something else, or damaged, is refused."""
        if not os.path.lexists(self.path):
            return self
        try:
            raw = read_bytes(self.path, MAX_BYTES, what="checkpoint file", text=True,
                             why="a checkpoint holds a line per unit of the count")
        except TilesatError as e:
            raise CheckpointError(f"checkpoint {e}") from None
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            raise self.refuse("damaged (not text); it is not a tilesat checkpoint or it was corrupted") from None
        lines = text.split("\n")
        torn = lines.pop()  # "" when the file ends with a newline, else a record cut short by a crash
        if not lines:
            raise self.refuse("damaged or not a checkpoint (no header line)")
        header = _parse(lines[0])
        if header is None or header.get("format") != FORMAT:
            raise self.refuse("damaged or not a tilesat checkpoint (its first line is not a checkpoint header)")
        if header.get("kind") != self.kind:
            raise self.refuse(f"it is a checkpoint of `tilesat {header.get('kind')}`, not of `tilesat {self.kind}`")
        for key, value in self.identity.items():
            if header.get(key) != value:
                what = {"instance": "another instance", "method": "another method",
                        "up_to_symmetry": "a count with a different --up-to-symmetry"}.get(key, f"another {key}")
                raise self.refuse(f"it was made for {what} ({key}: {_short(header.get(key))}, "
                                   f"here {_short(value)}); use another file or delete it")
        for n, line in enumerate(lines[1:], start=2):
            record = _parse(line)
            if record is None or not isinstance(record.get("unit"), int):
                raise self.refuse(f"damaged at line {n}; delete it to start again")
            i = record["unit"]
            if i in self.records and self.records[i] != record:
                raise self.refuse(f"damaged at line {n}: unit {i} recorded twice with different results")
            if i not in self.records:
                self.in_order.append(record)
            self.records[i] = record
        self.header = header
        self._valid_bytes = len(raw) - len(torn.encode())
        return self

    @property
    def exists(self) -> bool:
        return self.header is not None

    def param(self, key: str, default: int) -> int:
        """A unit-planning parameter (a whole number of units): the header's
        when resuming, else ``default``.  A header's value out of range is
        refused: the header's CRC proves it intact, not that tilesat wrote it."""
        if self.header is None:
            return default
        value = self.header.get(key, default)
        if type(value) is not int or not 1 <= value <= MAX_UNITS:
            raise self.refuse(f"its header's {key!r} is not a number of units from 1 to {MAX_UNITS:,}; "
                               "use another file or delete it")
        return value

    def begin(self, units: list, plan: str, params: dict, grows: bool = False) -> dict[int, dict] | list[dict]:
        """Start writing: a new file's header (with the plan's hash and its
        parameters), or check an old one's plan (and every record's unit).
        Returns the records of the units already finished, by unit index; with
        ``grows`` (a count whose units split where they stand, adding units as
        it goes: :class:`tilesat.questions.balance.Ledger` checks each record),
        the records in the file's order."""
        if self.header is None:
            self.header = {"format": FORMAT, "kind": self.kind, **self.identity, **params, "plan": plan,
                           "units": len(units)}
            self._write_header()
        else:
            if self.header.get("plan") != plan or self.header.get("units") != len(units):
                raise self.refuse("its units differ from this run's (made by another version of tilesat?); "
                                   "use another file or delete it")
            for i, record in self.records.items():
                if grows:
                    break
                if not 0 <= i < len(units) or record.get("forced") != list(units[i].forced):
                    raise self.refuse(f"damaged: the record of unit {i} does not match the plan")
            with open(self.path, "r+b") as f:  # a torn last line goes before anything is appended
                f.truncate(self._valid_bytes)
        self._file = open(self.path, "a")
        return list(self.in_order) if grows else dict(self.records)

    def _write_header(self) -> None:
        folder = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(_line(self.header))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as e:
            raise self.refuse(f"cannot write it: {e.strerror or e}") from None

    def add(self, unit_index: int, unit, **results) -> None:
        """A finished unit's record, on the disk before this returns."""
        record = {"unit": unit_index, "forced": list(unit.forced), **results}
        if getattr(unit, "excluded", ()):
            record["excluded"] = list(unit.excluded)
        self.records[unit_index] = record
        self.in_order.append(record)
        try:
            self._file.write(_line(record))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as e:
            raise self.refuse(f"cannot write it: {e.strerror or e}") from None

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def _short(value) -> str:
    text = str(value)
    return text[:12] + "..." if len(text) > 15 else text

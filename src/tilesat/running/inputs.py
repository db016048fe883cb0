"""The one reader for every file tilesat takes: instances, solver models,
``--block`` tilings, checkpoints, proof folders.

What any of them may hold is bounded before it costs anything:

- **size**: read in chunks up to a limit, never further (``/dev/zero``, a
  FIFO, a pipe or a huge file end in one line once the limit is reached); a
  regular file's size is checked before its first byte is read;
- **content**: NUL bytes (where text is expected) stop the reading at the
  chunk they are in; text that is not UTF-8 is one line naming the byte;
- **JSON**: nesting deeper than :data:`MAX_JSON_DEPTH` is refused, and so are
  lone surrogates (``"\\ud800"``: not text any program can write back),
  ``NaN`` and ``Infinity`` (not JSON);
- **time**: each chunk is a separate read, so Ctrl-C (and SIGTERM, handled
  like it) stops a read from a FIFO that never ends.

Every problem is one :class:`TilesatError` line (exit status 2), naming the
file and saying what is wrong, never quoting what the file holds.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ..errors import TilesatError

#: Bytes asked of the file in one read: small enough that Ctrl-C and the
#: size limit act within milliseconds, large enough to cost nothing.
READ_CHUNK = 1 << 20

#: How deep JSON may nest: tilesat's own files nest 4 deep (a tiling: list,
#: tile, cells, cell); anything near Python's recursion limit is an attack.
MAX_JSON_DEPTH = 64


def _size_text(nbytes: int) -> str:
    from .memory import format_size

    return format_size(nbytes)


def read_bytes(path: str | os.PathLike, limit: int, *, what: str = "file", why: str = "",
               text: bool = False, regular_only: bool = False) -> bytearray:
    """The bytes of ``path``, at most ``limit`` of them.

    ``what`` names the kind of file in messages ("is a directory, not an
    instance file"); ``why`` follows "larger than LIMIT" (e.g. "instance
    files are text grids").  ``text``: NUL bytes are refused as they
    arrive (binary data, ``/dev/zero``).  ``regular_only``: a regular file,
    not a link (read from a folder tilesat did not choose)."""
    too_large = f"{path}: larger than {_size_text(limit)}" + (f"; {why}" if why else "")
    try:
        if Path(path).is_dir():
            raise TilesatError(f"{path}: is a directory, not {_article(what)}")
        flags = os.O_RDONLY | (os.O_NOFOLLOW | os.O_NONBLOCK if regular_only else 0)
        with open(os.open(path, flags), "rb") as f:
            if regular_only and not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise TilesatError(f"{path}: not a regular file")
            if os.path.isfile(path) and os.fstat(f.fileno()).st_size > limit:
                raise TilesatError(too_large)  # a regular file: known without reading it
            data = bytearray()  # grown in place: the limit's bytes once, not twice at a join
            while len(data) <= limit:
                chunk = f.read(min(READ_CHUNK, limit + 1 - len(data)))
                if not chunk:
                    break
                if text and b"\0" in chunk:
                    raise TilesatError(f"{path}: not a text file (it contains NUL bytes)")
                data += chunk
    except TilesatError:
        raise
    except (OSError, ValueError) as e:  # ValueError: a path with a NUL byte in it
        raise TilesatError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if len(data) > limit:
        raise TilesatError(too_large)
    return data


def read_text(path: str | os.PathLike, limit: int, *, what: str = "file", why: str = "") -> str:
    """The UTF-8 text of ``path`` (at most ``limit`` bytes; a leading
    byte-order mark dropped); binary data is refused in one line."""
    data = read_bytes(path, limit, what=what, why=why, text=True)
    return decode_text(data, str(path))


def decode_text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")  # -sig: a leading byte-order mark is not content
    except UnicodeDecodeError as e:
        raise TilesatError(f"{where}: not a text file (byte {e.start} is not UTF-8)") from None


def _article(what: str) -> str:
    return ("an " if what[:1] in "aeiou" else "a ") + what


def parse_json(text: str | bytes, where: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """JSON text as Python data, checked: one line naming ``where`` for
    anything that is not JSON, nests deeper than ``max_depth`` or holds a
    string that is not text (a lone surrogate)."""
    try:
        data = json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise TilesatError(f"{where}: JSON nested more than {max_depth} deep") from None
    except UnicodeDecodeError as e:
        raise TilesatError(f"{where}: not a text file (byte {e.start} is not UTF-8)") from None
    except json.JSONDecodeError as e:
        raise TilesatError(f"{where}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except ValueError as e:  # NaN, Infinity
        raise TilesatError(f"{where}: not JSON ({e})") from None
    check_json(data, where, max_depth)
    return data


def _not_json(name: str):
    raise ValueError(f"{name} is not a JSON value")


def check_json(data: Any, where: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Refuse data nested deeper than ``max_depth`` or holding a string
    (a key or a value) that cannot be written as UTF-8.  Iterative: no
    recursion however deep the data."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_string(value, where)
            continue
        if not isinstance(value, (list, dict)):
            continue
        if depth > max_depth:
            raise TilesatError(f"{where}: JSON nested more than {max_depth} deep")
        if isinstance(value, dict):
            for key, item in value.items():
                _check_string(key, where)
                stack.append((item, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in value)


def _check_string(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise TilesatError(f"{where}: a string in it is not text (a lone surrogate such as \\ud800)") from None


def read_json(path: str | os.PathLike, limit: int, *, what: str = "JSON file", why: str = "",
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A JSON file, read and checked as :func:`read_bytes` and :func:`parse_json` do."""
    data = read_bytes(path, limit, what=what, why=why, text=True)
    return parse_json(decode_text(data, str(path)), str(path), max_depth)

"""Instances: a board plus the pieces that may tile it, and the file format.

File format (docs/guide/instance-files.md has the full description)::

    ; a comment
    pieces: L4:2..5, pentominoes/one-sided:1, Q
    shape: Q ##/#./##
    wrap: none
    ....#
    .....

Header lines ``key: value`` come first, then the grid (``.`` open, ``#``
blocked, ``+`` open but may stay empty, ``A``..``Z`` an open cell of that
colour, ``a``..``z`` one that may stay empty).  Lines starting with ``;``
are comments anywhere.  ``colours: A:A, B:C`` says which piece colours
(a custom shape's letters) may lie on which board colours; without it each
colour on itself only; the default colour ('#' in a shape, '.' or '+' on
the board) fits anything.
"""

from __future__ import annotations

import math

import numpy as np
import os
import re
from dataclasses import dataclass, field

from . import footprint
from ..running import memory
from .board import COLOUR_LETTERS, WRAPS, Board, char_cell, colour_name
from .display import show
from ..errors import TilesatError, did_you_mean
from .grids import GRIDS, get_grid
from ..running.inputs import read_text
from .pieces import (
    MOST_PIECES, SET_ORIENT, Piece, all_builtin_names, builtin_names, builtin_piece, grid_builtin_names, grid_builtin_piece, grid_piece_set, grid_sets,
    is_set, parse_drawing, piece_set, set_names,
)

#: a header line (``key: value``), as opposed to a row of the board
_HEADER = re.compile(r"^[A-Za-z]+\s*:")

INF = math.inf


@dataclass(frozen=True)
class PieceRule:
    """One kind of piece in an instance: its shape, orientations and count."""

    piece: Piece
    orient: str = "free"
    min: int = 0
    max: float = INF  # an int, or INF for "any number"

    @property
    def name(self) -> str:
        return self.piece.name

    @property
    def bounded(self) -> bool:
        return self.min > 0 or self.max != INF

    def count_text(self) -> str:
        if self.max == INF:
            return "*" if self.min == 0 else f"{self.min}.."
        return str(self.min) if self.min == self.max else f"{self.min}..{int(self.max)}"

    def spec(self) -> str:
        orient = "" if self.orient == "free" else f"/{self.orient}"
        count = "" if not self.bounded else f":{self.count_text()}"
        return f"{self.name}{orient}{count}"


@dataclass(frozen=True, eq=False)
class Instance:
    board: Board
    rules: tuple[PieceRule, ...]
    shapes: dict[str, Piece] = field(default_factory=dict)  # custom shapes of the file
    source: str = "<string>"
    #: (piece colour, board colour) pairs that may meet (colours 1..26); None: each colour on itself
    pairs: frozenset[tuple[int, int]] | None = None

    @property
    def coloured_pieces(self) -> bool:
        return any(r.piece.coloured for r in self.rules)

    @property
    def plain(self) -> bool:
        """No optional cell, no colour anywhere: an exact cover of the open cells."""
        return self.board.exact and not self.board.has_colours and not self.coloured_pieces

    def fits(self) -> np.ndarray:
        """``fits[p, b]``: may a piece cell of colour p lie on a board cell of colour b?
        (27 x 27; the default colour 0 fits anything, as in BurrTools)."""
        table = np.zeros((COLOURS + 1, COLOURS + 1), bool)
        table[0, :] = table[:, 0] = True
        for p, b in (self.pairs if self.pairs is not None else [(k, k) for k in range(1, COLOURS + 1)]):
            table[p, b] = True
        return table

    def pairs_text(self) -> str | None:
        """The ``colours:`` header's value (None: the default, no header)."""
        if self.pairs is None:
            return None
        return ", ".join(f"{colour_name(p)}:{colour_name(b)}" for p, b in sorted(self.pairs)) or "none"

    def rule(self, name: str) -> PieceRule:
        for r in self.rules:
            if r.name == name:
                return r
        raise KeyError(name)

    def pieces_spec(self) -> str:
        return ", ".join(r.spec() for r in self.rules)

    def with_rules(self, rules) -> "Instance":
        return Instance(self.board, tuple(rules), self.shapes, self.source, self.pairs)

    def _repr_svg_(self) -> str:
        """The board unsolved (a notebook shows it): :mod:`tilesat.model.display`."""
        return show("instance_svg", self)

    def _repr_html_(self) -> str:
        """The pieces and the board unsolved (a notebook shows it)."""
        return show("instance_html", self)


COLOURS = len(COLOUR_LETTERS)
#: characters of open cells other than '.' on the board (optional, coloured)
SPECIAL_CELLS = "+" + COLOUR_LETTERS + COLOUR_LETTERS.lower()


def parse_pairs(value: str) -> frozenset[tuple[int, int]]:
    """A ``colours:`` value: ``P:B`` pairs (piece colour, board colour), or ``none``."""
    if value.strip().lower() == "none":
        return frozenset()
    out = set()
    for item in value.split(","):
        m = re.fullmatch(r"\s*([A-Za-z])\s*:\s*([A-Za-z])\s*", item)
        if not m:
            raise TilesatError(f"bad colour pair {item.strip()!r}: use PIECE:BOARD colour letters, e.g. 'colours: A:A, B:C', or 'none'")
        out.add((COLOUR_LETTERS.index(m.group(1).upper()) + 1, COLOUR_LETTERS.index(m.group(2).upper()) + 1))
    return frozenset(out)


def board_marks(chars: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(open, optional, colour) of a board's cells from their characters."""
    open_mask = chars != "#"
    special = open_mask & (chars != ".")
    if not special.any():
        return open_mask, None, None
    optional = np.zeros(chars.shape, bool)
    colour = np.zeros(chars.shape, np.uint8)
    for index in np.flatnonzero(special.ravel()).tolist():
        opt, col = char_cell(str(chars.flat[index]))
        optional.flat[index], colour.flat[index] = opt, col
    return open_mask, optional, colour


def _grid_row(line: str, first: bool) -> bool:
    """Is this line a row of a square board?  A first row of lowercase
    letters only reads as a word (a header without its ':'), not as cells."""
    if not set(line) <= set(".#" + SPECIAL_CELLS):
        return False
    return not first or not (line.isalpha() and line.islower())


_ITEM = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_-]*'?)(?:/(?P<orient>[a-z-]+))?(?::(?P<count>.+))?$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def parse_count(text: str) -> tuple[int, float]:
    """``N``, ``A..B``, ``A..`` or ``*`` as (min, max)."""
    text = text.strip()
    if text == "*":
        return 0, INF
    m = re.fullmatch(r"(\d+)(?:\.\.(\d*))?", text)
    shown = text if len(text) <= 40 else f"{text[:24]}…{text[-8:]}"  # one line a person reads
    if not m:
        raise TilesatError(f"bad count {shown!r}: use N, A..B, A.. or *")
    lo = _count_number(m.group(1), shown)
    if m.group(2) is None:
        return lo, lo
    if m.group(2) == "":
        return lo, INF
    hi = _count_number(m.group(2), shown)
    if hi < lo:
        raise TilesatError(f"bad count {shown!r}: the range is empty ({lo} > {hi})")
    return lo, hi


def _count_number(digits: str, shown: str) -> int:
    """One number of a count, at most MOST_PIECES.  Leading zeros dropped and the length
    compared first: int() refuses over 4,300 digits."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(MOST_PIECES)) or int(digits) > MOST_PIECES:
        raise TilesatError(f"bad count {shown!r}: counts go up to {MOST_PIECES:,} (A.. has no upper bound)")
    return int(digits)


def resolve_name(name: str, shapes: dict[str, Piece], grid: str = "square") -> list[Piece]:
    """A piece name, alias, set name or custom shape, as a list of pieces."""
    if name in shapes:
        return [shapes[name]]
    if grid != "square":
        if name.lower() in grid_sets(grid):
            return list(grid_piece_set(grid, name.lower()))
        try:
            return [grid_builtin_piece(name, grid)]
        except KeyError:
            custom = f"; shapes of this file: {', '.join(shapes)}" if shapes else ""
            names = grid_builtin_names(grid)
            raise TilesatError(
                f"unknown piece {name!r} on the {grid} grid{did_you_mean(name, all_builtin_names(grid))}: built-in pieces are {names[0]}..{names[-1]}; "
                f"sets are {', '.join(grid_sets(grid))}{custom}"
            ) from None
    if is_set(name):
        return list(piece_set(name.lower()))
    try:
        return [builtin_piece(name)]
    except KeyError:
        custom = f"; shapes of this file: {', '.join(shapes)}" if shapes else ""
        raise TilesatError(
            f"unknown piece {name!r}{did_you_mean(name, all_builtin_names() + list(shapes))}: built-in pieces are "
            f"{', '.join(builtin_names())}, monomino, domino, the hexominoes A06..Z16 (or H6_00..H6_34), H7_000..H7_107, a chiral piece's mirror image with a prime (F5'); "
            f"sets are {', '.join(set_names())}{custom}"
        ) from None


def parse_pieces(spec: str, shapes: dict[str, Piece] | None = None, grid: str = "square") -> tuple[PieceRule, ...]:
    """Parse a ``pieces:`` value into rules, one per piece (of the given grid)."""
    shapes = shapes or {}
    rules: dict[str, PieceRule] = {}
    items = [s.strip() for s in spec.split(",")]
    if not any(items):
        raise TilesatError("the piece list is empty")
    for item in items:
        if not item:
            raise TilesatError(f"empty item in piece list {spec!r}")
        m = _ITEM.match(item)
        if not m:
            raise TilesatError(f"bad piece item {item!r}: use NAME[/ORIENT][:COUNT], e.g. L4/one-sided:3")
        set_orient = SET_ORIENT.get(m.group("name").lower()) or (
            "one-sided" if grid != "square" and m.group("name").lower().endswith("-one-sided") else "free")
        orient = m.group("orient") or set_orient
        allowed = get_grid(grid).orientations
        if orient not in allowed:
            raise TilesatError(f"bad orientation {orient!r} in {item!r}: use {', '.join(allowed)}")
        lo, hi = parse_count(m.group("count")) if m.group("count") is not None else (0, INF)
        for piece in resolve_name(m.group("name"), shapes, grid):
            if piece.name in rules:
                raise TilesatError(f"piece {piece.name} is listed twice in {spec!r}")
            rules[piece.name] = PieceRule(piece, orient, lo, hi)
    return tuple(rules.values())


def parse_instance(
    text: str,
    *,
    pieces: str | None = None,
    wrap: str | None = None,
    source: str = "<string>",
) -> Instance:
    """Parse instance text; ``pieces`` and ``wrap`` override the header."""
    footprint.check_text_memory(len(text), text.count("."), source)
    headers: dict[str, tuple[int, str]] = {}
    shapes: dict[str, Piece] = {}
    shape_lines: dict[str, tuple[int, str]] = {}
    grid: list[str] = []
    grid_start = grid_end = None

    def fail(lineno: int, msg: str):
        raise TilesatError(f"{source}:{lineno}: {msg}")

    layout: list[tuple[int, str]] | None = None  # the board's lines, on the grids other than square
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith(";"):
            continue
        if layout is not None:
            if _HEADER.match(line):
                fail(lineno, f"header {line.partition(':')[0].strip().lower()!r} after the grid; headers come first")
            layout.append((lineno, raw))
            continue
        if line and "grid" in headers and headers["grid"][1] != "square" and not _HEADER.match(line):
            layout = [(lineno, raw)]
            continue
        if not line:
            if grid and grid_end is None:
                grid_end = lineno
            continue
        if _grid_row(line, not grid and "grid" not in headers):  # after 'grid:', a row of letters is no word
            if grid_end is not None:
                fail(lineno, f"grid row after a blank line (line {grid_end}); the grid must be one block")
            if grid and len(line) != len(grid[0]):
                fail(lineno, f"grid row has {len(line)} cells but the first row (line {grid_start}) has {len(grid[0])}")
            if not grid:
                grid_start = lineno
            grid.append(line)
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or not re.fullmatch(r"[a-z]+", key):
            hint = ("; a board whose first row is only lowercase letters (optional coloured cells) "
                    "follows a 'grid: square' header" if not grid and _grid_row(line, False) else "")
            fail(lineno, f"not a grid row (only '.', '#', '+' and colour letters) nor a 'key: value' header: {line[:60]!r}{hint}")
        if grid:
            fail(lineno, f"header {key!r} after the grid; headers come first")
        value = value.strip()
        if key == "shape":
            parts = value.split()
            if len(parts) != 2:
                fail(lineno, f"use 'shape: NAME ROW/ROW/...', got {value!r}")
            name, drawing = parts
            if not _NAME.match(name):
                fail(lineno, f"bad shape name {name!r}: letters, digits and '_', starting with a letter")
            if name in shape_lines:
                fail(lineno, f"shape {name} is defined twice")
            shape_lines[name] = (lineno, drawing)  # read once the grid is known
        elif key in ("pieces", "wrap", "grid", "colours", "colors"):
            key = "colours" if key == "colors" else key
            if key in headers:
                fail(lineno, f"header {key!r} given twice (first on line {headers[key][0]})")
            if key == "grid" and value not in GRIDS:
                fail(lineno, f"unknown grid {value!r}{did_you_mean(value, GRIDS)}; use one of {', '.join(GRIDS)}")
            headers[key] = (lineno, value)
        else:
            fail(lineno, f"unknown header {key!r}{did_you_mean(key, ('colours', 'grid', 'pieces', 'shape', 'wrap'))}; "
                 "known headers are colours, grid, pieces, shape, wrap")

    lattice = headers.get("grid", (0, "square"))[1]
    for name, (lineno, drawing) in shape_lines.items():
        try:
            grid_builtin_piece(name, lattice)
            fail(lineno, f"shape name {name} is a built-in piece; choose another name")
        except KeyError:
            pass
        if is_set(name) or name.lower() in grid_sets(lattice):
            fail(lineno, f"shape name {name} is a built-in set; choose another name")
        try:
            shapes[name] = parse_drawing(name, drawing, lattice)
        except TilesatError as e:
            fail(lineno, str(e))

    pairs = None
    if "colours" in headers:
        try:
            pairs = parse_pairs(headers["colours"][1])
        except TilesatError as e:
            fail(headers["colours"][0], str(e))
    if layout is not None:
        try:
            chars = get_grid(lattice).parse_layout_chars(layout, SPECIAL_CELLS)
        except TilesatError as e:
            m = re.match(r"line (\d+): (.*)", str(e))
            raise TilesatError(f"{source}:{m.group(1)}: {m.group(2)}" if m else f"{source}: {e}") from None
    elif not grid:
        raise TilesatError(f"{source}: no grid: add rows of '.' (open) and '#' (blocked) after the headers")

    wrap_value = wrap if wrap is not None else headers.get("wrap", (0, "none"))[1]
    if wrap_value not in WRAPS:
        where = "--wrap" if wrap is not None else f"{source}:{headers['wrap'][0]}"
        raise TilesatError(f"{where}: unknown wrap {wrap_value!r}; use one of {', '.join(WRAPS)}")

    if pieces is not None:
        try:
            rules = parse_pieces(pieces, shapes, lattice)
        except TilesatError as e:
            raise TilesatError(f"--pieces: {e}") from None
    elif "pieces" in headers:
        lineno, value = headers["pieces"]
        try:
            rules = parse_pieces(value, shapes, lattice)
        except TilesatError as e:
            fail(lineno, str(e))
    else:
        raise TilesatError(
            f"{source}: no pieces given: add a header line such as 'pieces: L4' above the grid, "
            "or pass --pieces L4"
        )

    try:
        if layout is not None:
            if wrap_value != "none":
                raise TilesatError(f"{source}: wrap {wrap_value!r}: only square boards wrap (this one is {lattice})")
            open_mask, optional, colour = board_marks(chars)
            board = Board(open_mask, "none", lattice, optional, colour)
        elif any(set(row) - {".", "#"} for row in grid):
            open_mask, optional, colour = board_marks(np.array([list(row) for row in grid], dtype="<U1"))
            board = Board(open_mask, wrap_value, "square", optional, colour)
        else:
            board = Board.from_rows(grid, wrap_value)
    except TilesatError as e:
        raise TilesatError(f"{source}: {e}") from None
    if board.area == 0:
        raise TilesatError(f"{source}: the board has no open cell ('.') to cover")
    return Instance(board, rules, shapes, source, pairs)


def read_instance_text(path: str | os.PathLike) -> str:
    """The text of an instance file, read at most ``memory.MAX_INSTANCE_BYTES``
    (so ``/dev/zero``, a FIFO or a huge file never read for ever); binary
    data (NUL bytes, not UTF-8) is refused.  Every problem is a
    :class:`TilesatError`."""
    return read_text(path, memory.MAX_INSTANCE_BYTES, what="instance file", why="instance files are text grids")


def load_instance(path: str | os.PathLike, *, pieces: str | None = None, wrap: str | None = None) -> Instance:
    """Read and parse an instance file; every problem is a :class:`TilesatError`.
    A Polyform Puzzler puzzle module (``FILE.py``, or ``FILE.py:Class`` to name
    its class) is read as the instance it defines (:mod:`tilesat.model.puzzler`),
    a BurrTools file (``FILE.xmpuzzle``, ``FILE.xmpuzzle:PROBLEM`` by number or
    name) as its problem's instance (:func:`tilesat.model.xmpuzzle.burr_instance_text`)."""
    name = str(path)
    burr = None
    if ".xmpuzzle" in name.lower():  # the XML reader is imported for BurrTools files only
        from .xmpuzzle import xmpuzzle_path

        burr = xmpuzzle_path(name)
    if burr is not None:  # a BurrTools file, FILE.xmpuzzle[:PROBLEM]
        from .xmpuzzle import burr_instance_text, read_xmpuzzle

        text = burr_instance_text(read_xmpuzzle(burr[0]), burr[1])
        return parse_instance(text, pieces=pieces, wrap=wrap, source=name)
    m = re.fullmatch(r"(.+\.py):(\w+)", name)
    if name.lower().endswith(".py") or (m and not os.path.exists(name) and os.path.exists(m.group(1))):
        from .puzzler import read_puzzler

        file, cls = (m.group(1), m.group(2)) if m and not os.path.exists(name) else (name, None)
        text = read_puzzler(read_instance_text(file), file, cls)
        return parse_instance(text, pieces=pieces, wrap=wrap, source=name)
    return parse_instance(read_instance_text(path), pieces=pieces, wrap=wrap, source=name)


def format_instance(instance: Instance, comments: list[str] | tuple[str, ...] = ()) -> str:
    """Write an instance back in the file format."""
    lines = [f"; {c}" for c in comments]
    rows = instance.board.rows_text()
    if not instance.board.is_square or not _grid_row(rows[0], True):  # lowercase letters alone read as a word
        lines.append(f"grid: {instance.board.grid}")
    for name, piece in instance.shapes.items():
        lines.append(f"shape: {name} {piece.drawing()}")
    lines.append(f"pieces: {instance.pieces_spec()}")
    if instance.board.wrap != "none":
        lines.append(f"wrap: {instance.board.wrap}")
    if instance.pairs is not None:
        lines.append(f"colours: {instance.pairs_text()}")
    lines.extend(rows)
    return "\n".join(lines) + "\n"


def instance_digest(instance: Instance) -> str:
    """SHA-256 of the instance in canonical form (comments and layout ignored): what a
    DIMACS file, a proof and a checkpoint record to recognise their instance."""
    import hashlib

    return hashlib.sha256(format_instance(instance).encode()).hexdigest()

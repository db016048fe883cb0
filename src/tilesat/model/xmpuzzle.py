"""BurrTools puzzle files (``.xmpuzzle``): read and write.

A ``.xmpuzzle`` file is gzip'd XML (plain XML is read too)::

    <puzzle version="2">
      <gridType type="0"/>                      0 cubes, 1 triangular prisms, 2 spheres,
                                                3 rhombic dodecahedra, 4 tetrahedra-octahedra
      <colors><color red=".." green=".." blue=".."/>...</colors>
      <shapes>
        <voxel x="3" y="2" z="1" name="L" type="0">###_#1+</voxel>   one character per voxel,
        ...                                     x fastest, then y, then z: '_' empty,
      </shapes>                                 '#' filled, '+' variable (may stay empty);
      <problems>                                digits after '#'/'+': the voxel's colour (1..63)
        <problem name="P" maxHoles="..">
          <shapes><shape id="0" count="2"/><shape id="1" min="0" max="3"/></shapes>
          <result id="4"/>
          <bitmap><pair piece="0" result="1"/></bitmap>   piece colour 1 may sit on result colour 2
          <solutions>...</solutions>            (found assemblies: not kept here)
        </problem>
      </problems>
      <comment>...</comment>
    </puzzle>

:func:`read_xmpuzzle` gives a :class:`BurrPuzzle`; :func:`write_xmpuzzle` writes one
back (gzip'd) in the layout BurrTools writes, so BurrTools reads it.  What is kept:
the grid, the colours, every shape (size, voxels, colours, name, weight, hotspot),
every problem (name, pieces and their counts or ranges and disassembly groups, the
result, the colour pairs, ``maxHoles``, the solver's recorded state and counts) and
the comment.  Found solutions and a paused solver's state are dropped: a written
file's problems say how many assemblies BurrTools recorded, not which.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

from ..errors import TilesatError, plural
from ..running.inputs import read_bytes
from ..running.memory import MAX_INSTANCE_BYTES, format_size

EMPTY, FILLED, VARIABLE = 0, 1, 2
STATE_CHARS = "_#+"
GRID_NAMES = {0: "cubes", 1: "triangular prisms", 2: "spheres", 3: "rhombic dodecahedra",
              4: "tetrahedra-octahedra"}
MAX_COLOUR = 63  # BurrTools' limit on a voxel's colour number


@dataclass(frozen=True)
class BurrShape:
    """A voxel space: ``voxels[i]`` is (state, colour) of voxel ``i = x + X*(y + Y*z)``."""

    x: int
    y: int
    z: int
    voxels: tuple[tuple[int, int], ...]
    name: str = ""
    weight: int = 1
    hotspot: tuple[int, int, int] = (0, 0, 0)

    def index(self, x: int, y: int, z: int) -> int:
        return x + self.x * (y + self.y * z)

    def cells(self) -> dict[tuple[int, int, int], tuple[int, int]]:
        """The non-empty voxels: (x, y, z) -> (state, colour)."""
        out = {}
        for i, (state, colour) in enumerate(self.voxels):
            if state != EMPTY:
                x = i % self.x
                y = (i // self.x) % self.y
                out[(x, y, i // (self.x * self.y))] = (state, colour)
        return out

    def count(self, state: int) -> int:
        return sum(1 for s, _ in self.voxels if s == state)

    def text(self) -> str:
        """The voxel string as BurrTools writes it."""
        return "".join(STATE_CHARS[s] + (str(c) if c and s != EMPTY else "") for s, c in self.voxels)


@dataclass(frozen=True)
class Part:
    """A shape used as a piece of a problem: between ``min`` and ``max`` copies."""

    shape: int
    min: int = 1
    max: int = 1
    group: int = 0  # all copies in one disassembly group
    groups: tuple[tuple[int, int], ...] = ()  # or (group, count) per group


@dataclass(frozen=True)
class BurrProblem:
    parts: tuple[Part, ...]
    result: int
    name: str = ""
    pairs: frozenset[tuple[int, int]] = frozenset()  # (piece colour - 1, result colour - 1)
    max_holes: int | None = None
    state: int = 0  # BurrTools' solver state: 0 unsolved, 1 solving, 2 solved
    assemblies: int | None = None  # what BurrTools recorded, when it recorded something
    solutions: int | None = None
    time: int | None = None

    def allowed(self, piece_colour: int, result_colour: int, colours: int) -> bool:
        """May a piece voxel of this colour sit on a result voxel of that one?
        The default colour (0) fits anything; without colours defined, everything fits."""
        return (colours == 0 or piece_colour == 0 or result_colour == 0
                or (piece_colour - 1, result_colour - 1) in self.pairs)

    def label(self, index: int) -> str:
        return f"problem {index}" + (f" ({self.name})" if self.name else "")


@dataclass(frozen=True)
class BurrPuzzle:
    grid_type: int = 0
    colours: tuple[tuple[int, int, int], ...] = ()
    shapes: tuple[BurrShape, ...] = ()
    problems: tuple[BurrProblem, ...] = ()
    comment: str = ""
    comment_popup: bool = False
    source: str = field(default="<xmpuzzle>", compare=False)

    def problem(self, which: int | str | None) -> tuple[int, BurrProblem]:
        """(index, problem) by index or by name; ``None``: the only (or first) one."""
        if not self.problems:
            raise TilesatError(f"{self.source}: the file has no problem")
        if which is None:
            return 0, self.problems[0]
        if isinstance(which, int) or (isinstance(which, str) and which.strip().isdigit()):
            k = int(which)
            if not 0 <= k < len(self.problems):
                raise TilesatError(f"{self.source}: no problem {k}; the file has problems 0..{len(self.problems) - 1}")
            return k, self.problems[k]
        found = [k for k, p in enumerate(self.problems) if p.name == which]
        if not found:
            names = ", ".join(repr(p.name) for p in self.problems if p.name) or "none has a name"
            raise TilesatError(f"{self.source}: no problem named {which!r}; names: {names}")
        return found[0], self.problems[found[0]]


# --- reading ---------------------------------------------------------------

def _int(el: ET.Element, name: str, where: str, default: int | None = None) -> int:
    text = el.get(name)
    if text is None or text.strip() == "":
        if default is not None:
            return default
        raise TilesatError(f"{where}: <{el.tag}> needs a '{name}' attribute")
    try:
        return int(text.strip())
    except ValueError:
        raise TilesatError(f"{where}: <{el.tag}> {name}={text!r} is not a whole number") from None


def _check_count(count: int, sid: int, where: str) -> None:
    """A piece count past what an instance file may say is bad input here, in
    the file's own terms (the converted instance's line numbers mean nothing to
    its author, and the exact cover's bounds are 32-bit)."""
    from .pieces import MOST_PIECES

    if count > MOST_PIECES:
        raise TilesatError(f"{where}: shape {sid} has a count of {count:,}: counts go up to {MOST_PIECES:,}")


def _parse_voxels(text: str, size: int, where: str) -> tuple[tuple[int, int], ...]:
    states: list[int] = []
    colours: list[int] = []
    for ch in text:
        k = STATE_CHARS.find(ch)
        if k >= 0:
            states.append(k)
            colours.append(0)
        elif ch.isdigit() and ch.isascii():
            if not states:
                raise TilesatError(f"{where}: a colour number before the first voxel")
            colours[-1] = colours[-1] * 10 + int(ch)
            if colours[-1] > MAX_COLOUR:
                raise TilesatError(f"{where}: colour {colours[-1]} is too big (at most {MAX_COLOUR})")
        else:
            raise TilesatError(f"{where}: unexpected {ch!r} in a voxel string; use '_', '#', '+' and colour digits")
        if len(states) > size:
            raise TilesatError(f"{where}: more voxels than its size ({size})")
    if not states:
        return ((EMPTY, 0),) * size
    if len(states) < size:
        raise TilesatError(f"{where}: {len(states)} voxels but its size is {size}")
    return tuple((s, c if s != EMPTY else 0) for s, c in zip(states, colours))


def _parse_shape(el: ET.Element, where: str) -> BurrShape:
    x, y, z = (_int(el, a, where) for a in "xyz")
    if min(x, y, z) < 0 or x * y * z > MAX_INSTANCE_BYTES:
        raise TilesatError(f"{where}: bad size {x} x {y} x {z}")
    if _int(el, "type", where) != 0:
        raise TilesatError(f"{where}: unknown voxel type {el.get('type')!r} (BurrTools writes type 0)")
    voxels = _parse_voxels((el.text or "").strip(), x * y * z, where)
    return BurrShape(x, y, z, voxels, el.get("name", ""), _int(el, "weight", where, 1),
                     (_int(el, "hx", where, 0), _int(el, "hy", where, 0), _int(el, "hz", where, 0)))


def _parse_problem(el: ET.Element, shapes: int, where: str) -> BurrProblem:
    parts: list[Part] = []
    result = None
    pairs = set()
    for child in el:
        if child.tag == "shapes":
            for s in child:
                if s.tag != "shape":
                    continue
                sid = _int(s, "id", where)
                if not 0 <= sid < shapes:
                    raise TilesatError(f"{where}: piece shape id {sid} is not a shape of the file (0..{shapes - 1})")
                if s.get("count") is not None:
                    lo = hi = _int(s, "count", where)
                elif s.get("min") is not None and s.get("max") is not None:
                    lo, hi = _int(s, "min", where), _int(s, "max", where)
                    if lo > hi:
                        raise TilesatError(f"{where}: shape {sid} has min {lo} > max {hi}")
                else:
                    lo = hi = 1
                if lo < 0:
                    raise TilesatError(f"{where}: shape {sid} has a negative count")
                groups = tuple((_int(g, "group", where), _int(g, "count", where)) for g in s if g.tag == "group")
                _check_count(max([hi] + [c for _, c in groups]), sid, where)
                parts.append(Part(sid, lo, hi, _int(s, "group", where, 0), groups))
        elif child.tag == "result":
            result = _int(child, "id", where)
        elif child.tag == "bitmap":
            for pair in child:
                if pair.tag == "pair":
                    pairs.add((_int(pair, "piece", where), _int(pair, "result", where)))
    if result is None:
        raise TilesatError(f"{where}: no <result> shape")
    if not 0 <= result < shapes:
        raise TilesatError(f"{where}: result shape id {result} is not a shape of the file (0..{shapes - 1})")
    state = _int(el, "state", where, 0)
    recorded = {k: (_int(el, k, where) if state != 0 and el.get(k) is not None else None)
                for k in ("assemblies", "solutions", "time")}
    max_holes = _int(el, "maxHoles", where) if el.get("maxHoles") is not None else None
    return BurrProblem(tuple(parts), result, el.get("name", ""), frozenset(pairs), max_holes, state, **recorded)


def parse_xmpuzzle(data: bytes, source: str = "<xmpuzzle>") -> BurrPuzzle:
    """A puzzle from the bytes of a ``.xmpuzzle`` file (gzip'd or plain XML)."""
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
                data = f.read(MAX_INSTANCE_BYTES + 1)
        except (OSError, EOFError) as e:
            raise TilesatError(f"{source}: not a readable gzip file: {e}") from None
        if len(data) > MAX_INSTANCE_BYTES:
            raise TilesatError(f"{source}: unpacks to more than {format_size(MAX_INSTANCE_BYTES)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # BurrTools writes its strings' bytes as they are: old files are Latin-1
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise TilesatError(f"{source}: not BurrTools XML: {e}") from None
    if root.tag != "puzzle":
        raise TilesatError(f"{source}: the XML's root is <{root.tag}>, not <puzzle>: not a BurrTools file")
    if root.get("version") not in ("1", "2"):
        raise TilesatError(f"{source}: puzzle version {root.get('version')!r}; BurrTools files are version 1 or 2")
    grid = 0
    colours: list[tuple[int, int, int]] = []
    shapes: list[BurrShape] = []
    problem_nodes: list[ET.Element] = []
    comment, popup = "", False
    for child in root:
        if child.tag == "gridType":
            grid = _int(child, "type", source)
            if grid not in GRID_NAMES:
                raise TilesatError(f"{source}: unknown grid type {grid}")
        elif child.tag == "colors":
            colours = [tuple(_int(c, k, source, 0) & 0xFF for k in ("red", "green", "blue"))
                       for c in child if c.tag == "color"]
        elif child.tag == "shapes":
            for v in child:
                if v.tag == "voxel":
                    shapes.append(_parse_shape(v, f"{source}: shape {len(shapes)}"))
        elif child.tag == "problems":
            problem_nodes += [p for p in child if p.tag == "problem"]
        elif child.tag == "comment":
            comment = child.text or ""
            popup = "popup" in child.attrib
    problems = tuple(_parse_problem(p, len(shapes), f"{source}: problem {k}") for k, p in enumerate(problem_nodes))
    return BurrPuzzle(grid, tuple(colours), tuple(shapes), problems, comment, popup, source)


def read_xmpuzzle(path: str | os.PathLike) -> BurrPuzzle:
    """Read a ``.xmpuzzle`` file; every problem with it is a :class:`TilesatError`."""
    data = read_bytes(path, MAX_INSTANCE_BYTES, what="BurrTools file")
    return parse_xmpuzzle(bytes(data), str(path))


def is_xmpuzzle(path: str | os.PathLike) -> bool:
    """Does this path name a BurrTools file (by its extension)?"""
    return str(path).lower().endswith((".xmpuzzle", ".xmpuzzle.xml"))


# --- writing ---------------------------------------------------------------

def _escape(text: str, entities: dict | None = None) -> str:
    from xml.sax.saxutils import escape  # here: it imports urllib.request (30 ms), which reading a file needs not

    return escape(text, entities or {})


def _attr(text: str) -> str:
    return '"' + _escape(text, {'"': "&quot;", "'": "&apos;"}) + '"'


def format_xmpuzzle(puzzle: BurrPuzzle) -> str:
    """The XML text of a puzzle, laid out as BurrTools writes it."""
    out = ['<?xml version="1.0"?>', '<puzzle version="2">', f' <gridType type="{puzzle.grid_type}"/>']
    if puzzle.colours:
        out.append(" <colors>")
        out += [f'  <color red="{r}" green="{g}" blue="{b}"/>' for r, g, b in puzzle.colours]
        out.append(" </colors>")
    else:
        out.append(" <colors/>")
    out.append(" <shapes>")
    for s in puzzle.shapes:
        attrs = f'x="{s.x}" y="{s.y}" z="{s.z}"'
        for k, v in zip(("hx", "hy", "hz"), s.hotspot):
            if v:
                attrs += f' {k}="{v}"'
        if s.weight != 1:
            attrs += f' weight="{s.weight}"'
        if s.name:
            attrs += f" name={_attr(s.name)}"
        out.append(f'  <voxel {attrs} type="0">{s.text()}</voxel>')
    out.append(" </shapes>")
    if puzzle.problems:
        out.append(" <problems>")
        for p in puzzle.problems:
            attrs = (f" name={_attr(p.name)}" if p.name else "") + f' state="{p.state}"'
            if p.state != 0:
                attrs += "".join(f' {k}="{v}"' for k, v in (("assemblies", p.assemblies), ("solutions", p.solutions),
                                                               ("time", p.time)) if v is not None)
            if p.max_holes is not None:
                attrs += f' maxHoles="{p.max_holes}"'
            out.append(f"  <problem{attrs}>")
            out.append("   <shapes>")
            for part in p.parts:
                count = f'count="{part.min}"' if part.min == part.max else f'min="{part.min}" max="{part.max}"'
                group = f' group="{part.group}"' if part.group else ""
                if part.groups:
                    out.append(f'    <shape id="{part.shape}" {count}{group}>')
                    out += [f'     <group group="{g}" count="{c}"/>' for g, c in part.groups]
                    out.append("    </shape>")
                else:
                    out.append(f'    <shape id="{part.shape}" {count}{group}/>')
            out.append("   </shapes>")
            out.append(f'   <result id="{p.result}"/>')
            if p.pairs:
                out.append("   <bitmap>")
                out += [f'    <pair piece="{a}" result="{b}"/>' for a, b in sorted(p.pairs)]
                out.append("   </bitmap>")
            else:
                out.append("   <bitmap/>")
            out.append("  </problem>")
        out.append(" </problems>")
    else:
        out.append(" <problems/>")
    popup = ' popup=""' if puzzle.comment_popup else ""
    out.append(f" <comment{popup}>{_escape(puzzle.comment)}</comment>" if puzzle.comment else f" <comment{popup}/>")
    out.append("</puzzle>")
    return "\n".join(out) + "\n"


def write_xmpuzzle(puzzle: BurrPuzzle, path: str | os.PathLike) -> None:
    """Write a puzzle as a gzip'd ``.xmpuzzle`` file (BurrTools reads it back)."""
    data = gzip.compress(format_xmpuzzle(puzzle).encode("utf-8"), mtime=0)
    with open(path, "wb") as f:
        f.write(data)


def _voxel_shape(cells, name: str = "", voxels=None) -> BurrShape:
    """A BurrTools shape of the voxels at (x, y, z), moved to the origin; ``voxels``:
    each one's (state, colour) (default: filled, the default colour)."""
    low = [min(c[k] for c in cells) for k in range(3)]
    x, y, z = (max(c[k] for c in cells) - low[k] + 1 for k in range(3))
    space = [(EMPTY, 0)] * (x * y * z)
    for k, (cx, cy, cz) in enumerate(cells):
        space[(cx - low[0]) + x * ((cy - low[1]) + y * (cz - low[2]))] = voxels[k] if voxels else (FILLED, 0)
    return BurrShape(x, y, z, tuple(space), name)


def _palette(n: int) -> tuple[tuple[int, int, int], ...]:
    """``n`` colours to draw BurrTools' custom colours with (only drawing uses them): hues around the circle."""
    import colorsys

    return tuple(tuple(int(255 * v) for v in colorsys.hsv_to_rgb(k / max(n, 1), 0.8, 0.9)) for k in range(n))


def instance_puzzle(instance, name: str = "", comment: str = "") -> BurrPuzzle:
    """A tilesat instance as a BurrTools puzzle of one problem (written by
    :func:`write_xmpuzzle`, counted back the same): the board the result shape
    (a square board one layer of cubes: row ``r``, column ``c`` at ``x=c, y=r``;
    a cube board's layer the ``z``; cells that may stay empty variable voxels,
    colours custom colours with the instance's pairs), each piece rule a shape
    with its count or range ("any number": as many as the board's area holds).
    BurrTools turns every piece by the rotations of the cube, which lay a flat
    piece in its layer every way, mirror images included: a rule that forbids
    some of those (one-sided, fixed; on the cube grid, or that allows mirror
    images of a chiral piece) is one line, as are wrapped boards and the other
    grids."""
    board = instance.board
    where = f"{instance.source}: BurrTools"
    if board.grid not in ("square", "cube"):
        raise TilesatError(f"{where} files hold square boards (as one layer of cubes) and cube boards; "
                           f"this board is on the {board.grid} grid")
    if board.wrap != "none":
        raise TilesatError(f"{where} has no wrapped boards; this one wraps ({board.wrap})")

    def voxel(cell) -> tuple[int, int, int]:
        return (cell[1], cell[0], 0) if board.grid == "square" else (cell[2], cell[1], cell[0])

    indices = [int(i) for i in board.open_cells]
    if not indices:
        raise TilesatError(f"{where}: the board has no open cell")
    optional = set(board.optional_cells.tolist())
    result = [(VARIABLE if i in optional else FILLED, board.colour_of(i)) for i in indices]
    shapes = [_voxel_shape([voxel(board.cell(i)) for i in indices], name or "board", result)]
    parts = []
    used_colours = [c for _, c in result]
    for rule in instance.rules:
        piece = rule.piece
        turns = piece.coloured_orientations if piece.colours else piece.orientations
        if {str(t) for t in turns(rule.orient)} != {str(t) for t in turns("free")}:
            how = "by the cube's 24 rotations only" if board.grid == "cube" else \
                "every way in its layer, mirror images included"
            raise TilesatError(f"{instance.source}: piece {piece.name} is {rule.orient}, which a BurrTools file "
                               f"cannot say: BurrTools turns every piece {how}")
        most = board.area // len(piece.cells)
        # "any number": as many as the board holds (at least 1: a piece bigger than the board fits nowhere anyway)
        high = max(rule.min, most, 1) if rule.max == float("inf") else int(rule.max)
        parts.append(Part(len(shapes), rule.min, high))
        colours = piece.colours or (0,) * len(piece.cells)
        used_colours += colours
        shapes.append(_voxel_shape([voxel(c) for c in piece.cells], piece.name, [(FILLED, c) for c in colours]))
    n_colours = max([*used_colours, *(c for pair in (instance.pairs or ()) for c in pair), 0])
    # BurrTools pairs nothing by default; tilesat (no colours: header) each colour with itself
    pairs = instance.pairs if instance.pairs is not None else {(k, k) for k in range(1, n_colours + 1)}
    problem = BurrProblem(tuple(parts), 0, name, frozenset((p - 1, b - 1) for p, b in pairs))
    return BurrPuzzle(0, _palette(n_colours), tuple(shapes), (problem,), comment, False, instance.source)


# --- as a tilesat instance ------------------------------------------------

def _shape_name(shape: BurrShape, index: int, taken: set[str], lattice: str) -> str:
    """The shape's own name where tilesat's ``shape:`` header takes it (letters,
    digits, ``_``; not a built-in piece or set, not taken), else ``S<number>``
    (BurrTools' own way of naming a shape by its number, from 1)."""
    from .pieces import grid_builtin_piece, grid_sets, is_set

    name = re.sub(r"\W+", "_", shape.name.strip()).strip("_")
    if name and name[0].isalpha() and name not in taken and not is_set(name) and name.lower() not in grid_sets(lattice):
        try:
            grid_builtin_piece(name, lattice)
        except KeyError:
            return name
    name = f"S{index + 1}"
    while name in taken:
        name += "_"
    return name


def burr_instance_text(puzzle: BurrPuzzle, which: int | str | None = None) -> str:
    """Problem ``which`` (index or name; None: the first) as a tilesat instance
    file: the cube grid, the result's filled voxels the board, each piece a
    shape of its own (turned by the 24 rotations, as BurrTools turns pieces)
    with its count or range.  tilesat's own counts of it are every assembly
    (BurrTools counts one per rotation of the result:
    ``tilesat.questions.burrtools``).  The result's variable voxels (``+``)
    are optional cells, voxel colours are colour letters (``A`` is colour 1)
    and the problem's colour pairs its ``colours:`` header; a piece's
    variable voxels are left out (``burrTxt`` places only its filled ones);
    ``maxHoles`` where the pieces' volume can vary is one line."""
    from .board import COLOUR_LETTERS, Board
    from .pieces import Piece

    index, problem = puzzle.problem(which)
    where = f"{puzzle.source}: {problem.label(index)}"
    if puzzle.grid_type != 0:
        raise TilesatError(f"{puzzle.source}: BurrTools grid type {puzzle.grid_type} "
                           f"({GRID_NAMES.get(puzzle.grid_type, '?')}): tilesat reads the cube grid (type 0)")
    result = puzzle.shapes[problem.result]
    parts = [p for p in problem.parts if p.max > 0]
    used = [result] + [puzzle.shapes[p.shape] for p in parts]
    coloured = bool(puzzle.colours) and any(c for s in used for st, c in s.voxels if st != EMPTY)
    if coloured:
        top = max(c for s in used for st, c in s.voxels if st != EMPTY)
        if top > len(puzzle.colours):
            raise TilesatError(f"{where}: a voxel has colour {top} but the file defines {len(puzzle.colours)} colours")
        if top > len(COLOUR_LETTERS):
            raise TilesatError(f"{where}: a voxel has colour {top}; tilesat's instances have {len(COLOUR_LETTERS)} colours (A..Z)")
    cells = result.cells()
    if not cells:
        raise TilesatError(f"{where}: the result shape (shape {problem.result}) has no voxels")
    if not parts:
        raise TilesatError(f"{where}: no piece may be used (every count is 0)")
    lo = [min(c[k] for c in cells) for k in range(3)]
    size = [max(c[k] for c in cells) - lo[k] + 1 for k in range(3)]
    shape_ = (size[2], size[1], size[0])  # layers (z), rows (y), columns (x)
    mask, optional, colour = np.zeros(shape_, bool), np.zeros(shape_, bool), np.zeros(shape_, np.uint8)
    for (x, y, z), (state, c) in cells.items():
        at = (z - lo[2], y - lo[1], x - lo[0])
        mask[at], optional[at], colour[at] = True, state == VARIABLE, c if coloured else 0
    lines = [f"; {where} (BurrTools), read by tilesat", "grid: cube"]
    taken: set[str] = set()
    counts, volumes = [], []
    for part in parts:
        shape = puzzle.shapes[part.shape]
        voxels = {cell: c for cell, (state, c) in shape.cells().items() if state == FILLED}
        if not voxels:
            raise TilesatError(f"{where}: piece shape {part.shape} has no filled voxels")
        name = _shape_name(shape, part.shape, taken, "cube")
        taken.add(name)
        order = sorted(voxels)
        piece = Piece(name, tuple((z, y, x) for x, y, z in order), "cube",
                      tuple(voxels[v] for v in order) if coloured else ())
        lines.append(f"shape: {name} {piece.drawing()}")
        counts.append(f"{name}:{part.min}" if part.min == part.max else f"{name}:{part.min}..{part.max}")
        volumes.append((len(voxels) * part.min, len(voxels) * part.max))
    if problem.max_holes is not None and optional.any() and \
            sum(a for a, _ in volumes) != sum(b for _, b in volumes):
        raise TilesatError(f"{where}: maxHoles={problem.max_holes} (at most that many variable voxels left empty) "
                           "with a piece volume that varies: tilesat's instances cannot say it "
                           "(count --burrtools-count counts it)")
    if coloured:
        pairs = sorted((a + 1, b + 1) for a, b in problem.pairs if a < len(COLOUR_LETTERS) and b < len(COLOUR_LETTERS))
        lines.append("colours: " + (", ".join(f"{COLOUR_LETTERS[a - 1]}:{COLOUR_LETTERS[b - 1]}" for a, b in pairs)
                                    or "none"))
    lines.append("pieces: " + ", ".join(counts))
    lines += Board(mask, "none", "cube", optional, colour).rows_text()
    return "\n".join(lines) + "\n"


def xmpuzzle_path(path: str | os.PathLike) -> tuple[str, str | None] | None:
    """``FILE.xmpuzzle`` or ``FILE.xmpuzzle:PROBLEM`` (a number or a name): (file,
    problem); None when the path names no BurrTools file."""
    name = str(path)
    if is_xmpuzzle(name):
        return name, None
    m = re.fullmatch(r"(.+\.xmpuzzle(?:\.xml)?):([^:/]+)", name, re.IGNORECASE)
    if m and not os.path.exists(name):
        return m.group(1), m.group(2)
    return None

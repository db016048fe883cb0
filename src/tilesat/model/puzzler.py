"""Polyform Puzzler's puzzle definitions read as instances, without running them.

Polyform Puzzler (D. Goodger, puzzler.sourceforge.net) defines a puzzle as a
Python class: a polyform class for its pieces (``Pentominoes``,
``Hexominoes``, ``SomaCubes``, ... or ``Polyominoes`` with a ``piece_data``
of its own), ``width``, ``height`` (and ``depth``) for the box, and a
``coordinates`` method yielding the board's cells when the board is not the
whole box::

    class MyPuzzle(Pentominoes):
        height = 3
        width = 21

        def coordinates(self):
            holes = set(((4,1), (10,1), (16,1)))
            for y in range(self.height):
                for x in range(self.width):
                    if (x,y) not in holes:
                        yield puzzler.coordsys.Cartesian2D((x, y))

tilesat reads such a module with :mod:`ast` and never executes it: the class
attributes must be literals (or arithmetic on literals), and ``coordinates``
and ``customize_piece_data`` are interpreted statement by statement by the
small evaluator below (assignments, ``for`` over ranges and collections,
``if``, comprehensions, ``yield``, ``append``/``add``, sets and tuples,
Polyform Puzzler's ``coordinates_rectangle``, ``coordinates_triangle``,
``coordinates_diamond``, ``coordinates_aztec_diamond``,
``coordinates_double_triangle``, ``coordinates_cuboid``,
``coordinates_open_box``, ``coordinates_ring_wall``,
``coordinates_triangular_prism``), within a budget of steps.  Anything else
is one clear error naming its line.  Square (Cartesian2D) and cube
(Cartesian3D) puzzles are read; each piece is used exactly once, as in
Polyform Puzzler.  Aspect restrictions (``flips``, ``rotations``: there to
avoid finding a solution again in another orientation) are left out: tilesat
finds every tiling.

Polyform Puzzler's y axis points up (row 0 at the bottom) and its z axis up
(layer 0 at the bottom); an instance's rows and layers run top first.  Pieces
and board are turned over together, so every solution of the one is a
solution of the other.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from ..errors import TilesatError
from .grids import get_grid
from .pieces import HEXOMINO_NAMES, builtin_piece, canonical, grid_builtin_piece, grid_piece_set, is_chiral, mirror

#: Steps the evaluator may take (an expression or statement each): a board of a million cells fits.
BUDGET = 20_000_000
#: Cells a board may have.
MAX_CELLS = 1_000_000


_MONO = [("O1", "I1")]
_DOMINO = [("I2", "I2")]
_TRIO = [("I3", "I3"), ("V3", "L3")]
_TETRA = [("I4", "I4"), ("L4", "L4"), ("O4", "O4"), ("T4", "T4"), ("Z4", "S4")]
_PENTA = [(letter, f"{letter}5") for letter in "FILNPTUVWXYZ"]
_HEXA = [(name, name) for name in HEXOMINO_NAMES]

#: Polyform Puzzler's polyform classes tilesat knows: (grid, [(Polyform Puzzler's name, tilesat's piece)]).
LIBRARY = {
    "Monomino": ("square", _MONO), "Domino": ("square", _DOMINO), "Trominoes": ("square", _TRIO),
    "Tetrominoes": ("square", _TETRA), "Pentominoes": ("square", _PENTA), "Hexominoes": ("square", _HEXA),
    "PentominoesPlusSquareTetromino": ("square", _PENTA + [("S", "O4")]),
    "PentominoesPlusMonomino": ("square", _PENTA + [("M", "I1")]),
    "PentominoesPlusTetrominoes": ("square", _PENTA + _TETRA),
    "Polyominoes12": ("square", _MONO + _DOMINO), "Polyominoes123": ("square", _MONO + _DOMINO + _TRIO),
    "Polyominoes1234": ("square", _MONO + _DOMINO + _TRIO + _TETRA),
    "Polyominoes234": ("square", _DOMINO + _TRIO + _TETRA),
    "Polyominoes12345": ("square", _MONO + _DOMINO + _TRIO + _TETRA + _PENTA),
    "Polyominoes2345": ("square", _DOMINO + _TRIO + _TETRA + _PENTA),
    "Polyominoes45": ("square", _TETRA + _PENTA),
    "Polyominoes123456": ("square", _MONO + _DOMINO + _TRIO + _TETRA + _PENTA + _HEXA),
    "SomaCubes": ("cube", "soma"), "SolidPentominoes": ("cube", "solid-pentominoes"),
    "Tetracubes": ("cube", "tetracubes"), "Pentacubes": ("cube", "pentacubes"),
    "Polyominoes": ("square", []), "Polycubes": ("cube", []),
}
#: One-sided classes: their free class's pieces, each chiral one joined by its mirror image in lower case.
ONE_SIDED = {f"OneSided{name}": name for name in ("Trominoes", "Tetrominoes", "Pentominoes", "Hexominoes",
                                                   "Polyominoes1234", "Polyominoes234", "Polyominoes12345",
                                                   "Polyominoes2345", "Polyominoes45", "Polyominoes123456")}


@dataclass
class PuzzlerClass:
    name: str
    node: ast.ClassDef | None  # None: a library class
    bases: list[str]
    attrs: dict = field(default_factory=dict)  # name -> ast expression
    methods: dict = field(default_factory=dict)  # name -> ast.FunctionDef


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Coord(tuple):
    """A coordinate as Polyform Puzzler's coordinate classes: a tuple that adds elementwise."""

    def __add__(self, other):
        return Coord(a + b for a, b in zip(self, other))

    def __sub__(self, other):
        return Coord(a - b for a, b in zip(self, other))


def _offset(cells, offset):
    return [Coord(c) + offset if offset else Coord(c) for c in cells]


# Polyform Puzzler's board helpers, as its documentation describes them (its code is not used).
def rectangle(width, height, offset=None):
    return _offset([(x, y) for y in range(height) for x in range(width)], offset)


def triangle(side, offset=None):
    return _offset([(x, y) for y in range(side) for x in range(side) if x + y < side], offset)


def double_triangle(side, offset=None):
    width = 2 * side - 1
    return _offset([(x, y) for y in range(side) for x in range(width) if y <= x < width - y], offset)


def diamond(side, offset=None):
    n = 2 * side - 1
    return _offset([(x, y) for y in range(n) for x in range(n)
                    if side - 1 <= x + y <= 3 * (side - 1) and abs(x - y) <= side - 1], offset)


def aztec_diamond(side, offset=None):
    n = 2 * side
    return _offset([(x, y) for y in range(n) for x in range(n)
                    if side - 1 <= x + y <= 3 * side - 1 and abs(x - y) <= side], offset)


def cuboid(width, height, depth, offset=None):
    return _offset([(x, y, z) for z in range(depth) for y in range(height) for x in range(width)], offset)


def open_box(width, height, depth, offset=None):
    inner = set(cuboid(width - 2, height - 2, depth - 1, Coord(offset or (0, 0, 0)) + (1, 1, 1)))
    return sorted(set(cuboid(width, height, depth, offset)) - inner)


def ring_wall(width, height, depth, offset=None):
    inner = set(cuboid(width - 2, height - 2, depth, Coord(offset or (0, 0, 0)) + (1, 1, 0)))
    return sorted(set(cuboid(width, height, depth, offset)) - inner)


def triangular_prism(side, depth, offset=None):
    return _offset([(x, y, z) for z in range(depth) for y in range(side) for x in range(side) if x + y < side], offset)


def aztec_pyramid(side, offset=None):
    cells = {Coord((x, y, z)) for z in range(side) for x, y in aztec_diamond(side - z, (z, z))}
    return sorted(_offset(cells, offset))


HELPERS = {
    "coordinates_rectangle": rectangle, "coordinates_triangle": triangle,
    "coordinates_double_triangle": double_triangle, "coordinates_diamond": diamond,
    "coordinates_aztec_diamond": aztec_diamond, "coordinates_cuboid": cuboid, "coordinates_open_box": open_box,
    "coordinates_ring_wall": ring_wall, "coordinates_triangular_prism": triangular_prism,
    "coordinates_aztec_pyramid": aztec_pyramid,
}
_COORD_CLASSES = {"Cartesian2D", "Cartesian3D", "SquareGrid3D"}
_BUILTINS = {"range": range, "set": set, "frozenset": frozenset, "list": list, "tuple": tuple, "len": len, "abs": abs,
             "min": min, "max": max, "sorted": sorted, "enumerate": enumerate, "zip": zip, "sum": sum,
             "reversed": reversed, "True": True, "False": False, "None": None}
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.BitOr: lambda a, b: a | b,
           ast.BitAnd: lambda a, b: a & b, ast.Div: lambda a, b: a / b}
_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
            ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_METHODS = {"append", "add", "update", "extend", "discard", "remove", "union", "difference", "intersection",
            "issubset", "copy", "keys", "values", "items", "pop"}


class Evaluator:
    """Evaluates a method of a puzzle class from its syntax tree: the few
    statements and expressions puzzle definitions use, nothing that reaches
    outside (no imports, attributes only of ``self`` and of the coordinate
    classes, calls only of the builtins above and of Polyform Puzzler's
    board helpers)."""

    def __init__(self, source: str, attrs: dict, piece_data: dict | None = None):
        self.source = source
        self.attrs = attrs  # the class's attributes, already evaluated
        self.piece_data = piece_data
        self.steps = 0

    def fail(self, node, what: str):
        raise TilesatError(f"{self.source}, line {getattr(node, 'lineno', '?')}: {what} (tilesat reads Polyform "
                           "Puzzler's definitions without running them)")

    def tick(self, node):
        self.steps += 1
        if self.steps > BUDGET:
            self.fail(node, f"more than {BUDGET:,} steps to evaluate")

    # -- methods -------------------------------------------------------------------------------

    def run(self, fn: ast.FunctionDef) -> list:
        """The method's yields, or what it returns (a collection)."""
        out: list = []
        scope: dict = {"self": _Self}
        try:
            self.block(fn.body, scope, out)
        except _Return as r:
            return out + list(r.value or [])
        return out

    def block(self, body, scope, out):
        for stmt in body:
            self.statement(stmt, scope, out)

    def statement(self, node, scope, out):
        self.tick(node)
        if isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return  # a docstring
            if isinstance(value, ast.Yield):
                out.append(self.expr(value.value, scope) if value.value is not None else None)
                self._check_size(node, out)
                return
            if isinstance(value, ast.YieldFrom):
                out.extend(self.expr(value.value, scope))
                self._check_size(node, out)
                return
            self.expr(value, scope)
            return
        if isinstance(node, ast.Assign):
            value = self.expr(node.value, scope)
            for target in node.targets:
                self.assign(target, value, scope)
            return
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name) or type(node.op) not in _BINOPS:
                self.fail(node, "an augmented assignment to something other than a name")
            scope[node.target.id] = _BINOPS[type(node.op)](self.name(node.target, scope), self.expr(node.value, scope))
            return
        if isinstance(node, ast.For):
            if node.orelse:
                self.fail(node, "'for ... else'")
            for item in self.expr(node.iter, scope):
                self.tick(node)
                self.assign(node.target, item, scope)
                try:
                    self.block(node.body, scope, out)
                except _Break:
                    break
                except _Continue:
                    continue
            return
        if isinstance(node, ast.If):
            self.block(node.body if self.expr(node.test, scope) else node.orelse, scope, out)
            return
        if isinstance(node, ast.Return):
            raise _Return(self.expr(node.value, scope) if node.value is not None else None)
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.Break):
            raise _Break
        if isinstance(node, ast.Continue):
            raise _Continue
        if isinstance(node, ast.Delete) and self.piece_data is not None:
            for target in node.targets:
                key = self._piece_key(target, scope)
                if key not in self.piece_data:
                    self.fail(node, f"no piece {key!r} to delete")
                del self.piece_data[key]
            return
        self.fail(node, f"{_kind(node)} statement")

    def _check_size(self, node, out):
        if len(out) > MAX_CELLS:
            self.fail(node, f"more than {MAX_CELLS:,} cells")

    def _piece_key(self, target, scope):
        """``self.piece_data[KEY]``: the key."""
        if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
                and isinstance(target.value.value, ast.Name) and target.value.value.id == "self"
                and target.value.attr == "piece_data"):
            return self.expr(target.slice, scope)
        self.fail(target, "a change to something other than self.piece_data[NAME]")

    def assign(self, target, value, scope):
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value)
            if len(values) != len(target.elts):
                self.fail(target, f"{len(values)} values unpacked into {len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.assign(t, v, scope)
        elif isinstance(target, ast.Subscript) and self.piece_data is not None:
            self._assign_piece_data(target, value, scope)
        else:
            self.fail(target, f"an assignment to a {type(target).__name__}")

    def _assign_piece_data(self, target, value, scope):
        """``self.piece_data[NAME] = (coords, aspects)`` adds a piece; an assignment into its
        aspect restrictions (``self.piece_data[NAME][-1]['flips'] = None``) is left out."""
        inner = target
        while isinstance(inner.value, ast.Subscript):
            inner = inner.value
        key = self._piece_key(inner, scope)
        if inner is target:
            self.piece_data[key] = value
        elif key not in self.piece_data:
            self.fail(target, f"no piece {key!r} to restrict")

    # -- expressions ---------------------------------------------------------------------------

    def name(self, node, scope):
        if node.id in scope:
            return scope[node.id]
        if node.id in _BUILTINS:
            return _BUILTINS[node.id]
        if node.id in _COORD_CLASSES:
            return _coord_class
        self.fail(node, f"the name {node.id!r}")

    def expr(self, node, scope):
        self.tick(node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int) and abs(node.value) > 10**9:
                self.fail(node, "a number this large")
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node, scope)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e, scope) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.expr(e, scope) for e in node.elts]
        if isinstance(node, ast.Set):
            return {self.expr(e, scope) for e in node.elts}
        if isinstance(node, ast.Dict):
            return {self.expr(k, scope): self.expr(v, scope) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = self.expr(node.left, scope), self.expr(node.right, scope)
            if isinstance(node.op, ast.Mult) and (isinstance(left, (list, tuple, str)) or isinstance(right, (list, tuple, str))):
                self.fail(node, "a repeated sequence")
            try:
                return _BINOPS[type(node.op)](left, right)
            except (TypeError, ZeroDivisionError) as e:
                self.fail(node, str(e))
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand, scope)
            if isinstance(node.op, ast.USub):
                return -value
            if isinstance(node.op, ast.UAdd):
                return +value
            if isinstance(node.op, ast.Not):
                return not value
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                value = True
                for v in node.values:
                    value = self.expr(v, scope)
                    if not value:
                        return value
                return value
            value = False
            for v in node.values:
                value = self.expr(v, scope)
                if value:
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = self.expr(node.left, scope)
            for op, comparator in zip(node.ops, node.comparators):
                right = self.expr(comparator, scope)
                if type(op) not in _COMPARE:
                    self.fail(node, f"the comparison {type(op).__name__}")
                try:
                    if not _COMPARE[type(op)](left, right):
                        return False
                except TypeError as e:
                    self.fail(node, str(e))
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.expr(node.test, scope) else node.orelse, scope)
        if isinstance(node, ast.Subscript):
            value = self.expr(node.value, scope)
            index = self.expr(node.slice, scope)
            try:
                return value[index]
            except (TypeError, IndexError, KeyError) as e:
                self.fail(node, f"an index that does not fit ({e})")
        if isinstance(node, ast.Slice):
            return slice(*(self.expr(p, scope) if p is not None else None for p in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Attribute):
            return self.attribute(node, scope)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            items = self.comprehension(node.elt, node.generators, scope)
            return set(items) if isinstance(node, ast.SetComp) else items
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        self.fail(node, f"{_kind(node)} expression")

    def comprehension(self, elt, generators, scope) -> list:
        out = []

        def walk(k, scope):
            if k == len(generators):
                out.append(self.expr(elt, scope))
                if len(out) > MAX_CELLS:
                    self.fail(elt, f"more than {MAX_CELLS:,} items")
                return
            gen = generators[k]
            for item in self.expr(gen.iter, scope):
                self.tick(gen.iter)
                inner = dict(scope)
                self.assign(gen.target, item, inner)
                if all(self.expr(cond, inner) for cond in gen.ifs):
                    walk(k + 1, inner)

        walk(0, scope)
        return out

    def attribute(self, node, scope):
        if node.attr == "customize_piece_data":  # a base class's (Pentominoes.customize_piece_data(self)): its pieces are read already
            return lambda *args: None
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in self.attrs:
                return self.attrs[node.attr]
            if node.attr in HELPERS:
                return HELPERS[node.attr]
            if node.attr == "piece_data" and self.piece_data is not None:
                return self.piece_data
            self.fail(node, f"the attribute self.{node.attr}")
        if node.attr in _COORD_CLASSES:
            return _coord_class  # puzzler.coordsys.Cartesian2D, coordsys.Cartesian3D, ...
        if node.attr in HELPERS and isinstance(node.value, ast.Name):
            return HELPERS[node.attr]  # a class's helper: Puzzle2D.coordinates_aztec_diamond(...)
        obj = self.expr(node.value, scope)
        if node.attr in _METHODS and isinstance(obj, (list, set, dict, frozenset, tuple)):
            return getattr(obj, node.attr)
        self.fail(node, f"the attribute .{node.attr}")

    def call(self, node, scope):
        fn = self.expr(node.func, scope)
        args = [self.expr(a, scope) for a in node.args if not isinstance(a, ast.Starred)]
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "a call with *arguments")
        kwargs = {k.arg: self.expr(k.value, scope) for k in node.keywords if k.arg is not None}
        if fn is range and (len(range(*args)) > MAX_CELLS):
            self.fail(node, f"a range of more than {MAX_CELLS:,} numbers")
        try:
            return fn(*args, **kwargs)
        except TilesatError:
            raise
        except Exception as e:  # noqa: BLE001 -- a bad argument in the user's file, said in one line
            self.fail(node, f"{type(e).__name__}: {e}")


def _kind(node) -> str:
    """'an import', 'a while': the syntax a node is, with its article."""
    name = type(node).__name__.lower()
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


class _SelfMarker:
    """``self`` in a method: only its attributes are read (see :meth:`Evaluator.attribute`)."""


_Self = _SelfMarker()


def _coord_class(value, *rest):
    return Coord(value)


# -- the module -----------------------------------------------------------------------------------


def _classes(tree: ast.Module) -> dict[str, PuzzlerClass]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = []
            for b in node.bases:
                name = b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
                if name is not None:
                    bases.append(name)
            cls = PuzzlerClass(node.name, node, bases)
            for item in node.body:
                if isinstance(item, ast.Assign):
                    for target in item.targets:  # width = height = 3 too
                        if isinstance(target, ast.Name):
                            cls.attrs[target.id] = item.value
                elif isinstance(item, ast.FunctionDef):
                    cls.methods[item.name] = item
            out[node.name] = cls
    return out


def _run_target(tree: ast.Module) -> str | None:
    """The class ``puzzler.run(NAME)`` solves, where the module says."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
                and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "run"
                and node.args and isinstance(node.args[0], ast.Name)):
            return node.args[0].id
    return None


def _chain(name: str, classes: dict, source: str) -> list:
    """The class and its bases, nearest first (the module's classes, then one library class)."""
    out, seen = [], set()
    while True:
        if name in seen:
            raise TilesatError(f"{source}: class {name} derives from itself")
        seen.add(name)
        if name in LIBRARY or name in ONE_SIDED:
            out.append(name)
            return out
        cls = classes.get(name)
        if cls is None:
            known = ", ".join(sorted(set(LIBRARY) | set(ONE_SIDED)))
            raise TilesatError(f"{source}: {name!r} is not a Polyform Puzzler class tilesat knows; a puzzle derives "
                               f"from one of {known}")
        out.append(cls)
        bases = [b for b in cls.bases if b not in ("object", "OneSidedLowercaseMixin")]
        if not bases:
            raise TilesatError(f"{source}: class {name} derives from no polyform class (Pentominoes, SomaCubes, ...)")
        if "OneSidedLowercaseMixin" in cls.bases and bases[0] in LIBRARY and f"OneSided{bases[0]}" in ONE_SIDED:
            bases[0] = f"OneSided{bases[0]}"
        name = bases[0]


def _library_pieces(name: str) -> tuple[str, dict]:
    """A library class's grid and pieces: Polyform Puzzler's name -> cells in tilesat's coordinates."""
    one_sided = name in ONE_SIDED
    grid, members = LIBRARY[ONE_SIDED.get(name, name)]
    if isinstance(members, str):  # a tilesat set of the cube grid, under tilesat's names
        pieces = {p.name: p for p in grid_piece_set(grid, members)}
    else:
        pieces = {key: builtin_piece(tilesat) for key, tilesat in members}
        if one_sided:
            for key, piece in list(pieces.items()):
                if is_chiral(piece):
                    pieces[key.lower() if key.lower() != key else key + "'"] = mirror(piece)
    return grid, {key: piece.cells for key, piece in pieces.items()}


def _piece_cells(key, value, grid: str, source: str, line: int) -> tuple:
    """``piece_data``'s entry ``(coordinates, aspects)``: the origin plus the coordinates, in tilesat's axes."""
    try:
        coords = value[0]
        points = [tuple(int(v) for v in c) for c in coords]
    except (TypeError, ValueError, IndexError):
        raise TilesatError(f"{source}, line {line}: piece {key!r}: want (coordinates, aspects)") from None
    dims = 3 if grid == "cube" else 2
    if any(len(p) != dims for p in points):
        raise TilesatError(f"{source}, line {line}: piece {key!r}: coordinates of {dims} numbers on this grid")
    cells = {(0,) * dims} | set(points)
    return tuple(sorted(_turn(c) for c in cells))


def _turn(point) -> tuple:
    """Polyform Puzzler's (x, y[, z]), y and z up, as tilesat's (row, col) or (layer, row, col), rows down."""
    if len(point) == 2:
        x, y = point
        return (-y, x)
    x, y, z = point
    return (-z, -y, x)


def read_puzzler(text: str, source: str = "<string>", cls_name: str | None = None) -> str:
    """A Polyform Puzzler puzzle module as the text of a tilesat instance file
    (comments, shapes, pieces, board)."""
    try:
        return _read(text, source, cls_name)
    except RecursionError:
        raise TilesatError(f"{source}: expressions nested too deeply to read") from None


def _read(text: str, source: str, cls_name: str | None) -> str:
    try:
        tree = ast.parse(text, filename=source)
    except (SyntaxError, ValueError) as e:
        line = f", line {e.lineno}" if getattr(e, "lineno", None) else ""
        raise TilesatError(f"{source}{line}: not Python that tilesat can read ({getattr(e, 'msg', e)})") from None
    classes = _classes(tree)
    if not classes:
        raise TilesatError(f"{source}: no class: a Polyform Puzzler puzzle is a class such as "
                           "'class MyPuzzle(Pentominoes): width = 10; height = 6'")
    name = cls_name or _run_target(tree) or list(classes)[-1]
    if name not in classes:
        raise TilesatError(f"{source}: no class {name!r}; the module has {', '.join(classes)}")
    chain = _chain(name, classes, source)
    library = chain[-1]
    grid, pieces = _library_pieces(library)
    # class attributes, the base's first so that a subclass's win
    attrs: dict = {}
    evaluator = Evaluator(source, attrs)
    for cls in reversed(chain[:-1]):
        for key, node in cls.attrs.items():
            if key in ("piece_data", "width", "height", "depth"):
                attrs[key] = evaluator.expr(node, dict(attrs))
    if "piece_data" in attrs:
        data = attrs.pop("piece_data")
        if not isinstance(data, dict) or not data:
            raise TilesatError(f"{source}: piece_data must be a dict of name -> (coordinates, aspects)")
        pieces = {key: _piece_cells(key, value, grid, source, getattr(chain[0].node, "lineno", 0))
                  for key, value in data.items()}
    method = next((cls.methods.get("customize_piece_data") for cls in chain[:-1] if "customize_piece_data" in cls.methods),
                  None)
    if method is not None:
        data = {key: (None, {}) for key in pieces}
        custom = Evaluator(source, attrs, data)
        custom.run(method)
        for key in list(pieces):
            if key not in data:
                del pieces[key]
        for key, value in data.items():
            if key not in pieces:
                pieces[key] = _piece_cells(key, value, grid, source, method.lineno)
    coordinates = next((cls.methods["coordinates"] for cls in chain[:-1] if "coordinates" in cls.methods), None)
    dims = 3 if grid == "cube" else 2
    if coordinates is not None:
        cells = Evaluator(source, attrs).run(coordinates)
    else:
        need = ("width", "height", "depth")[:dims]
        missing = [k for k in need if k not in attrs]
        if missing:
            raise TilesatError(f"{source}: class {name} gives no {' or '.join(missing)} and no coordinates method")
        cells = rectangle(attrs["width"], attrs["height"]) if dims == 2 else cuboid(attrs["width"], attrs["height"],
                                                                                   attrs["depth"])
    try:
        points = {tuple(int(v) for v in c) for c in cells}
    except (TypeError, ValueError):
        raise TilesatError(f"{source}: the coordinates method yields something other than coordinates") from None
    if not points:
        raise TilesatError(f"{source}: the board has no cell")
    if any(len(p) != dims for p in points):
        raise TilesatError(f"{source}: a {grid} board's coordinates have {dims} numbers each")
    return _instance_text(name, source, grid, pieces, points, library in ONE_SIDED)


def _instance_text(name: str, source: str, grid: str, pieces: dict, points: set, one_sided: bool) -> str:
    lattice = get_grid(grid)
    turned = [_turn(p) for p in points]
    low = [min(c[i] for c in turned) for i in range(len(turned[0]))]
    cells = {tuple(v - lo for v, lo in zip(c, low)) for c in turned}
    lines = [f"; read from Polyform Puzzler's puzzle definition {os.path.basename(source)} (class {name}): "
             "each piece once; rows and layers top first (Polyform Puzzler counts y and z upwards)"]
    if grid != "square":
        lines.append(f"grid: {grid}")
    items = []
    orient = "/one-sided" if one_sided and grid != "cube" else ""
    for key, piece_cells in pieces.items():
        use = _builtin_name(key, piece_cells, grid)
        if use is None:
            use = _shape_name(key, pieces)
            lines.append(f"shape: {use} {lattice.format_shape(lattice.normalize(piece_cells))}")
        items.append(f"{use}{orient}:1")
    lines.append(f"pieces: {', '.join(items)}")
    if grid == "cube":
        depth = 1 + max(c[0] for c in cells)
        rows = 1 + max(c[1] for c in cells)
        cols = 1 + max(c[2] for c in cells)
        for z in range(depth):
            if z:
                lines.append("--")
            lines += ["".join("." if (z, r, c) in cells else "#" for c in range(cols)) for r in range(rows)]
    else:
        rows = 1 + max(c[0] for c in cells)
        cols = 1 + max(c[1] for c in cells)
        lines += ["".join("." if (r, c) in cells else "#" for c in range(cols)) for r in range(rows)]
    return "\n".join(lines) + "\n"


def _builtin_name(key: str, cells, grid: str) -> str | None:
    """``key`` when it is a built-in piece of the grid with these cells (one-sided: not mirrored)."""
    try:
        piece = grid_builtin_piece(key, grid)
    except KeyError:
        return None
    if canonical(piece.cells, "one-sided", grid) == canonical(get_grid(grid).normalize(cells), "one-sided", grid):
        return piece.name
    return None


def _shape_name(key: str, pieces: dict) -> str:
    """A ``shape:`` name for Polyform Puzzler's piece ``key``: itself when it is one
    (a letter, then letters, digits, '_'), else made one; never a built-in name."""
    name = re.sub(r"\W", "_", str(key))
    if not re.match(r"[A-Za-z]", name):
        name = f"P{name}"
    try:
        builtin_piece(name)
        name = f"{name}_"
    except KeyError:
        pass
    if str(key).endswith("'"):
        name = f"{name}_mirror"
    return name

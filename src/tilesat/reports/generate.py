"""generate: a puzzle made to the request, its instance text (with the header
that says how it was made), the line that says so, and the JSON document."""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from ..errors import TilesatError, one_of, plural
from ..making.generate import DIFFICULTIES, Puzzle, PuzzleSpec, generate_puzzle
from ..model.grids import get_grid
from ..model.instance import format_instance, parse_pieces
from ..running.control import TimedOut

#: The largest board generate makes.
MAX_CELLS = 10_000


@dataclass(frozen=True)
class GenerateRequest:
    """The board's size (``ROWSxCOLS``; on the cube grid ``LAYERSxROWSxCOLS``), its pieces, the puzzle wanted."""

    size: str
    pieces: str = "L4"
    spec: PuzzleSpec = field(default_factory=PuzzleSpec)


@dataclass(frozen=True)
class Board:
    """The checked size: the grid's name and the board's dimensions."""

    grid: str
    layers: int
    rows: int
    cols: int

    @property
    def dims(self) -> str:
        return f"{self.layers}x{self.rows}x{self.cols}" if self.grid == "cube" else f"{self.rows}x{self.cols}"

    @property
    def named(self) -> str:
        return self.dims + ("" if self.grid == "square" else " " + self.grid)


def board_of(request: GenerateRequest) -> Board:
    """The request's size, grid and difficulty checked (one line each), before any work."""
    spec, size = request.spec, request.size
    grid = get_grid(spec.grid).name
    cube = grid == "cube"
    m = re.fullmatch(r"(\d+)[xX](\d+)[xX](\d+)" if cube else r"(\d+)[xX](\d+)", size.strip())
    if not m:
        raise TilesatError(f"--size {size!r}: use " + ("LAYERSxROWSxCOLS, e.g. 3x4x4 (a cube board)" if cube
                                                         else "ROWSxCOLS, e.g. 12x12"))
    layers, rows, cols = (int(x) for x in m.groups()) if cube else (1, int(m.group(1)), int(m.group(2)))
    if layers * rows * cols > MAX_CELLS:
        raise TilesatError(f"--size {size}: at most {MAX_CELLS:,} cells")
    if spec.difficulty is not None and spec.difficulty not in DIFFICULTIES:
        raise TilesatError(f"--difficulty {spec.difficulty!r}: use {one_of(DIFFICULTIES)}")
    return Board(grid, layers, rows, cols)


@dataclass
class Generated:
    """A puzzle made (``puzzle``, ``text``: its instance file), or none when the time limit
    passed first (``stopped``); ``message``: the line that says which."""

    request: GenerateRequest
    board: Board
    message: str
    puzzle: Puzzle | None = None
    text: str | None = None
    seconds: float = 0.0
    stopped: str | None = None

    @property
    def title(self) -> str:
        """The printable puzzle's title."""
        return f"Puzzle {self.board.named}, {self.request.pieces} (seed {self.request.spec.seed})"

    def document(self, out=None) -> dict:
        """What ``--json`` prints (``out``: where the instance was written, if anywhere)."""
        if self.puzzle is None:
            return {"instance": None, "stopped": self.stopped, "message": self.message}
        puzzle, spec = self.puzzle, self.request.spec
        return {"instance": self.text, "message": self.message, "grade": puzzle.grade.to_json(),
                "blacked": puzzle.blacked, "tries": puzzle.tries, "seed": spec.seed, "size": self.board.dims,
                "grid": self.board.grid, "seconds": round(self.seconds, 6), "out": str(out) if out is not None else None}


def generate(request: GenerateRequest, timeout: float | None = None, progress: Callable | None = None) -> Generated:
    """Make the puzzle, within the caller's time limit (``timeout``: its seconds, for the message)."""
    board = board_of(request)
    spec = request.spec
    rules = parse_pieces(request.pieces, grid=board.grid)
    t0 = time.perf_counter()
    try:
        puzzle = generate_puzzle(board.rows, board.cols, rules, progress=progress,
                                 **{**asdict(spec), "grid": board.grid, "layers": board.layers})
    except TimedOut:
        limit = f"the time limit of {timeout:g} s" if timeout is not None else "the time limit"
        return Generated(request, board, f"unknown: {limit} passed before the board was unique; nothing written",
                         stopped="timeout")
    seconds = time.perf_counter() - t0
    graded = puzzle.grade
    made = (f"Made by tilesat generate --size {board.dims}" + (f" --grid {board.grid}" if board.grid != "square" else "")
            + f" --pieces '{request.pieces}' --seed {spec.seed}"
            + (f" --blocked {spec.blocked}" if spec.blocked is not None else "")
            + (f" --difficulty {spec.difficulty}" if spec.difficulty is not None else ""))
    how = (f"a random packing (empty cells black), then {plural(puzzle.blacked, 'tile')} blacked out until deduction settled it."
           if puzzle.blacked or not any(r.min > 0 for r in rules) else
           f"a random packing (empty cells black), unique at try {puzzle.tries}.")
    text = format_instance(puzzle.instance, [f"{made}: {how}", graded.sentence(), "expect: unique"])
    message = (f"generated a unique {board.named} board in {seconds:.2f} s (seed {spec.seed}); "
               f"grade {graded.grade}, {plural(graded.rounds, 'deduction round')}")
    return Generated(request, board, message, puzzle, text, seconds)

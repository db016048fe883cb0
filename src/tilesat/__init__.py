"""tilesat: polyomino tiling compiled to SAT.

The pipeline, one module per stage::

    instance = load_instance("board.txt")          # instance: board + piece rules
    placements = generate_placements(instance)     # placements
    formula = compile_formula(placements, "ladder")  # formula: CNF, vars 1..P = placements
    result = check_unique(instance)                # search: solver + verified tilings
"""

__version__ = "0.1.0"

from .board import Board
from .checks import obstruction
from .encodings import ENCODINGS, exactly_one
from .errors import TilesatError, VerificationError
from .formula import Formula, compile_formula
from .instance import Instance, PieceRule, format_instance, load_instance, parse_instance, parse_pieces
from .pieces import Piece, builtin_piece, free_polyominoes, piece_set
from .placements import Placements, generate_placements
from .search import Result, TilingSearch, check_unique, iter_tilings, solve
from .solvers import make_solver, solver_names
from .tiling import Tile, Tiling
from .verify import verify_tiling

__all__ = [
    "Board", "ENCODINGS", "Formula", "Instance", "Piece", "PieceRule", "Placements", "Result",
    "Tile", "Tiling", "TilesatError", "TilingSearch", "VerificationError", "builtin_piece",
    "check_unique", "compile_formula", "exactly_one", "format_instance", "free_polyominoes",
    "generate_placements", "iter_tilings", "load_instance", "obstruction", "parse_instance",
    "parse_pieces", "piece_set", "make_solver", "solve", "solver_names", "verify_tiling",
]

"""tilesat: polyomino tiling compiled to SAT.

The pipeline, one module per stage::

    instance = load_instance("board.txt")          # instance: board + piece rules
    placements = generate_placements(instance)     # placements
    formula = compile_formula(placements, "ladder")  # formula: CNF, vars 1..P = placements
    result = check_unique(instance)                # search: solver + verified tilings
"""

__version__ = "0.1.0"

# Loaded on first use (PEP 562): ``import tilesat`` costs nothing, so the
# ``tilesat`` command can catch a Ctrl-C during its imports (tilesat.main).
_WHERE = {
    "Board": "board", "obstruction": "checks", "ENCODINGS": "encodings", "exactly_one": "encodings",
    "TilesatError": "errors", "VerificationError": "errors", "Formula": "formula", "compile_formula": "formula",
    "Instance": "instance", "PieceRule": "instance", "format_instance": "instance", "load_instance": "instance",
    "parse_instance": "instance", "parse_pieces": "instance", "Piece": "pieces", "builtin_piece": "pieces",
    "free_polyominoes": "pieces", "piece_set": "pieces", "Placements": "placements",
    "generate_placements": "placements", "Result": "search", "TilingSearch": "search", "check_unique": "search",
    "iter_tilings": "search", "solve": "search", "make_solver": "solvers", "solver_names": "solvers",
    "Tile": "tiling", "Tiling": "tiling", "verify_tiling": "verify",
}


def __getattr__(name: str):
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tilesat' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_WHERE))


__all__ = [
    "Board", "ENCODINGS", "Formula", "Instance", "Piece", "PieceRule", "Placements", "Result",
    "Tile", "Tiling", "TilesatError", "TilingSearch", "VerificationError", "builtin_piece",
    "check_unique", "compile_formula", "exactly_one", "format_instance", "free_polyominoes",
    "generate_placements", "iter_tilings", "load_instance", "obstruction", "parse_instance",
    "parse_pieces", "piece_set", "make_solver", "solve", "solver_names", "verify_tiling",
]

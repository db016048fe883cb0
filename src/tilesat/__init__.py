"""tilesat: polyomino tiling compiled to SAT.

The pipeline, one package per stage::

    instance = load_instance("board.txt")            # model: board + piece rules
    placements = generate_placements(instance)       # model: every placement of every piece
    formula = compile_formula(placements, "ladder")  # sat: CNF, vars 1..P = placements
    result = check_unique(instance)                  # questions: engines + verified tilings

The packages, each importing only those below it (tests/test_architecture.py):

- ``cli``, ``studio``: the two front ends;
- ``explain``: where a board is ambiguous, what makes it unique, where it fails;
- ``making`` (generate, grade, families, fuzz, compare) and ``showing`` (text, pictures);
- ``questions``: solve, check-unique, count, list, pack;
- ``engines``: the enumerator, frontier, Pfaffian, dancing links, sweep, portfolio;
- ``sat``: encodings, formula, solvers, plugins, DIMACS, proofs, symmetry breaking;
- ``certify``: the independent checker, quick checks, LP certificates, the oracle;
- ``model``: grids, pieces, boards, instances, placements, symmetries, tilings;
- ``running``: deadlines, children, memory limits, checkpoints, the Dask cluster;
  and ``errors``.
"""

__version__ = "0.1.0"

# Loaded on first use (PEP 562): ``import tilesat`` costs nothing, so the
# ``tilesat`` command can catch a Ctrl-C during its imports (tilesat.main).
_WHERE = {
    "Board": "model.board", "obstruction": "certify.checks", "ENCODINGS": "sat.encodings", "exactly_one": "sat.encodings",
    "TilesatError": "errors", "VerificationError": "errors", "Formula": "sat.formula", "compile_formula": "sat.formula",
    "Instance": "model.instance", "PieceRule": "model.instance", "format_instance": "model.instance", "load_instance": "model.instance",
    "parse_instance": "model.instance", "parse_pieces": "model.instance", "Piece": "model.pieces", "builtin_piece": "model.pieces",
    "free_polyominoes": "model.pieces", "piece_set": "model.pieces", "Placements": "model.placements",
    "generate_placements": "model.placements", "Result": "questions.solve", "TilingSearch": "engines.sat", "check_unique": "questions.solve",
    "iter_tilings": "questions.solve", "solve": "questions.solve", "make_solver": "sat.solvers", "solver_names": "sat.solvers",
    "Tile": "model.tiling", "Tiling": "model.tiling", "verify_tiling": "certify.verify",
    "native_output": "running.stdout_guard", "reserve_stdout": "running.stdout_guard",
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
    "generate_placements", "iter_tilings", "load_instance", "native_output", "obstruction", "parse_instance",
    "parse_pieces", "piece_set", "make_solver", "reserve_stdout", "solve", "solver_names", "verify_tiling",
]

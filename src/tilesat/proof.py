"""Checkable proofs of "no tiling" and "no other tiling".

:func:`write_proof` writes into a directory the exact CNF that was proved
unsatisfiable (for ``unique``: the formula plus the blocking clause of the
found tiling, as a real clause), the DRAT proof from a proof-logging PySAT
solver, and ``proof.json`` saying what was proved.  :func:`verify_proof`
recompiles the CNF from the instance, confirms it is the one in the
directory, and checks the proof with ``dratify``, a DRAT checker that shares
no code with the solver.
"""

from __future__ import annotations

import json
from pathlib import Path

import dratify
from pysat.solvers import Solver

from . import __version__
from .dimacs import blocking_clause, instance_digest, read_dimacs, write_dimacs
from .errors import TilesatError
from .formula import compile_formula
from .instance import Instance, load_instance
from .packing import better_than, compile_packing
from .placements import generate_placements
from .tiling import Tiling
from .verify import verify_tiling

PROVER = "cadical195"  # proof-logging PySAT solvers: cadical*, glucose*, lingeling
FILES = ("formula.cnf", "proof.drat", "proof.json")


class ProofError(Exception):
    """A proof directory that does not check out."""


def check_proof_dir(directory: str | Path) -> Path:
    """A directory a proof may be written to: new, or without proof files."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise TilesatError(f"--proof {d}: exists and is not a directory")
    clash = [f for f in FILES if (d / f).exists()]
    if clash:
        raise TilesatError(f"{d / clash[0]} exists; give an empty or new directory for --proof")
    return d


def _claimed_clauses(instance: Instance, encoding: str, card: str, tiling: Tiling | None):
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding, card)
    extra = [blocking_clause(placements, tiling)] if tiling is not None else []
    return formula, extra


def _prove(d: Path, formula, extra: list[list[int]], meta: dict, prover: str) -> Path:
    """Prove ``formula`` + ``extra`` unsatisfiable; write the CNF, the DRAT proof and ``meta``."""
    d.mkdir(parents=True, exist_ok=True)
    with Solver(name=prover, with_proof=True) as solver:
        formula.add_to(solver.add_clause)
        for clause in extra:
            solver.add_clause(clause)
        if solver.solve():
            raise AssertionError("BUG: the formula to prove unsatisfiable has a model")
        proof = solver.get_proof()
    with open(d / "formula.cnf", "w", encoding="ascii") as f:
        write_dimacs(formula, f, extra_clauses=extra)
    (d / "proof.drat").write_text("\n".join(proof) + "\n", encoding="ascii")
    source = meta.pop("source")
    meta = {
        "tilesat": __version__,
        "instance": str(Path(source).resolve()) if source != "<string>" else None,
        **meta,
        "prover": prover,
    }
    (d / "proof.json").write_text(json.dumps(meta, indent=1) + "\n")
    return d


def write_proof(
    instance: Instance, directory: str | Path, verdict: str, tiling: Tiling | None,
    encoding: str, card: str, prover: str = PROVER,
) -> Path:
    """Prove ``none`` (no tiling) or ``unique`` (no tiling other than ``tiling``)."""
    if verdict not in ("none", "unique"):
        raise TilesatError(f"no proof for verdict {verdict!r}: only 'none' and 'unique' rest on unsatisfiability")
    d = check_proof_dir(directory)
    formula, extra = _claimed_clauses(instance, encoding, card, tiling if verdict == "unique" else None)
    return _prove(d, formula, extra, {
        **_identity(instance),
        "verdict": verdict,
        "claim": "the board has no tiling" if verdict == "none" else "the board has no tiling other than this one",
        "tiling": tiling.to_json() if verdict == "unique" else None,
        "encoding": formula.encoding,  # the concrete one ("auto" resolved)
        "card": card,
    }, prover)


def _identity(instance: Instance) -> dict:
    # pieces and wrap are kept so that an instance given with --pieces/--wrap
    # overrides is read back the same way
    return {"source": instance.source, "sha256": instance_digest(instance),
            "pieces": instance.pieces_spec(), "wrap": instance.board.wrap}


def _pack_claim(instance: Instance, objective: str, optimum: int | None, encoding: str, card: str):
    formula, goal = compile_packing(instance, objective, encoding, card)
    extra = better_than(formula, goal, optimum, card) if optimum is not None else []
    return formula, goal, extra


def write_pack_proof(instance: Instance, directory: str | Path, result, encoding: str, card: str,
                     prover: str = PROVER) -> Path:
    """Prove that no packing beats ``result.optimum`` (or, when there is no
    packing, that none keeps the piece counts)."""
    d = check_proof_dir(directory)
    formula, _, extra = _pack_claim(instance, result.objective, result.optimum, encoding, card)
    unit = "covered cells" if result.objective == "cells" else "pieces"
    claim = (f"no packing has more than {result.optimum} {unit}" if result.optimum is not None
             else "no packing keeps the piece counts")
    return _prove(d, formula, extra, {
        **_identity(instance),
        "verdict": "optimum",
        "claim": claim,
        "task": "pack",
        "objective": result.objective,
        "optimum": result.optimum,
        "packing": result.packing.to_json() if result.packing is not None else None,
        "encoding": formula.encoding,
        "card": card,
    }, prover)


def verify_proof(directory: str | Path, instance_path: str | Path | None = None) -> str:
    """Check a proof directory; return a one-line summary or raise ProofError."""
    d = Path(directory)
    missing = [f for f in FILES if not (d / f).is_file()]
    if missing:
        raise TilesatError(f"{d}: not a proof directory ({missing[0]} is missing)")
    try:
        meta = json.loads((d / "proof.json").read_text())
        path = instance_path or meta["instance"]
        encoding, card, verdict = meta["encoding"], meta["card"], meta["verdict"]
    except (ValueError, KeyError, TypeError) as e:
        raise ProofError(f"{d / 'proof.json'} is unreadable: {e}") from None
    if path is None:
        raise TilesatError("the proof does not name its instance file; pass --instance FILE")
    instance = load_instance(path, pieces=meta.get("pieces"), wrap=meta.get("wrap"))
    if instance_digest(instance) != meta.get("sha256"):
        raise ProofError(f"{path} is not the instance this proof was made for (sha256 differs)")
    if meta.get("task") == "pack":
        formula, goal, extra = _pack_claim(instance, meta["objective"], meta["optimum"], encoding, card)
        if meta["optimum"] is not None:
            # the optimum is claimed reached: the packing must be real and worth it
            packing = verify_tiling(instance, Tiling.from_json(meta["packing"]), partial=True)
            if goal.value_of(packing) != meta["optimum"]:
                raise ProofError(f"the packing in the proof is worth {goal.value_of(packing)}, not {meta['optimum']}")
    else:
        tiling = None
        if verdict == "unique":
            tiling = verify_tiling(instance, Tiling.from_json(meta["tiling"]))
        formula, extra = _claimed_clauses(instance, encoding, card, tiling)
    nvars, clauses = read_dimacs(d / "formula.cnf")
    expected = list(formula.clauses()) + extra
    if nvars != formula.nvars or clauses != expected:
        raise ProofError(f"{d / 'formula.cnf'} is not the CNF tilesat compiles from {path} ({encoding}, {card})")
    result = dratify.check_proof(dratify.parse_dimacs((d / "formula.cnf").read_text()), (d / "proof.drat").read_text())
    if not result.ok:
        raise ProofError(f"the DRAT proof does not check: {result.reason}")
    return f"proof verified: {meta['claim']} ({path}, {encoding}, {len(clauses)} clauses, {result.steps} proof steps)"

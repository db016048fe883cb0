"""Checkable proofs of "no tiling", "no other tiling" and "no better packing".

:func:`write_proof` writes into a directory the exact CNF that was proved
unsatisfiable (for ``unique``: the formula plus the blocking clause of the
found tiling, as a real clause), the DRAT proof from a proof-logging PySAT
solver, and ``proof.json`` saying what was proved.

:func:`verify_proof` trusts nothing it reads.  proof.json must have exactly
the fields tilesat writes, with the right types; from them it reloads the
instance, checks the stored tiling (or packing) with the independent checker,
recompiles the formula (plus the blocking or "better than" clauses), requires
``formula.cnf`` to be exactly that CNF, and checks the DRAT proof with
``dratify``, a checker that shares no code with the solver, against the
recompiled clauses.  What it then reports is a statement it derived from the
kind of proof and the instance, never the ``claim`` text of the file, which
must merely agree with it.

Two kinds of proof are ``proof.json`` alone, checked by additions with no
solver: a certificate of "no tiling" (:func:`write_certificate_proof`) and,
for a packing that meets the LP bound, a bound certificate
(:class:`~tilesat.certify.certificate.BoundCertificate`: LP duality) that no packing
is worth more than the stored one (:func:`write_pack_proof`).

Anything wrong, however odd, is a :class:`ProofError` (one line), never
another exception.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pysat.solvers import Solver

from .. import __version__
from ..running import memory
from ..certify.certificate import (
    BoundCertificate, Certificate, CertificateError, check_bound_certificate, check_certificate,
)
from .dimacs import blocking_clause, dimacs_nvars, parse_dimacs, write_dimacs
from .encodings import ENCODINGS
from ..errors import TilesatError
from ..running.inputs import read_bytes
from .formula import CARD_ENCODINGS, compile_formula
from ..model.instance import Instance, format_instance, instance_digest, load_instance, parse_instance
from .objectives import OBJECTIVES, better_than, compile_packing
from ..model.placements import generate_placements
from .symbreak import named_breaking
from ..model.tiling import Tiling
from ..certify.verify import problems

PROVER = "cadical195"  # proof-logging PySAT solvers: cadical*, glucose*, lingeling
FILES = ("formula.cnf", "proof.drat", "proof.json")
#: The instance, as tilesat writes instance files, kept beside the proof:
#: verify-proof reads the files of the proof's folder and nothing else
#: (proof.json's "instance" records where it came from; it is never opened).
INSTANCE = "instance.txt"
_LITERAL = re.compile(r"-?[0-9]{1,19}")

# proof.json's fields and their JSON types, per kind of proof (None: null)
_COMMON = {"tilesat": str, "instance": (str, None), "sha256": str, "pieces": str, "wrap": str,
           "verdict": str, "claim": str, "encoding": str, "card": str, "prover": str}
_FIELDS = {
    "tiling": {**_COMMON, "tiling": (list, None)},
    "pack": {**_COMMON, "task": str, "objective": str, "optimum": (int, None), "packing": (list, None)},
}
# a certificate proof is proof.json alone: the weights, checked by additions (no CNF, no solver)
_CERTIFICATE_FIELDS = {"tilesat": str, "instance": (str, None), "sha256": str, "pieces": str, "wrap": str,
                       "verdict": str, "claim": str, "certificate": dict}
# a packing proved by the LP bound: proof.json alone, with the packing and the LP-duality certificate
_BOUND_FIELDS = {"tilesat": str, "instance": (str, None), "sha256": str, "pieces": str, "wrap": str,
                 "verdict": str, "claim": str, "task": str, "objective": str, "optimum": int, "packing": list,
                 "bound_certificate": dict}


class ProofError(Exception):
    """A proof directory that does not check out, in one line."""


def check_proof_dir(directory: str | Path) -> Path:
    """A directory a proof may be written to: new, or without proof files."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise TilesatError(f"--proof {d}: exists and is not a directory")
    clash = [f for f in (*FILES, INSTANCE) if (d / f).exists()]
    if clash:
        raise TilesatError(f"{d / clash[0]} exists; give an empty or new directory for --proof")
    return d


# -- what a proof says ----------------------------------------------------------
# The claim stored in proof.json, and the statement verify-proof prints once it
# has checked everything; both come from the kind of proof, never from the file.

#: What a claim proved on a formula with lex-leader clauses (tilesat.sat.symbreak) adds.
BROKEN = " (proved on the symmetry-broken formula)"


def stored_claim(verdict: str, objective: str | None = None, optimum: int | None = None, broken: bool = False) -> str:
    if verdict == "none":
        return "the board has no tiling" + (BROKEN if broken else "")
    if verdict == "unique":
        return "the board has no tiling other than this one"
    if optimum is None:
        return "no packing keeps the piece counts" + (BROKEN if broken else "")
    return f"no packing has more than {optimum} {'covered cells' if objective == 'cells' else 'pieces'}" + (
        BROKEN if broken else "")


def _statement(verdict: str, objective: str | None = None, optimum: int | None = None, broken: list | None = None) -> str:
    if verdict == "unique":
        return "the board has exactly one tiling, the one in proof.json"
    if verdict == "optimum" and optimum is not None:
        text = f"{stored_claim(verdict, objective, optimum)}, and the packing in proof.json has {optimum}"
    else:
        text = stored_claim(verdict, objective, optimum)
    if broken:
        # sound: the symmetries were checked afresh, and lex-leader clauses keep
        # the least member of every class of tilings (tilesat.sat.symbreak)
        text += (f" (proved on the formula with lex-leader clauses for {len(broken)} symmetries, "
                 f"each checked: {', '.join(broken)})")
    return text


# -- writing --------------------------------------------------------------------

def _claimed_clauses(instance: Instance, encoding: str, card: str, tiling: Tiling | None,
                     symmetries: list[str] | None = None):
    placements = generate_placements(instance)
    formula = _broken(compile_formula(placements, encoding, card), symmetries)
    extra = [blocking_clause(placements, tiling)] if tiling is not None else []
    return formula, extra


def _broken(formula, symmetries: list[str] | None):
    """The formula with the lex-leader clauses of the named symmetries, each
    found in the instance's group and checked afresh (:func:`tilesat.sat.symbreak.named_breaking`)."""
    if not symmetries:
        return formula
    formula, why = named_breaking(formula, symmetries)
    if why is not None:
        raise ProofError(f"proof.json's symmetry_breaking: {why}")
    return formula


def _prove(instance: Instance, d: Path, formula, extra: list[list[int]], meta: dict, prover: str) -> Path:
    """Prove ``formula`` + ``extra`` unsatisfiable; write the CNF, the DRAT proof, ``meta`` and the instance."""
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
    (d / INSTANCE).write_text(format_instance(instance))
    return d


def write_proof(
    instance: Instance, directory: str | Path, verdict: str, tiling: Tiling | None,
    encoding: str, card: str, prover: str = PROVER, symmetries: list[str] | None = None,
) -> Path:
    """Prove ``none`` (no tiling) or ``unique`` (no tiling other than ``tiling``);
    ``symmetries`` (``none`` only): the names of the symmetries whose
    lex-leader clauses the proved formula holds (``--break-symmetry``)."""
    if verdict not in ("none", "unique"):
        raise TilesatError(f"no proof for verdict {verdict!r}: only 'none' and 'unique' rest on unsatisfiability")
    if symmetries and verdict != "none":
        raise TilesatError("symmetry breaking keeps one tiling per class: it proves 'none', never 'unique'")
    d = check_proof_dir(directory)
    formula, extra = _claimed_clauses(instance, encoding, card, tiling if verdict == "unique" else None, symmetries)
    return _prove(instance, d, formula, extra, {
        **_identity(instance),
        "verdict": verdict,
        "claim": stored_claim(verdict, broken=bool(symmetries)),
        "tiling": tiling.to_json() if verdict == "unique" else None,
        "encoding": formula.encoding,  # the concrete one ("auto" resolved)
        "card": card,
        **({"symmetry_breaking": list(symmetries)} if symmetries else {}),
    }, prover)


def write_certificate_proof(instance: Instance, directory: str | Path, cert: Certificate) -> Path:
    """Write proof.json with the certificate of "no tiling" (see
    :mod:`tilesat.certify.certificate`); it is checked again first."""
    d = check_proof_dir(directory)
    try:
        check_certificate(instance, cert)
    except CertificateError as e:
        raise AssertionError(f"BUG: a certificate that does not check was to be written: {e}") from None
    return _write_meta_only(instance, d, {"verdict": "none", "claim": stored_claim("none"), "certificate": cert.to_json()})


def _write_meta_only(instance: Instance, d: Path, fields: dict) -> Path:
    """A proof that is proof.json alone: the instance's identity, then ``fields``."""
    d.mkdir(parents=True, exist_ok=True)
    meta = _identity(instance)
    source = meta.pop("source")
    meta = {
        "tilesat": __version__,
        "instance": str(Path(source).resolve()) if source != "<string>" else None,
        **meta,
        **fields,
    }
    (d / "proof.json").write_text(json.dumps(meta) + "\n")
    (d / INSTANCE).write_text(format_instance(instance))
    return d


def _identity(instance: Instance) -> dict:
    # pieces and wrap are kept so that an instance given with --pieces/--wrap
    # overrides is read back the same way
    return {"source": instance.source, "sha256": instance_digest(instance),
            "pieces": instance.pieces_spec(), "wrap": instance.board.wrap}


def write_pack_proof(instance: Instance, directory: str | Path, result, encoding: str, card: str,
                     prover: str = PROVER) -> Path:
    """Prove that no packing beats ``result.optimum`` (or, when there is no
    packing, that none keeps the piece counts): with the result's bound
    certificate when it has one (the LP bound was met: proof.json alone, no
    SAT call), else with a DRAT proof."""
    d = check_proof_dir(directory)
    cert = getattr(result, "bound_certificate", None)
    if cert is not None and result.optimum is not None:
        return write_bound_proof(instance, d, result.objective, result.optimum, result.packing, cert)
    # the symmetries the run broke (pack --break-symmetry): the proof is over the same clauses
    symmetries = (result.stats.get("symmetry_breaking") or {}).get("symmetries") or None
    formula, goal = compile_packing(instance, result.objective, encoding, card)
    formula = _broken(formula, symmetries)
    extra = better_than(formula, goal, result.optimum, card) if result.optimum is not None else []
    return _prove(instance, d, formula, extra, {
        **_identity(instance),
        "verdict": "optimum",
        "claim": stored_claim("optimum", result.objective, result.optimum, broken=bool(symmetries)),
        "task": "pack",
        "objective": result.objective,
        "optimum": result.optimum,
        "packing": result.packing.to_json() if result.packing is not None else None,
        "encoding": formula.encoding,
        "card": card,
        **({"symmetry_breaking": list(symmetries)} if symmetries else {}),
    }, prover)


def write_bound_proof(instance: Instance, directory: str | Path, objective: str, optimum: int, packing: Tiling,
                      cert: BoundCertificate) -> Path:
    """Write proof.json with a packing worth ``optimum`` and the LP-duality
    certificate that no packing is worth more; both are checked again first."""
    d = check_proof_dir(directory)
    try:
        bound = check_bound_certificate(instance, cert, objective)
    except CertificateError as e:
        raise AssertionError(f"BUG: a bound certificate that does not check was to be written: {e}") from None
    wrong = problems(instance, packing, partial=True)
    if bound != optimum or _packing_value(packing, objective) != optimum or wrong:
        raise AssertionError(f"BUG: a bound proof of {optimum} with a certificate of {bound} and a packing "
                             f"worth {_packing_value(packing, objective)} ({wrong[:1]}) was to be written")
    return _write_meta_only(instance, d, {
        "verdict": "optimum",
        "claim": stored_claim("optimum", objective, optimum),
        "task": "pack",
        "objective": objective,
        "optimum": optimum,
        "packing": packing.to_json(),
        "bound_certificate": cert.to_json(),
    })


def _packing_value(packing: Tiling, objective: str) -> int:
    """Pieces, or covered cells (counted here, not by the packing module)."""
    return sum(len(t.cells) for t in packing) if objective == "cells" else len(packing)


# -- checking -------------------------------------------------------------------

def verify_proof(directory: str | Path, instance_path: str | Path | None = None) -> str:
    """Check a proof directory; return a one-line statement of what it proves,
    or raise :class:`ProofError` saying in one line why it does not check."""
    try:
        return _printable(_verify(Path(directory), instance_path))
    except ProofError as e:
        raise ProofError(_printable(str(e))) from None
    except MemoryError:
        raise ProofError("out of memory while checking it") from None
    except RecursionError:
        raise ProofError("it is nested too deeply to read") from None
    except Exception as e:  # the last resort: whatever was read, checking it must not crash
        raise ProofError(_printable(f"cannot check it: tilesat bug: {type(e).__name__}: {e}")) from e


def _printable(text: str, limit: int = 400) -> str:
    """One line, no control characters (text from the files may hold anything)."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _verify(d: Path, instance_path) -> str:
    instance_path = (Path(instance_path), True) if instance_path is not None else (d / INSTANCE, False)
    if (d / "proof.json").is_file() and not (d / "formula.cnf").exists() and not (d / "proof.drat").exists():
        meta = _parse_meta(_read_text(d / "proof.json"))
        if "certificate" in meta:
            return _verify_certificate(meta, instance_path)
        if "bound_certificate" in meta:
            return _verify_bound_certificate(meta, instance_path)
    meta = _read_meta(d)
    kind = "pack" if "task" in meta else "tiling"
    _check_fields(meta, kind)
    path, instance = _load(meta, instance_path)
    if kind == "pack":
        formula, extra = _pack_clauses(instance, meta)
    else:
        formula, extra = _tiling_clauses(instance, meta)
    nvars = dimacs_nvars(formula, extra)
    expected = list(formula.clauses()) + extra
    cnf_text = _read_text(d / "formula.cnf")
    try:
        found = parse_dimacs(cnf_text.splitlines(), "formula.cnf")
    except TilesatError as e:
        raise ProofError(str(e)) from None
    if found != (nvars, expected):
        raise ProofError(f"formula.cnf is not the CNF tilesat compiles from {path} "
                         f"({meta['encoding']}, {meta['card']}{', plus the proof.json tiling blocked' if meta['verdict'] == 'unique' else ''}"
                         f"{', with lex-leader clauses for ' + ', '.join(meta['symmetry_breaking']) if meta.get('symmetry_breaking') else ''})")
    steps = _check_drat(nvars, expected, _read_text(d / "proof.drat"))
    broken = meta.get("symmetry_breaking")
    return (f"proof verified: {_statement(meta['verdict'], meta.get('objective'), meta.get('optimum'), broken)} "
            f"({path}, {meta['encoding']}, {len(expected)} clauses, {steps} proof steps)")


def _read_text(path: Path) -> str:
    """A proof file's text (ASCII, as tilesat writes them): a regular file of
    the folder (not a link out of it), read up to what the memory allows."""
    if not os.path.lexists(path):
        if not path.parent.is_dir():
            raise ProofError(f"{path.parent}: no such directory")
        raise ProofError(f"{path.parent}: not a proof directory ({path.name} is missing)")
    if path.is_symlink() or not path.is_file():  # a FIFO or a device would be read for ever
        raise ProofError(f"{path}: not a regular file")
    limit = memory.memory_limit()[0] // 4  # held as bytes, as text, then parsed
    try:
        data = read_bytes(path, limit, what="proof file", regular_only=True,
                          why=f"a proof file is read whole, and the memory limit allows that much")
    except TilesatError as e:
        raise ProofError(str(e)) from None
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as e:
        raise ProofError(f"{path.name} is not text (byte {e.start} is {data[e.start]:#04x})") from None


def _read_meta(d: Path) -> dict:
    for name in FILES:  # every file, before reading any: a missing one is named first
        if not (d / name).exists():
            _read_text(d / name)
    return _parse_meta(_read_text(d / "proof.json"))


def _parse_meta(text: str) -> dict:
    def no_repeats(pairs):
        keys = [k for k, _ in pairs]
        repeated = {k for k in keys if keys.count(k) > 1}
        if repeated:
            raise ProofError(f"proof.json repeats the field {_quote(sorted(repeated)[0])}")
        return dict(pairs)

    try:
        meta = json.loads(text, object_pairs_hook=no_repeats,
                          parse_constant=lambda name: _fail(f"proof.json has {name}, which is not JSON"))
    except ValueError as e:
        raise ProofError(f"proof.json is not JSON: {e}") from None
    except RecursionError:
        raise ProofError("proof.json is nested too deeply to be a proof's") from None
    if not isinstance(meta, dict):
        raise ProofError("proof.json is not a JSON object")
    return meta


def _verify_certificate(meta: dict, instance_path) -> str:
    """A certificate proof: exactly its fields, the instance by its digest,
    and the weights summed over every placement (no solver, no LP)."""
    _check_exact_fields(meta, _CERTIFICATE_FIELDS)
    if meta["verdict"] != "none" or meta["claim"] != stored_claim("none"):
        raise ProofError(f"a certificate proves 'none'; proof.json has verdict {_quote(meta['verdict'])} and claim {_quote(meta['claim'])}")
    if not re.fullmatch(r"[0-9a-f]{64}", meta["sha256"]):
        raise ProofError(f"proof.json's sha256 {_quote(meta['sha256'])} is not a SHA-256 digest")
    path, instance = _load(meta, instance_path)
    try:
        cert = Certificate.from_json(meta["certificate"])
        check_certificate(instance, cert)
    except CertificateError as e:
        raise ProofError(f"the certificate does not check: {e}") from None
    kind = f"weights mod {cert.modulus}" if cert.modulus is not None else "weights"
    return (f"proof verified: {_statement('none')} ({path}, a certificate: {kind} on {len(cert.weights)} cells, "
            f"{len(cert.rules)} piece multipliers; {cert.sentence()})")


def _verify_bound_certificate(meta: dict, instance_path) -> str:
    """A packing proved by the LP bound: exactly its fields, the instance by
    its digest, the packing by the independent checker, and the certificate's
    weights summed over every placement (no solver, no LP): the packing's
    value must equal the bound floor(total / denominator)."""
    _check_exact_fields(meta, _BOUND_FIELDS)
    if meta["task"] != "pack" or meta["verdict"] != "optimum":
        raise ProofError(f"proof.json's task/verdict {_quote(meta['task'])}/{_quote(meta['verdict'])} is no kind of proof tilesat writes")
    objective, optimum = meta["objective"], meta["optimum"]
    if objective not in OBJECTIVES:
        raise ProofError(f"proof.json's objective {_quote(objective)} is not one of {', '.join(OBJECTIVES)}")
    if meta["claim"] != stored_claim("optimum", objective, optimum):
        raise ProofError(f"proof.json's claim {_quote(meta['claim'])} is not what this proof shows "
                         f"({stored_claim('optimum', objective, optimum)!r})")
    if not re.fullmatch(r"[0-9a-f]{64}", meta["sha256"]):
        raise ProofError(f"proof.json's sha256 {_quote(meta['sha256'])} is not a SHA-256 digest")
    path, instance = _load(meta, instance_path)
    packing = _checked(instance, meta["packing"], "packing", True)
    value = _packing_value(packing, objective)
    if value != optimum:
        raise ProofError(f"the packing in proof.json is worth {value}, not the optimum {optimum} it claims")
    try:
        cert = BoundCertificate.from_json(meta["bound_certificate"])
        bound = check_bound_certificate(instance, cert, objective)
    except CertificateError as e:
        raise ProofError(f"the bound certificate does not check: {e}") from None
    if bound != optimum:
        raise ProofError(f"the bound certificate proves at most {bound} (total {cert.total} / denominator "
                         f"{cert.denominator}), not the optimum {optimum}")
    return (f"proof verified: {_statement('optimum', objective, optimum)} ({path}, an LP-duality certificate: "
            f"weights on {len(cert.weights)} cells, {len(cert.rules)} piece multipliers; {cert.sentence(objective)})")


def _check_exact_fields(meta: dict, fields: dict) -> None:
    """Exactly these fields, each of its JSON type."""
    for name in fields:
        if name not in meta:
            raise ProofError(f"proof.json lacks the field {name!r}")
    for name in meta:
        if name not in fields:
            raise ProofError(f"proof.json has an unknown field {_quote(name)}")
    for name, types in fields.items():
        if not _is(meta[name], types):
            raise ProofError(f"proof.json's {name!r} is {_quote(meta[name])}, not what tilesat writes there")


def _fail(message: str):
    raise ProofError(message)


def _is(value, types) -> bool:
    types = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool):  # JSON true is no number
        return bool in types
    return any(value is None if t is None else isinstance(value, t) for t in types)


def _check_fields(meta: dict, kind: str) -> None:
    """Exactly the fields tilesat writes for this kind of proof, well typed,
    with values it could have written; the claim must be the kind's own."""
    # symmetry_breaking: written only when the proof's formula breaks symmetries
    broken = "symmetry_breaking" in meta
    _check_exact_fields(meta, {**_FIELDS[kind], **({"symmetry_breaking": list} if broken else {})})
    if broken:
        names = meta["symmetry_breaking"]
        if not names or not all(isinstance(n, str) for n in names):
            raise ProofError(f"proof.json's symmetry_breaking {_quote(names)} is not a list of symmetry names")
        if kind == "tiling" and meta["verdict"] != "none":
            raise ProofError("symmetry breaking keeps one tiling per class: a proof of 'unique' cannot use it")
    if kind == "pack":
        if meta["task"] != "pack" or meta["verdict"] != "optimum":
            raise ProofError(f"proof.json's task/verdict {_quote(meta['task'])}/{_quote(meta['verdict'])} is no kind of proof tilesat writes")
        if meta["objective"] not in OBJECTIVES:
            raise ProofError(f"proof.json's objective {_quote(meta['objective'])} is not one of {', '.join(OBJECTIVES)}")
        if meta["optimum"] is not None and meta["optimum"] < 0:
            raise ProofError(f"proof.json's optimum {meta['optimum']} is negative")
        if (meta["optimum"] is None) != (meta["packing"] is None):
            raise ProofError("proof.json must have both an optimum and its packing, or neither")
    else:
        if meta["verdict"] not in ("none", "unique"):
            raise ProofError(f"proof.json's verdict {_quote(meta['verdict'])} is not one tilesat proves ('none' or 'unique')")
        if (meta["verdict"] == "unique") != (meta["tiling"] is not None):
            raise ProofError("a proof of 'unique' carries its tiling and a proof of 'none' none; "
                             f"proof.json has verdict {meta['verdict']!r} and tiling {_quote(meta['tiling'])}")
    if meta["encoding"] not in ENCODINGS:  # the concrete one: never 'auto'
        raise ProofError(f"proof.json's encoding {_quote(meta['encoding'])} is not one of {', '.join(ENCODINGS)}")
    if meta["card"] not in CARD_ENCODINGS:
        raise ProofError(f"proof.json's card {_quote(meta['card'])} is not one of {', '.join(CARD_ENCODINGS)}")
    if not re.fullmatch(r"[0-9a-f]{64}", meta["sha256"]):
        raise ProofError(f"proof.json's sha256 {_quote(meta['sha256'])} is not a SHA-256 digest")
    claim = stored_claim(meta["verdict"], meta.get("objective"), meta.get("optimum"), broken)
    if meta["claim"] != claim:
        raise ProofError(f"proof.json's claim {_quote(meta['claim'])} is not what this proof shows ({claim!r})")


def _load(meta: dict, instance_path: tuple[Path, bool]) -> tuple[str, Instance]:
    """The instance: the proof folder's copy (or the file given with
    ``--instance``), read with the proof's piece and wrap settings, and
    confirmed by its digest.  The folder's copy is read as the other proof
    files are, and its content is never quoted."""
    path, given = instance_path
    if given:
        try:
            instance = load_instance(path, pieces=meta["pieces"], wrap=meta["wrap"])
        except TilesatError as e:
            raise ProofError(f"cannot load the instance: {e}") from None
        except (OSError, ValueError) as e:  # a path with a NUL byte, say
            raise ProofError(f"cannot load the instance {_quote(str(path))}: {e}") from None
    else:
        if not os.path.lexists(path):
            raise ProofError(f"{path.parent}: the proof folder has no {INSTANCE} (proofs of tilesat before 0.2 "
                             "kept none); pass --instance FILE")
        text = _read_text(path)
        try:
            instance = parse_instance(text, pieces=meta["pieces"], wrap=meta["wrap"], source=INSTANCE)
        except TilesatError:
            raise ProofError(f"{INSTANCE} in the proof folder is not an instance file tilesat wrote") from None
    if instance.pieces_spec() != meta["pieces"] or instance.board.wrap != meta["wrap"]:
        raise ProofError(f"proof.json's pieces/wrap {_quote(meta['pieces'])}/{_quote(meta['wrap'])} "
                         "are not written the way tilesat writes them")
    if instance_digest(instance) != meta["sha256"]:
        raise ProofError(f"{path} is not the instance this proof was made for (sha256 differs)")
    return str(path), instance


def _tiles(data: list, field: str, instance: Instance) -> Tiling:
    """A tiling from proof.json, read strictly: tiles {"piece": NAME, "cells":
    [[ROW, COL], ...]} with integer cells on the board."""
    rows, cols = instance.board.rows, instance.board.cols
    tiles = []
    for i, tile in enumerate(data):
        if not (isinstance(tile, dict) and tile.keys() in ({"piece", "cells"}, {"piece", "cells", "colours"})
                and isinstance(tile["piece"], str) and isinstance(tile["cells"], list)):
            raise ProofError(f"proof.json's {field}: tile {i} is not {{\"piece\": NAME, \"cells\": [[ROW, COL], ...]}}")
        for cell in tile["cells"]:
            if not (isinstance(cell, list) and len(cell) == 2 and all(_is(x, int) for x in cell)):
                raise ProofError(f"proof.json's {field}: tile {i} has the cell {_quote(cell)}, not [ROW, COL]")
            if not (0 <= cell[0] < rows and 0 <= cell[1] < cols):
                raise ProofError(f"proof.json's {field}: tile {i} has the cell {_quote(cell)}, off the {rows}x{cols} board")
        paint = tile.get("colours", [])
        if not (isinstance(paint, list) and all(_is(x, int) for x in paint) and len(paint) in (0, len(tile["cells"]))):
            raise ProofError(f"proof.json's {field}: tile {i} has colours {_quote(paint)}, not one number per cell")
        tiles.append(Tiling.from_json([tile]).tiles[0])  # a coloured piece's tile keeps its colours
    return Tiling(tuple(sorted(tiles)))


def _checked(instance: Instance, data: list, field: str, partial: bool) -> Tiling:
    tiling = _tiles(data, field, instance)
    wrong = problems(instance, tiling, partial)
    if wrong:
        raise ProofError(f"proof.json's {field} is not a {'packing' if partial else 'tiling'} of the instance: {wrong[0]}")
    return tiling


def _compiled(build):
    try:
        return build()
    except TilesatError as e:
        raise ProofError(f"cannot compile the instance: {e}") from None


def _tiling_clauses(instance: Instance, meta: dict):
    """The formula and, for ``unique``, the clause blocking the stored tiling
    (checked first with the independent checker)."""
    tiling = _checked(instance, meta["tiling"], "tiling", False) if meta["verdict"] == "unique" else None
    return _compiled(lambda: _claimed_clauses(instance, meta["encoding"], meta["card"], tiling,
                                              meta.get("symmetry_breaking")))


def _pack_clauses(instance: Instance, meta: dict):
    """The packing formula and "a packing worth more than the optimum"; the
    stored packing must be real and reach the optimum (checked before the
    optimum sizes any clauses)."""
    formula, goal = _compiled(lambda: compile_packing(instance, meta["objective"], meta["encoding"], meta["card"]))
    formula = _broken(formula, meta.get("symmetry_breaking"))
    optimum = meta["optimum"]
    if optimum is None:
        return formula, []
    packing = _checked(instance, meta["packing"], "packing", True)
    if goal.value_of(packing) != optimum:
        raise ProofError(f"the packing in proof.json is worth {goal.value_of(packing)}, not the optimum {optimum} it claims")
    return formula, _compiled(lambda: better_than(formula, goal, optimum, meta["card"]))


def _check_drat(nvars: int, clauses: list[list[int]], text: str) -> int:
    """Check the text DRAT proof against ``clauses`` (the recompiled ones, not
    the file's); return the number of steps checked."""
    # dratify reads "d1", "+1" or "1_0" too; tilesat's prover writes none of
    # them, so the text must be plain tokens: 'd' or an integer
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("c"):
            bad = next((tok for tok in line.split() if tok != "d" and not _LITERAL.fullmatch(tok)), None)
            if bad is not None:
                raise ProofError(f"proof.drat, line {n}: {_quote(bad[:20])} is neither a literal nor 'd'")
    import dratify  # the DRAT checker, for verify-proof alone

    formula = dratify.CNF(nvars)
    for clause in clauses:
        formula.add_dimacs(clause)
    try:
        steps = dratify.parse_proof(text)
        result = dratify.check_proof(formula, steps)
    except (ValueError, TypeError) as e:
        raise ProofError(f"proof.drat: {e}") from None
    if not result.ok:
        raise ProofError(f"the DRAT proof in proof.drat does not check: {result.reason}")
    return result.steps

"""verify-proof on damaged proof directories: one line, exit 1, never a
traceback and never "verified" for a proof that is not valid.

Whether a damaged proof is still valid is decided here by the test's own
criterion, not by asking verify-proof: proof.json and formula.cnf must say
the same as before the damage (read with this module's own parsers), and a
proof.drat whose steps changed is valid only if an independent RUP/RAT check
over PySAT's unit propagation confirms it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from typer.testing import CliRunner

from tilesat import check_unique, load_instance
from tilesat.cli import app
from tilesat.questions.pack import pack
from tilesat.sat.proof import FILES, ProofError, verify_proof, write_pack_proof, write_proof
from tilesat.certify.certificate import BoundCertificate
from test_certificates import bound_by_placements

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
runner = CliRunner()

# what each kind of proof must say when it verifies (derived, never read)
STATEMENTS = {
    "none": "the board has no tiling",
    "unique": "the board has exactly one tiling",
    "pack": "no packing has more than 4 pieces",
}


@pytest.fixture(scope="session")
def proofs(tmp_path_factory) -> dict[str, Path]:
    """One small valid proof of each kind, made once: "none" (an L4 3x4
    board, 81 DRAT steps: unit propagation alone does not refute it),
    "unique" (lpanel-8x8, 426 steps) and "pack" (T5 on 4x8, 385 steps)."""
    base = tmp_path_factory.mktemp("proofs")
    none_file, pack_file = base / "none-3x4.txt", base / "pack-4x8.txt"
    none_file.write_text("pieces: L4\n....\n....\n....\n")
    pack_file.write_text("pieces: T5\n" + "........\n" * 4)
    made = {}
    inst = load_instance(none_file)
    made["none"] = write_proof(inst, base / "none", "none", None, "auto", "seqcounter")
    inst = load_instance(INSTANCES / "lpanel-8x8.txt")
    result = check_unique(inst)
    assert result.verdict == "unique"
    made["unique"] = write_proof(inst, base / "unique", "unique", result.tilings[0], "auto", "seqcounter")
    inst = load_instance(pack_file)
    made["pack"] = write_pack_proof(inst, base / "pack", pack(inst), "auto", "seqcounter")
    for kind, d in made.items():
        assert verify_proof(d).startswith(f"proof verified: {STATEMENTS[kind]}")
    return made


# -- the independent criterion ------------------------------------------------

def strict_json(text: bytes):
    """proof.json as JSON, or None: UTF-8, no repeated keys."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError("repeated key")
        return dict(items)

    try:
        return json.loads(text.decode("utf-8"), object_pairs_hook=pairs)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def same_json(a, b) -> bool:
    """Equal values of equal types all the way down (1 is not 1.0, nor True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def json_intact(damaged: bytes, pristine: bytes) -> bool:
    """The same fields with the same values; only the informational
    'tilesat' (version) and 'prover' may be any other text, and 'instance'
    (where the instance came from: verify-proof reads the folder's copy)
    any text or null."""
    new, old = strict_json(damaged), strict_json(pristine)
    if not isinstance(new, dict) or new.keys() != old.keys():
        return False
    loose = ("tilesat", "prover")
    return (all(isinstance(new[k], str) for k in loose) and (new["instance"] is None or isinstance(new["instance"], str))
            and all(same_json(new[k], old[k]) for k in old if k not in (*loose, "instance")))


INT = re.compile(r"-?[0-9]+")


def parse_cnf(text: bytes):
    """(variables, clauses) of a DIMACS text, or None if it is malformed:
    ASCII, 'c' comment lines, one 'p cnf V C' line first, then integer
    literals within V ended by 0, exactly C clauses."""
    try:
        lines = text.decode("ascii").splitlines()
    except UnicodeDecodeError:
        return None
    header, clauses, current = None, [], []
    for line in lines:
        if line.startswith("c") or not line.strip():
            continue
        tokens = line.split()
        if tokens[0] == "p":
            if header is not None or clauses or current or len(tokens) != 4 or tokens[1] != "cnf" \
                    or not all(INT.fullmatch(t) and int(t) >= 0 for t in tokens[2:]):
                return None
            header = (int(tokens[2]), int(tokens[3]))
            continue
        if header is None or not all(INT.fullmatch(t) for t in tokens):
            return None
        for lit in map(int, tokens):
            if abs(lit) > header[0]:
                return None
            if lit:
                current.append(lit)
            else:
                clauses.append(current)
                current = []
    if header is None or current or len(clauses) != header[1]:
        return None
    return header[0], clauses


def parse_drat(text: bytes):
    """The steps ('a' or 'd', literals) of a text DRAT proof, or None."""
    try:
        lines = text.decode("ascii").splitlines()
    except UnicodeDecodeError:
        return None
    steps, kind, current = [], "a", None
    for line in lines:
        if line.startswith("c"):
            continue
        for tok in line.split():
            if tok == "d" and current is None:
                kind, current = "d", []
            elif INT.fullmatch(tok):
                current = [] if current is None else current
                if int(tok):
                    current.append(int(tok))
                else:
                    steps.append((kind, tuple(current)))
                    kind, current = "a", None
            else:
                return None
    return None if current is not None else steps


def refutes(clauses: list[list[int]], steps) -> bool:
    """An independent check of a DRAT refutation: each added lemma is RUP
    (unit propagation in PySAT's MiniSat over every clause so far; ignoring
    deletions only makes RUP easier) or RAT on its first literal against the
    clauses not deleted; the empty clause must be reached."""
    live = [list(c) for c in clauses]
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        def rup(lits) -> bool:
            ok, _ = solver.propagate(assumptions=[-x for x in lits])
            return not ok

        if rup([]):
            return True
        for kind, lits in steps:
            lits = list(dict.fromkeys(lits))
            if kind == "d":
                if len(lits) > 1:
                    key = sorted(lits)
                    for i, c in enumerate(live):
                        if sorted(set(c)) == key:
                            del live[i]
                            break
                continue
            if not rup(lits):
                if not lits:
                    return False
                pivot = lits[0]
                for d in live:
                    if -pivot in d:
                        resolvent = set(lits) | (set(d) - {-pivot})
                        if not any(-x in resolvent for x in resolvent) and not rup(sorted(resolvent)):
                            return False
            if not lits:
                return True
            solver.add_clause(lits)
            live.append(lits)
    return False


def criterion(damaged: Path, pristine: Path):
    """True: the proof is intact in substance; False: it cannot be valid;
    None: only the DRAT steps changed (decided by :func:`refutes`)."""
    if not all((damaged / f).is_file() for f in FILES):
        return False
    data = {f: (damaged / f).read_bytes() for f in FILES}
    if not json_intact(data["proof.json"], (pristine / "proof.json").read_bytes()):
        return False
    if parse_cnf(data["formula.cnf"]) != parse_cnf((pristine / "formula.cnf").read_bytes()):
        return False
    return True if parse_drat(data["proof.drat"]) == parse_drat((pristine / "proof.drat").read_bytes()) else None


# -- damage ---------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | st.sampled_from(["none", "unique", "optimum", "pack", "pairwise", "commander", "auto", "L4", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def damage(draw, kinds):
    """A function that damages a proof directory, and what it did."""
    what = draw(st.sampled_from(["truncate", "flip", "json-set", "json-delete", "json-reformat", "swap",
                                 "delete", "junk", "directory", "cnf-comment"]))
    name = draw(st.sampled_from(FILES))
    if what == "truncate":
        at = draw(st.floats(0, 1))
        return f"truncate {name} at {at:.3f}", lambda d: _write(d / name, (d / name).read_bytes()[: int(at * (d / name).stat().st_size)])
    if what == "flip":
        flips = draw(st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=3))

        def flip(d):
            data = bytearray((d / name).read_bytes())
            for at, byte in flips:
                data[int(at * len(data))] = byte
            _write(d / name, bytes(data))
        return f"flip {name} {flips}", flip
    if what in ("json-set", "json-delete"):
        key = draw(st.sampled_from(["instance", "sha256", "pieces", "wrap", "verdict", "claim", "tiling", "encoding",
                                    "card", "prover", "tilesat", "task", "objective", "optimum", "packing"])
                   | st.text(max_size=6))
        value = draw(json_values) if what == "json-set" else None

        def edit(d):
            meta = json.loads((d / "proof.json").read_text())
            if what == "json-set":
                meta[key] = value
            else:
                meta.pop(key, None)
            (d / "proof.json").write_text(json.dumps(meta))
        return f"{what} {key!r} {value!r}", edit
    if what == "json-reformat":  # harmless: the same JSON laid out otherwise
        def reformat(d):
            meta = json.loads((d / "proof.json").read_text())
            (d / "proof.json").write_text(json.dumps(meta, indent=3, sort_keys=True) + "\n\n")
        return "reformat proof.json", reformat
    if what == "swap":
        other = draw(st.sampled_from(sorted(kinds)))
        return f"swap {name} for the {other} proof's", lambda d: shutil.copy(kinds[other] / name, d / name)
    if what == "delete":
        return f"delete {name}", lambda d: (d / name).unlink()
    if what == "junk":
        junk = draw(st.binary(max_size=64))
        return f"{name} := {junk!r}", lambda d: _write(d / name, junk)
    if what == "directory":
        def to_dir(d):
            (d / name).unlink()
            (d / name).mkdir()
        return f"{name} becomes a directory", to_dir
    # harmless: a comment line more in the CNF
    return "comment in formula.cnf", lambda d: _write(d / "formula.cnf", b"c hello\n" + (d / "formula.cnf").read_bytes())


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


# -- the property ---------------------------------------------------------------

def _verdicts(d: Path):
    """verify-proof through the library and through the command line."""
    try:
        lib = (True, verify_proof(d))
    except ProofError as e:
        lib = (False, str(e))
    res = runner.invoke(app, ["verify-proof", str(d)])
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), (res.exception, res.output)
    return lib, res


def _check(d: Path, pristine: Path, kind: str, how: str) -> None:
    (ok, message), res = _verdicts(d)
    assert "bug" not in message.lower(), message  # nothing may reach verify_proof's last-resort handler
    assert res.exit_code == (0 if ok else 1), (how, res.output)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, (how, res.output)
    expected = criterion(d, pristine)
    if ok:
        assert expected is not False, (how, message)
        assert message.startswith(f"proof verified: {STATEMENTS[kind]}") and lines[0] == message, (how, message)
        if expected is None:  # the DRAT steps changed: it must still be a refutation
            cnf = parse_cnf((d / "formula.cnf").read_bytes())
            steps = parse_drat((d / "proof.drat").read_bytes())
            assert steps is not None and refutes(cnf[1], steps), (how, message)
    else:
        assert expected is not True, (how, message)
        assert lines[0] == f"proof REJECTED: {message}", (how, res.output)


@settings(max_examples=80)
@given(data=st.data())
def test_damaged_proofs_are_rejected_in_one_line(proofs, tmp_path_factory, data):
    kind = data.draw(st.sampled_from(sorted(proofs)), label="kind")
    how, apply = data.draw(damage(proofs), label="damage")
    d = tmp_path_factory.mktemp("damaged")
    shutil.copytree(proofs[kind], d, dirs_exist_ok=True)
    apply(d)
    _check(d, proofs[kind], kind, how)


@pytest.mark.parametrize("kind", ["none", "unique", "pack"])
def test_intact_proofs_verify_with_a_derived_statement(proofs, kind):
    (ok, message), res = _verdicts(proofs[kind])
    assert ok and res.exit_code == 0 and res.output.strip() == message
    assert message.startswith(f"proof verified: {STATEMENTS[kind]}")


def _damaged(proofs, tmp_path, kind="unique") -> Path:
    d = tmp_path / kind
    shutil.copytree(proofs[kind], d)
    return d


def _edit_json(d: Path, **changes) -> None:
    meta = json.loads((d / "proof.json").read_text())
    for key, value in changes.items():
        if value is KeyError:
            del meta[key]
        else:
            meta[key] = value
    (d / "proof.json").write_text(json.dumps(meta))


def _rejected(d: Path, *words: str) -> str:
    (ok, message), res = _verdicts(d)
    assert not ok and res.exit_code == 1, res.output
    assert res.output.strip().splitlines() == [f"proof REJECTED: {message}"]
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize("changes, words", [
    ({"claim": "NO TILING AT ALL"}, ["claim"]),  # an edited claim is never echoed as verified
    ({"claim": KeyError}, ["claim"]),
    ({"verdict": "multiple"}, ["verdict"]),
    ({"verdict": 7}, ["verdict"]),
    ({"instance": 5}, ["instance"]),
    ({"encoding": ["pairwise"]}, ["encoding"]),
    ({"encoding": "nosuch"}, ["encoding"]),
    ({"encoding": "auto"}, ["encoding"]),
    ({"card": None}, ["card"]),
    ({"pieces": None}, ["pieces"]),
    ({"wrap": 3}, ["wrap"]),
    ({"sha256": KeyError}, ["sha256"]),
    ({"tiling": None}, ["tiling"]),
    ({"tiling": [{"piece": "L4", "cells": [[0, 1.5]]}]}, ["tiling"]),
    ({"tiling": [{"piece": "L4", "cells": [[10**30, 0]]}]}, ["tiling"]),
    ({"tiling": "abc"}, ["tiling"]),
    ({"extra": 1}, ["extra"]),
])
def test_edited_json_fields_are_rejected(proofs, tmp_path, changes, words):
    d = _damaged(proofs, tmp_path)
    _edit_json(d, **changes)
    _rejected(d, *words)


@pytest.mark.parametrize("kind", ["none", "unique", "pack"])
def test_only_the_proof_folder_is_read_and_never_quoted(proofs, tmp_path, kind):
    # issue 33: proof.json's "instance" naming any readable file had verify-proof print its first line
    secret = tmp_path / "secret.txt"
    secret.write_text("pieces: L4\nTOP-SECRET-LINE\n")
    d = _damaged(proofs, tmp_path, kind)
    _edit_json(d, instance=str(secret))
    (ok, message), res = _verdicts(d)
    assert ok and message.startswith(f"proof verified: {STATEMENTS[kind]}"), message  # the folder's copy
    (d / "instance.txt").unlink()
    assert "TOP-SECRET" not in _rejected(d, "--instance")  # the named file is not the instance
    (d / "instance.txt").symlink_to(secret)
    _rejected(d, "instance.txt: not a regular file")  # nor is a link out of the folder followed
    (d / "instance.txt").unlink()
    (d / "instance.txt").write_text("pieces: L4\nTOP-SECRET-LINE\n")
    assert "TOP-SECRET" not in _rejected(d, "instance.txt")
    shutil.copy(proofs["none" if kind != "none" else "unique"] / "instance.txt", d / "instance.txt")
    _rejected(d, "sha256 differs")
    assert runner.invoke(app, ["verify-proof", str(d), "--instance", str(proofs[kind] / "instance.txt")]).exit_code == 0


@pytest.mark.parametrize("changes", [{"optimum": 10**40}, {"optimum": True}, {"optimum": None},
                                     {"packing": None}, {"objective": "cells"}, {"task": "solve"}])
def test_edited_pack_fields_are_rejected(proofs, tmp_path, changes):
    d = _damaged(proofs, tmp_path, "pack")
    _edit_json(d, **changes)
    _rejected(d)


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b"null", b"\xff\xfe\x00junk", b"[" * 100000],
                         ids=["empty", "open", "list", "null", "binary", "deep"])
def test_unreadable_json_is_rejected(proofs, tmp_path, content):
    d = _damaged(proofs, tmp_path)
    (d / "proof.json").write_bytes(content)
    _rejected(d, "proof.json")


@pytest.mark.parametrize("name", FILES)
def test_missing_or_odd_files_are_rejected(proofs, tmp_path, name):
    d = _damaged(proofs, tmp_path)
    (d / name).unlink()
    _rejected(d, name)
    (d / name).mkdir()
    _rejected(d, name)
    _rejected(tmp_path / "nowhere")


@pytest.mark.parametrize("name", FILES)
def test_a_fifo_or_a_device_is_not_read(proofs, tmp_path, name):
    # reading a FIFO would wait for ever, /dev/zero would fill the memory
    d = _damaged(proofs, tmp_path)
    (d / name).unlink()
    os.mkfifo(d / name)
    _rejected(d, f"{name}: not a regular file")
    (d / name).unlink()
    (d / name).symlink_to("/dev/zero")
    _rejected(d, f"{name}: not a regular file")


@pytest.mark.parametrize("kind", ["none", "unique", "pack"])
def test_damaged_drat_is_rejected(proofs, tmp_path, kind):
    d = _damaged(proofs, tmp_path, kind)
    proof = (d / "proof.drat").read_bytes()
    for content in (proof[: len(proof) // 2], proof[:-3], b"\x00\x01\x02\xff" * 50, b"1 2 x 0\n0\n", b"7 0"):
        (d / "proof.drat").write_bytes(content)
        _rejected(d, "proof.drat")


def test_another_instances_cnf_is_rejected(proofs, tmp_path):
    d = _damaged(proofs, tmp_path)
    shutil.copy(proofs["none"] / "formula.cnf", d / "formula.cnf")
    _rejected(d, "formula.cnf")
    (d / "formula.cnf").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    _rejected(d, "formula.cnf")


def test_pack_proof_declares_every_variable(proofs):
    # the 'better than the optimum' clauses have auxiliary variables
    # beyond the formula's; the header must count them
    parsed = parse_cnf((proofs["pack"] / "formula.cnf").read_bytes())
    assert parsed is not None
    nvars, clauses = parsed
    assert max(abs(x) for c in clauses for x in c) == nvars


def test_criterion_parsers_read_the_pristine_proofs(proofs):
    for d in proofs.values():
        assert criterion(d, d) is True
        cnf, steps = parse_cnf((d / "formula.cnf").read_bytes()), parse_drat((d / "proof.drat").read_bytes())
        assert refutes(cnf[1], steps)
        assert not refutes(cnf[1], steps[: len(steps) // 2])


# -- a packing proved by the LP bound: proof.json alone, with a bound certificate --------

@pytest.fixture(scope="session")
def bound_proof(tmp_path_factory) -> Path:
    """T4:2 + O4 on 2x6: two pieces at most, proved by cell weights and a
    negative multiplier on T4's count (denominator 6); no CNF, no DRAT."""
    base = tmp_path_factory.mktemp("bound")
    path = base / "t4-o4-2x6.txt"
    path.write_text("pieces: T4:2, O4\n......\n......\n")
    inst = load_instance(path)
    result = pack(inst)
    assert result.bound_certificate is not None and result.bound_certificate.rules
    d = write_pack_proof(inst, base / "proof", result, "auto", "seqcounter")
    assert sorted(f.name for f in d.iterdir()) == ["instance.txt", "proof.json"]
    return d


def bound_criterion(damaged: Path, pristine: Path) -> bool:
    """Whether the damaged bound proof is still valid, by the test's own
    reading: proof.json alone, the same fields (the version any text), and
    a certificate that is the pristine one or, read strictly here, bounds
    every placement (over the placement generator's placements) by the optimum."""
    if any((damaged / f).exists() for f in FILES if f != "proof.json") or not (damaged / "proof.json").is_file():
        return False
    new, old = strict_json((damaged / "proof.json").read_bytes()), strict_json((pristine / "proof.json").read_bytes())
    if not isinstance(new, dict) or new.keys() != old.keys() or not isinstance(new["tilesat"], str):
        return False
    if not all(same_json(new[k], old[k]) for k in old if k not in ("tilesat", "bound_certificate", "instance")):
        return False
    if not (new["instance"] is None or isinstance(new["instance"], str)):
        return False
    if (damaged / "instance.txt").read_bytes() != (pristine / "instance.txt").read_bytes():
        return False
    cert = new["bound_certificate"]
    if same_json(cert, old["bound_certificate"]):
        return True

    def integer(x):
        return type(x) is int

    if not (isinstance(cert, dict) and cert.keys() == {"weights", "rules", "denominator", "total"}):
        return False
    weights, rules = cert["weights"], cert["rules"]
    if not (isinstance(weights, list) and all(isinstance(w, list) and len(w) == 3 and all(map(integer, w)) for w in weights)):
        return False
    if len({(r, c) for r, c, _ in weights}) < len(weights):
        return False
    if not (isinstance(rules, dict) and all(integer(v) for v in rules.values())):
        return False
    if not (integer(cert["denominator"]) and integer(cert["total"])):
        return False
    inst = load_instance(damaged / "instance.txt", pieces=new["pieces"], wrap=new["wrap"])
    ours = BoundCertificate({(r, c): w for r, c, w in weights}, dict(rules), cert["denominator"], cert["total"])
    return bound_by_placements(inst, ours, new["objective"]) == new["optimum"]


@st.composite
def bound_damage(draw):
    """A damage to a bound proof's directory, and what it did."""
    what = draw(st.sampled_from(["weight", "weight+total", "rule", "total", "denominator", "cert-set", "json-set",
                                 "json-delete", "flip", "truncate", "add-file"]))
    if what in ("weight", "weight+total", "rule", "total", "denominator"):
        deltas = [1, 1, 2, -1] if what == "weight+total" else [x for x in range(-12, 13) if x]
        delta = draw(st.sampled_from(deltas))
        pick = draw(st.integers(0, 10**6))

        def edit(d):
            meta = json.loads((d / "proof.json").read_text())
            cert = meta["bound_certificate"]
            if what.startswith("weight"):
                cert["weights"][pick % len(cert["weights"])][2] += delta
                if what == "weight+total":  # consistent: valid while the total stays below D x 3
                    cert["total"] += delta
            elif what == "rule":
                name = sorted(cert["rules"])[pick % len(cert["rules"])]
                cert["rules"][name] += delta
            else:
                cert[what] += delta
            (d / "proof.json").write_text(json.dumps(meta))
        return f"{what} += {delta} (pick {pick})", edit
    if what in ("cert-set", "json-set", "json-delete"):
        fields = ["weights", "rules", "denominator", "total"] if what == "cert-set" else [
            "instance", "sha256", "pieces", "wrap", "verdict", "claim", "tilesat", "task", "objective", "optimum",
            "packing", "bound_certificate", "encoding"]
        key = draw(st.sampled_from(fields))
        value = draw(json_values)

        def edit(d):
            meta = json.loads((d / "proof.json").read_text())
            target = meta["bound_certificate"] if what == "cert-set" else meta
            if what == "json-delete":
                target.pop(key, None)
            else:
                target[key] = value
            (d / "proof.json").write_text(json.dumps(meta))
        return f"{what} {key!r} {value!r}", edit
    if what == "flip":
        at, byte = draw(st.floats(0, 1, exclude_max=True)), draw(st.integers(0, 255))

        def flip(d):
            data = bytearray((d / "proof.json").read_bytes())
            data[int(at * len(data))] = byte
            _write(d / "proof.json", bytes(data))
        return f"flip proof.json at {at:.3f} to {byte}", flip
    if what == "truncate":
        at = draw(st.floats(0, 1, exclude_max=True))
        return f"truncate at {at:.3f}", lambda d: _write(d / "proof.json", (d / "proof.json").read_bytes()[: int(at * (d / "proof.json").stat().st_size)])
    name = draw(st.sampled_from(["formula.cnf", "proof.drat"]))
    return f"add {name}", lambda d: _write(d / name, b"p cnf 1 1\n1 0\n")


@settings(max_examples=80)
@given(data=st.data())
def test_damaged_bound_proofs_are_judged_by_their_substance(bound_proof, tmp_path_factory, data):
    how, apply = data.draw(bound_damage(), label="damage")
    d = tmp_path_factory.mktemp("bound-damaged")
    shutil.copytree(bound_proof, d, dirs_exist_ok=True)
    apply(d)
    (ok, message), res = _verdicts(d)
    assert "bug" not in message.lower(), (how, message)
    assert res.exit_code == (0 if ok else 1), (how, res.output)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, (how, res.output)
    assert ok == bound_criterion(d, bound_proof), (how, message)
    event("still valid" if ok else "rejected")
    if ok:
        assert lines[0] == message and message.startswith("proof verified: no packing has more than 2 pieces")
    else:
        assert lines[0] == f"proof REJECTED: {message}", (how, res.output)


def test_intact_bound_proof_verifies(bound_proof):
    (ok, message), res = _verdicts(bound_proof)
    assert ok and res.exit_code == 0 and res.output.strip() == message
    assert message.startswith("proof verified: no packing has more than 2 pieces, and the packing in proof.json has 2")
    assert bound_criterion(bound_proof, bound_proof)


def test_a_bound_proof_with_slack_to_spare_still_verifies(bound_proof, tmp_path):
    """A larger weight with the total raised alike still bounds every
    placement, and floor(total / D) is still 2: a valid proof, accepted."""
    d = tmp_path / "slack"
    shutil.copytree(bound_proof, d)
    meta = json.loads((d / "proof.json").read_text())
    cert = meta["bound_certificate"]
    assert (cert["total"] + 1) // cert["denominator"] == 2
    cert["weights"][0][2] += 1
    cert["total"] += 1
    meta["tilesat"] = "0.0.0-elsewhere"
    (d / "proof.json").write_text(json.dumps(meta))
    assert bound_criterion(d, bound_proof)
    assert verify_proof(d).startswith("proof verified: no packing has more than 2 pieces")


@pytest.mark.parametrize("edit, words", [
    (lambda c: c.update(denominator=0), ["denominator"]),
    (lambda c: c.update(denominator=True), ["denominator"]),
    (lambda c: c.update(denominator=2.0), ["denominator"]),
    (lambda c: c.update(total=c["total"] + 0.5), ["total"]),
    (lambda c: c.pop("denominator"), ["denominator"]),
    (lambda c: c.update(extra=1), ["fields"]),
    (lambda c: c["weights"].append([0, 0, 0]) or c["weights"].append([0, 0, 1]), ["two weights"]),
    (lambda c: c["weights"].append([5, 0, 1]) or c.update(total=c["total"] + 1), ["not an open cell"]),
    (lambda c: c["weights"][0].__setitem__(2, -c["weights"][0][2]) or c.update(total=0), ["negative"]),
    (lambda c: c["rules"].update(X5=-1), ["X5"]),
    (lambda c: c["rules"].update(O4=1), ["no maximum"]),  # O4 has no maximum count: mu > 0 bounds nothing
    (lambda c: c.update(weights={}), ["weights"]),
], ids=["D=0", "D=true", "D=2.0", "total-float", "no-D", "extra", "repeated-cell", "off-board", "negative",
        "unknown-piece", "unbounded-positive", "weights-not-a-list"])
def test_malformed_bound_certificates_are_rejected(bound_proof, tmp_path, edit, words):
    d = _damaged({"bound": bound_proof}, tmp_path, "bound")
    meta = json.loads((d / "proof.json").read_text())
    edit(meta["bound_certificate"])
    (d / "proof.json").write_text(json.dumps(meta))
    message = _rejected(d, "bound certificate", *words)
    assert not bound_criterion(d, bound_proof), message

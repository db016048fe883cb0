"""Maximum packings: known optima, every method and encoding against a
brute-force packer, proofs checked by dratify, the command line."""

import json
import shutil

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, brute_force_max_packing
from test_cli import run
from test_property import _args, instances

from tilesat import Board, Instance, load_instance, parse_instance, parse_pieces, verify_tiling
from tilesat.sat.encodings import ENCODINGS
from tilesat.errors import VerificationError
from tilesat.sat.objectives import better_than, compile_packing
from tilesat.questions.pack import pack
from tilesat.sat.proof import ProofError, verify_proof, write_pack_proof


def square(n, piece):
    return Instance(Board.rectangle(n, n), parse_pieces(piece))


@pytest.mark.parametrize("piece,optimum", [("X5", 8), ("T5", 10), ("U5", 11)])
@pytest.mark.parametrize("method", ["incremental", "rc2"])
def test_8x8_pentomino_packing_row(piece, optimum, method, tmp_path):
    # the published 8x8 row: X 8, T 10, U 11
    path = tmp_path / "board.txt"
    path.write_text(f"pieces: {piece}\n" + "........\n" * 8)
    inst = load_instance(path)
    result = pack(inst, method=method)
    assert result.proved and result.optimum == optimum
    verify_tiling(inst, result.packing, partial=True)
    assert len(result.packing) == optimum
    assert result.steps[-1] == optimum and result.steps == sorted(set(result.steps))
    # the proof that optimum + 1 copies do not fit, checked by dratify
    write_pack_proof(inst, tmp_path / "proof", result, "commander", "seqcounter")
    meta = json.loads((tmp_path / "proof" / "proof.json").read_text())
    assert meta["claim"] == f"no packing has more than {optimum} pieces"
    assert verify_proof(tmp_path / "proof").startswith(f"proof verified: no packing has more than {optimum} pieces")


def test_packing_proof_round_trip_and_tampering(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("pieces: T5\n" + "........\n" * 8)
    inst = load_instance(path)
    result = pack(inst)
    write_pack_proof(inst, tmp_path / "p", result, "commander", "seqcounter")
    assert verify_proof(tmp_path / "p").startswith("proof verified: no packing has more than 10 pieces")
    meta = json.loads((tmp_path / "p" / "proof.json").read_text())
    meta["optimum"] = 9  # claims a weaker bound than the packing it shows
    (tmp_path / "p" / "proof.json").write_text(json.dumps(meta))
    with pytest.raises(ProofError):
        verify_proof(tmp_path / "p")


def test_one_more_is_unsatisfiable_but_the_optimum_is_not():
    from pysat.solvers import Solver

    inst = square(8, "T5")
    formula, goal = compile_packing(inst)
    for value, sat in ((9, True), (10, False)):  # "more than 9" has a model, "more than 10" none
        with Solver(name="glucose4", bootstrap_with=list(formula.clauses()) + better_than(formula, goal, value)) as s:
            assert s.solve() == sat


@st.composite
def small_instances(draw):
    inst = draw(instances())
    if inst.board.rows * inst.board.cols > 20:
        reject()
    return inst


def oracle_optimum(instance, objective):
    try:
        return brute_force_max_packing(*_args(instance), objective=objective)
    except TooHard:
        reject()


@settings(max_examples=60)
@given(small_instances(), st.sampled_from(["pieces", "cells"]), st.sampled_from(list(ENCODINGS)))
def test_every_method_finds_the_brute_force_optimum(instance, objective, encoding):
    truth = oracle_optimum(instance, objective)
    for method, solver in (("incremental", "cadical195"), ("incremental", "glucose4"), ("rc2", "glucose4")):
        if method == "rc2" and encoding == "native":
            continue  # RC2 needs a CNF: refused in one line (tests/test_native_card.py)
        result = pack(instance, objective, method, encoding=encoding, solver=solver)
        assert result.proved
        assert result.optimum == truth, (method, solver)
        if truth is not None:
            verify_tiling(instance, result.packing, partial=True)
            value = len(result.packing) if objective == "pieces" else sum(len(t.cells) for t in result.packing)
            assert value == truth


def test_partial_checker_rejects_overlaps():
    inst = parse_instance("pieces: I2\n...\n")
    from tilesat.model.tiling import Tile, Tiling

    ok = Tiling((Tile("I2", ((0, 0), (0, 1))),))
    verify_tiling(inst, ok, partial=True)
    with pytest.raises(VerificationError):
        verify_tiling(inst, ok)  # not a tiling: (0, 2) is uncovered
    bad = Tiling((Tile("I2", ((0, 0), (0, 1))), Tile("I2", ((0, 1), (0, 2)))))
    with pytest.raises(VerificationError):
        verify_tiling(inst, bad, partial=True)


@pytest.fixture
def t8(tmp_path):
    p = tmp_path / "t8.txt"
    p.write_text("; 8x8, T-pentominoes\npieces: T5\n" + "........\n" * 8)
    return p


def test_cli_pack_text_and_proof(t8, tmp_path):
    res = run("pack", t8, "--proof", tmp_path / "proof")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("optimum: 10 pieces; 11 is impossible")
    assert lines[1].startswith("a packing with 10 pieces (10 x T5), 50 of 64 cells covered")
    grid = lines[2:10]
    assert sum(row.count(".") for row in grid) == 14
    assert "proof written to" in res.output
    # the LP bound (12) is not met: the DRAT proof, as before
    assert sorted(f.name for f in (tmp_path / "proof").iterdir()) == ["formula.cnf", "instance.txt", "proof.drat", "proof.json"]
    res = run("verify-proof", tmp_path / "proof")
    assert res.exit_code == 0 and "no packing has more than 10 pieces" in res.output
    res = run("pack", t8, "--proof", tmp_path / "proof")  # never overwrite a proof
    assert res.exit_code == 2 and "exists" in res.output


def test_cli_pack_json_cells_rc2(t8):
    res = run("pack", t8, "--json", "--objective", "cells", "--method", "rc2")
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["optimum"] == 50 and data["proved"] is True and data["objective"] == "cells"
    assert sum(len(t["cells"]) for t in data["packing"]) == 50


def test_cli_pack_no_packing_and_bad_options(t8):
    res = run("pack", t8, "--pieces", "X5:14..")
    assert res.exit_code == 3 and res.output.startswith("none: no packing keeps the piece counts")
    for args in (["--objective", "area"], ["--method", "greedy"], ["--solver", "nope"], ["--card", "x"]):
        res = run("pack", t8, *args)
        assert res.exit_code == 2 and res.output.startswith("error: "), args
        assert len(res.output.strip().splitlines()) == 1


def test_cli_pack_interrupted_reports_lower_bound(t8, monkeypatch):
    import tilesat.questions.pack as packing

    real = packing._decode
    calls = []

    def decode_then_interrupt(formula, model):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(formula, model)

    monkeypatch.setattr(packing, "_decode", decode_then_interrupt)
    res = run("pack", t8)
    assert res.exit_code == 130
    assert res.output.startswith("at least ") and "not proved optimal" in res.output


def test_packing_table_script_8x8_row():
    # the whole published 8x8 row, through the benchmark script itself
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "packing_table.py"
    out = subprocess.run([sys.executable, str(script), "--sizes", "8"], capture_output=True, text=True, check=True).stdout
    header = next(line for line in out.splitlines() if line.startswith("| n |"))
    row = next(line for line in out.splitlines() if line.startswith("| 8 |"))
    got = dict(zip(header.strip("|").split("|")[1:-1], row.strip("|").split("|")[1:-1]))
    got = {k.strip(): int(v) for k, v in got.items()}
    assert got == {"I": 12, "L": 12, "N": 12, "P": 12, "V": 12, "W": 12, "Y": 12, "F": 11, "U": 11, "T": 10, "Z": 10, "X": 8}


@pytest.fixture
def v5(tmp_path):
    p = tmp_path / "v5.txt"
    p.write_text("; 5x5, V-pentominoes: the LP bound (4) is tight\npieces: V5\n" + ".....\n" * 5)
    return p


def test_cli_pack_proof_is_a_bound_certificate_when_the_lp_bound_is_met(v5, tmp_path):
    res = run("pack", v5, "--proof", tmp_path / "proof")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("optimum: 4 pieces; 5 is impossible (proved: the LP relaxation's bound)")
    assert sorted(f.name for f in (tmp_path / "proof").iterdir()) == ["instance.txt", "proof.json"]  # no SAT call, no DRAT
    meta = json.loads((tmp_path / "proof" / "proof.json").read_text())
    assert meta["optimum"] == 4 and len(meta["packing"]) == 4 and "encoding" not in meta
    cert = meta["bound_certificate"]
    assert set(cert) == {"weights", "rules", "denominator", "total"} and cert["total"] // cert["denominator"] == 4
    res = run("verify-proof", tmp_path / "proof")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("proof verified: no packing has more than 4 pieces, and the packing in proof.json has 4")
    assert "LP-duality certificate" in res.output
    # --json carries the same certificate
    data = json.loads(run("pack", v5, "--json").output)
    assert data["lp_bound"] == 4 and data["bound_certificate"] == cert

    def damaged(name, edit):
        d = tmp_path / name
        d.mkdir()
        bad = json.loads(json.dumps(meta))
        edit(bad)
        (d / "proof.json").write_text(json.dumps(bad))
        shutil.copy(tmp_path / "proof" / "instance.txt", d / "instance.txt")
        res = run("verify-proof", d)
        assert res.exit_code == 1, (name, res.output)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("proof REJECTED: "), (name, res.output)
        return lines[0]

    def weight(m):
        m["bound_certificate"]["weights"][0][2] += 1

    def weight_and_total(m):  # consistent, but every V over that cell... one cell less: a V misses its two
        m["bound_certificate"]["weights"][0][2] -= 1
        m["bound_certificate"]["total"] -= 1

    def total(m):
        m["bound_certificate"]["total"] += 2

    def denominator(m):
        m["bound_certificate"]["denominator"] = 3

    def optimum(m):
        m["optimum"] = 3
        m["claim"] = "no packing has more than 3 pieces"

    def packing(m):
        m["packing"] = m["packing"][:3]

    assert "bound certificate does not check" in damaged("weight", weight)
    assert "< 2" in damaged("weight_and_total", weight_and_total)
    assert "total" in damaged("total", total)
    assert "does not check" in damaged("denominator", denominator)
    assert "worth 4, not the optimum 3" in damaged("optimum", optimum)
    assert "worth 3, not the optimum 4" in damaged("packing", packing)


def test_cli_pack_bound_proof_on_a_wrapped_board_with_counts(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("pieces: T4:2, O4\n......\n......\n")
    res = run("pack", p, "--proof", tmp_path / "proof", "--json")
    assert res.exit_code == 0, res.output
    cert = json.loads(res.output)["bound_certificate"]
    assert cert["rules"]["T4"] < 0  # a negative multiplier, counted at T4's minimum (2)
    assert run("verify-proof", tmp_path / "proof").exit_code == 0
    w = tmp_path / "w.txt"
    w.write_text("pieces: V5\nwrap: both\n.....\n.....\n.....\n.....\n.....\n")
    res = run("pack", w, "--proof", tmp_path / "wp")
    assert res.exit_code == 0 and res.output.startswith("optimum: 5 pieces"), res.output
    res = run("verify-proof", tmp_path / "wp")
    assert res.exit_code == 0 and "LP-duality certificate" in res.output, res.output


def test_a_met_bound_without_a_certificate_falls_back_to_drat(v5, tmp_path):
    """Should no integer scaling of the duals check, the proof is the DRAT one."""
    import dataclasses

    inst = load_instance(v5)
    result = pack(inst)
    assert result.stats["lp_bound_met"] and result.bound_certificate is not None
    write_pack_proof(inst, tmp_path / "cert", result, "auto", "seqcounter")
    assert sorted(f.name for f in (tmp_path / "cert").iterdir()) == ["instance.txt", "proof.json"]
    write_pack_proof(inst, tmp_path / "drat", dataclasses.replace(result, bound_certificate=None), "auto", "seqcounter")
    assert sorted(f.name for f in (tmp_path / "drat").iterdir()) == ["formula.cnf", "instance.txt", "proof.drat", "proof.json"]
    for d in ("cert", "drat"):
        assert verify_proof(tmp_path / d).startswith("proof verified: no packing has more than 4 pieces")

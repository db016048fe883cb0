"""pack, compare, info, export, export-family, decode, verify-proof, generate,
fuzz, tromino, pieces and explain as real processes."""

import json

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from .process import INSTANCES, document, expect, interrupted, tilesat, verdict

PACK_KEYS = ("optimum", "objective", "packing", "proved", "stopped", "steps", "lp_bound", "bound_certificate", "stats")
OPTIMUM = r"optimum: \d+ (pieces|covered cells); \d+ is impossible \(proved: .+\)$"


# --- pack ---------------------------------------------------------------------

def test_pack_text_proved_by_sat_the_readme_example(boards):
    """T5 on 8x8: HiGHS solves the packing LP (bound 12), SAT proves 10."""
    lines = verdict(tilesat("pack", boards / "t8.txt"), OPTIMUM, status=0)
    assert lines[:2] == ["optimum: 10 pieces; 11 is impossible (proved: cadical195, incremental)",
                         "a packing with 10 pieces (10 x T5), 50 of 64 cells covered"]
    assert len(lines) == 2 + 8


def test_pack_json_proved_by_the_lp_bound(boards):
    data = document(tilesat("pack", boards / "v5.txt", "--json"), PACK_KEYS, status=0)
    assert (data["optimum"], data["proved"], data["lp_bound"]) == (4, True, 4)
    assert data["bound_certificate"]["denominator"] == 2


@pytest.mark.parametrize("args", [["--method", "rc2"], ["--jobs", "2"], ["--objective", "cells"]])
def test_pack_json_other_paths(boards, args):
    data = document(tilesat("pack", boards / "t8.txt", *args, "--json"), PACK_KEYS, status=0)
    assert data["proved"] and data["optimum"] == (50 if "cells" in args else 10)


def test_pack_json_timeout(boards):
    data = document(tilesat("pack", boards / "v16.txt", "--timeout", "1.5", "--json"), PACK_KEYS, status=124)
    assert data["stopped"] == "timeout" and not data["proved"]


def test_pack_interrupted_shows_the_best_packing(boards):
    run = interrupted("pack", boards / "v16.txt")
    verdict(run, r"(at least \d+ pieces \(interrupted: not proved optimal\)|interrupted before the first packing)", status=130)
    assert run.err == "", run.describe()


# --- compare ------------------------------------------------------------------

def test_compare_text_and_its_json_file(tmp_path):
    out = tmp_path / "runs.json"
    run = tilesat("compare", INSTANCES / "lpanel-6x6.txt", INSTANCES / "lpanel-4x8-multiple.txt",
                  "--encodings", "pairwise,ladder", "--solvers", "cadical195", "--json", out)
    lines = verdict(run, r"tilesat compare --task unique \(1 run each\)$", status=0)
    assert lines[-1] == "all 4 finished runs agree" and run.err == ""
    runs = json.loads(out.read_text())["runs"]
    assert sorted(r["verdict"] for r in runs) == ["multiple", "multiple", "unique", "unique"]


def test_compare_timeout_per_run(boards):
    run = tilesat("compare", boards / "mut16.txt", "--encodings", "pairwise", "--solvers", "cadical195",
                  "--timeout", "1")
    lines = verdict(run, r"tilesat compare", status=0)
    assert lines[-1] == "all 0 finished runs agree; 1 timed out"


# --- info, pieces, tromino ----------------------------------------------------

def test_info_text():
    lines = verdict(tilesat("info", INSTANCES / "lpanel-6x6.txt"), r"board: 6 x 6, wrap none, 24 open cells, 12 blocked$",
                    status=0)
    assert any(line.startswith("certificate check (LP) before a search: skipped") for line in lines)


def test_info_json_where_the_lp_runs(boards):
    data = document(tilesat("info", boards / "mut16.txt", "--json"),
                    ("board", "pieces", "placements", "encodings", "checks", "certificate_check"), status=0)
    assert data["certificate_check"]["runs"] and data["placements"] == 476


def test_pieces_text_the_readme_picture():
    lines = verdict(tilesat("pieces", "tetriamonds", "--grid", "triangle"), r"tri4_0 \(4\)   tri4_1 \(4\)   tri4_2 \(4\)$",
                    status=0)
    assert lines[1:3] == ["  ________     ____       ________", " /       /    /    \\      \\      /"]


def test_pieces_shapes():
    lines = verdict(tilesat("pieces", "pentominoes", "--shapes"), r"F5 +5  \.##/##\./\.#\.$", status=0)
    assert len(lines) == 12


def test_tromino_text_the_readme_board():
    run = tilesat("tromino", "3", "--hole", "2,5")
    lines = verdict(run, r" 6  6 10 10  7  7 11 11$", status=0)
    assert lines[2] == "14  2 18 18 15  X  3 19" and len(lines) == 8
    assert run.err.startswith("8x8 board, hole at (2, 5), 21 trominoes by golomb, verified")


def test_tromino_by_sat():
    lines = verdict(tilesat("tromino", "3", "--method", "sat", "--hole", "0,0"), r" X ", status=0)
    assert len(lines) == 8


# --- export, decode, verify-proof, export-family ------------------------------

def _model(cnf, path):
    """An outside solver's answer to the exported CNF, in SAT-competition form."""
    with Solver("minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as s:
        if s.solve():
            path.write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
        else:
            path.write_text("s UNSATISFIABLE\n")
    return path


def test_export_then_decode_text(tmp_path):
    cnf = tmp_path / "b.cnf"
    run = expect(tilesat("export", INSTANCES / "lpanel-8x8.txt", "-o", cnf), 0)
    assert run.out == b"" and run.err.startswith(f"wrote {cnf}: ") and run.err.count("\n") == 1
    assert cnf.read_text().startswith("c tilesat ")
    answer = _model(cnf, tmp_path / "answer.txt")
    lines = verdict(tilesat("decode", INSTANCES / "lpanel-8x8.txt", answer),
                    rf"solved: a tiling with 11 tiles \(decoded from {answer}\)$", status=0)
    assert len(lines) == 9


def test_export_block_then_decode_json_unique(boards, tmp_path):
    """export --block TILING asks 'another tiling?'; UNSAT decodes as unique."""
    tiling = boards / "lpanel-6x6-tiling.json"
    cnf = tmp_path / "again.cnf.gz"
    expect(tilesat("export", INSTANCES / "lpanel-6x6.txt", "-o", cnf, "--block", tiling), 0)
    answer = _model(cnf, tmp_path / "answer.txt")
    data = document(tilesat("decode", INSTANCES / "lpanel-6x6.txt", answer, "--block", tiling, "--json"),
                    ("verdict", "tilings", "reason", "stats"), status=0)
    assert data["verdict"] == "unique"
    # the same document, keys in the same order, as check-unique's answer to the same question
    asked = document(tilesat("check-unique", INSTANCES / "lpanel-6x6.txt", "--json"), status=0)
    assert list(data) == [key for key in asked if key != "grade"]


def test_decode_text_none(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("s UNSATISFIABLE\n")
    verdict(tilesat("decode", INSTANCES / "lpanel-6x6-none.txt", answer), r"none: no tiling exists \(the solver said UNSATISFIABLE\)$",
            status=3)


def test_verify_proof_of_a_check_unique(tmp_path):
    proof = tmp_path / "proof"
    lines = verdict(tilesat("check-unique", INSTANCES / "lpanel-6x6.txt", "--proof", proof), r"unique: ", status=0)
    assert f"proof written to {proof} (check it with: tilesat verify-proof {proof})" in lines
    verdict(tilesat("verify-proof", proof), r"proof verified: the board has exactly one tiling", status=0)
    (proof / "proof.json").write_text("[]\n")  # damaged
    run = expect(tilesat("verify-proof", proof), 1)
    assert run.out == b"" and run.err.startswith("proof REJECTED: ") and run.err.count("\n") == 1, run.describe()


def test_verify_proof_of_an_lp_certificate(boards, tmp_path):
    proof = tmp_path / "proof"
    expect(tilesat("pack", boards / "v5.txt", "--proof", proof), 0)
    verdict(tilesat("verify-proof", proof), r"proof verified: no packing has more than 4 pieces", status=0)


def test_export_family_writes_the_cnfs_and_an_index(tmp_path):
    out = tmp_path / "fam"
    run = tilesat("export-family", "mutilated", "--sizes", "4,6", "--out", out)
    lines = verdict(run, rf"{out / 'mutilated-4x4.cnf'}: expected UNSAT, 0 tilings$", status=0)
    assert len(lines) == 2 and run.err == f"wrote 2 instances and {out / 'index-mutilated.json'}\n"
    assert len(json.loads((out / "index-mutilated.json").read_text())["instances"]) == 2


# --- generate, fuzz -----------------------------------------------------------

GENERATE_KEYS = ("instance", "message", "grade", "blacked", "tries", "seed", "size", "grid", "seconds", "out")


def test_generate_text_the_instance_on_stdout_the_message_on_stderr():
    run = tilesat("generate", "--size", "8x8", "--seed", "1")
    lines = verdict(run, r"; Made by tilesat generate --size 8x8 --pieces 'L4' --seed 1: ", status=0)
    assert lines[3] == "pieces: L4" and len(lines) == 4 + 8
    assert run.err.startswith("generated a unique 8x8 board in ") and run.err.count("\n") == 1


def test_generate_json():
    data = document(tilesat("generate", "--size", "6x6", "--grid", "hex", "--pieces", "trihexes", "--json"),
                    GENERATE_KEYS, status=0)
    assert data["grid"] == "hex" and data["instance"].startswith("; Made by tilesat generate")


def test_generate_json_timeout(tmp_path):
    out = tmp_path / "puzzle.txt"
    data = document(tilesat("generate", "--size", "60x60", "--seed", "3", "--timeout", "1", "--json", "--out", out),
                    ("instance", "stopped", "message"), status=124)
    assert data["instance"] is None and data["stopped"] == "timeout" and not out.exists()


FUZZ_KEYS = ("seed", "encodings", "solvers", "examples", "answers", "agreed", "stopped", "seconds", "disagreement")


def test_fuzz_text(tmp_path):
    run = tilesat("fuzz", "--examples", "5", "--encodings", "pairwise", "--solvers", "cadical195", "--seed", "1",
                  "--out", tmp_path / "f")
    lines = verdict(run, r"all agreed: 5 examples \(.+\) x 1 encoding x 1 solver, and dancing links, against the oracle in ",
                    status=0)
    assert len(lines) == 1 and run.err == "fuzz: seed 1 (the same instances again: --seed 1)\n"


def test_fuzz_json(tmp_path):
    data = document(tilesat("fuzz", "--examples", "5", "--encodings", "ladder", "--solvers", "glucose4", "--seed", "2",
                            "--out", tmp_path / "f", "--json"), FUZZ_KEYS, status=0)
    assert data["agreed"] and data["examples"] == 5


def test_fuzz_timeout(tmp_path):
    run = tilesat("fuzz", "--examples", "100000", "--seed", "3", "--out", tmp_path / "f", "--timeout", "3", "--json")
    data = document(run, FUZZ_KEYS, status=124)
    assert data["stopped"] == "timeout"
    assert run.err.splitlines()[-1].startswith("time limit reached: after ")


def test_fuzz_interrupted(tmp_path):
    run = interrupted("fuzz", "--examples", "100000", "--seed", "4", "--out", tmp_path / "f", busy_cpu=2.0)
    verdict(run, r"all agreed so far: \d+ examples", status=130)
    assert run.err.splitlines()[-1].startswith("interrupted: after "), run.describe()


# --- explain --------------------------------------------------------------------

def test_explain_text_multiple(tmp_path):
    rooms = tmp_path / "rooms.txt"
    rooms.write_text("pieces: L3\n...#...\n...#...\n")  # two rooms of 2x3, each tiled by L3 two ways
    lines = verdict(tilesat("explain", rooms), r"multiple: 2 ambiguous regions; 0 of 12 open cells are settled", status=1)
    assert lines[1:3] == ["AAA#BBB", "AAA#BBB"]


def test_explain_json_none_with_the_lp_certificate(boards):
    data = document(tilesat("explain", boards / "mut8.txt", "--json"), ("verdict", "stopped", "tilings"), status=3)
    assert data["verdict"] == "none" and data["tilings"] == []

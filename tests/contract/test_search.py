"""solve and check-unique as real processes: every search method, the LP
certificate on and off, the portfolio, outside solvers, --timeout and Ctrl-C."""

import pytest

from .process import INSTANCES, document, has, interrupted, tilesat, verdict

RESULT_KEYS = ("verdict", "tilings", "reason", "certificate", "stats")
UNIQUE = r"unique: exactly one tiling$"
MULTIPLE = r"multiple: at least two tilings; they differ at \d+ cells \(marked \*\)$"
SOLVED = r"solved: a tiling with \d+ tiles$"
NONE = r"none: no tiling exists \(.+\)$"
CERTIFIED = r"none: no tiling exists \(every placement covers weight"
UNKNOWN = r"unknown: the time limit of [\d.]+ s passed"


def test_check_unique_text_unique_by_sat_without_the_lp():
    """An L-Panel puzzle: clues make the LP not worth it (the gate skips it)."""
    lines = verdict(tilesat("check-unique", INSTANCES / "lpanel-6x6.txt"), UNIQUE, status=0)
    assert lines[1:7] == ["AAABB#", "CCA#BD", "C###BD", "CE##DD", "#EF###", "EEFFF#"]
    assert lines[-1].startswith("grade: easy")


def test_check_unique_json_multiple():
    data = document(tilesat("check-unique", INSTANCES / "lpanel-4x8-multiple.txt", "--json"), RESULT_KEYS, status=1)
    assert data["verdict"] == "multiple" and len(data["tilings"]) == 2 and data["certificate"] is None
    # The search runs first for the LP's estimated time (a few ms here): on a quiet machine it
    # ends within it and the LP never runs; on a loaded one it may not, and the LP runs, finds
    # nothing (the board has tilings) and the search resumes. Both are the schedule's behaviour.
    check = data["stats"]["certificate_check"]
    if check["ran"]:
        assert check["found"] is False and check["why"].startswith("the search went on past the LP's estimated time")
    else:
        assert check["why"] == "the search finished first"


def test_check_unique_text_multiple_side_by_side():
    lines = verdict(tilesat("check-unique", INSTANCES / "lpanel-4x8-multiple.txt"), MULTIPLE, status=1)
    assert lines[1].split() == ["tiling", "1", "tiling", "2", "differ", "(*)"]


def test_solve_text_solved():
    lines = verdict(tilesat("solve", INSTANCES / "lpanel-8x8.txt"), SOLVED, status=0)
    assert len(lines) == 9 and all(len(row) == 8 for row in lines[1:])


def test_check_unique_text_none_by_the_lp_after_the_search(boards):
    """The default path where HiGHS runs: the search first, then the LP."""
    lines = verdict(tilesat("check-unique", boards / "mut16.txt"), CERTIFIED, status=3)
    assert lines[1] == "cell weights:" and len(lines) == 2 + 16


def test_solve_json_none_by_the_lp_on_a_60x60_board(boards):
    data = document(tilesat("solve", boards / "mut60.txt", "--json"), RESULT_KEYS, status=3)
    assert data["verdict"] == "none" and data["certificate"]["total"] > 0
    assert data["stats"]["certificate_check"]["ran"] and data["stats"]["certificate_check"]["found"]


def test_check_unique_json_none_by_the_lp_after_the_search(boards):
    data = document(tilesat("check-unique", boards / "mut16.txt", "--json"), RESULT_KEYS, status=3)
    assert data["certificate"] is not None and data["stats"]["certificate_check"]["ran"]


def test_solve_text_certificate_first(boards):
    """--certificate: the LP before any search (the README's T4 example)."""
    lines = verdict(tilesat("solve", boards / "t4.txt", "--certificate"), CERTIFIED, status=3)
    assert lines[0].endswith("the open cells weigh +8: no tiling)") and lines[1] == "cell weights:"


def test_solve_json_modular_certificate():
    data = document(tilesat("solve", INSTANCES / "lpanel-6x6-none.txt", "--json"), RESULT_KEYS, status=3)
    # the rows colouring mod 4 (tilesat.certify.colourings), before the LP's mod-2 search
    assert data["certificate"]["modulus"] == 4 and "divisible by 4" in data["reason"]


def test_solve_json_no_certificate(boards):
    data = document(tilesat("solve", boards / "mut8.txt", "--no-certificate", "--json"), RESULT_KEYS, status=3)
    assert data["certificate"] is None and data["stats"]["certificate_check"] == {"ran": False, "why": "turned off"}


def test_solve_text_sweep(boards):
    lines = verdict(tilesat("solve", boards / "open20.txt", "--method", "sweep"), SOLVED, status=0)
    assert len(lines) == 21


def test_check_unique_json_sweep(boards):
    data = document(tilesat("check-unique", boards / "open20.txt", "--method", "sweep", "--json"), RESULT_KEYS, status=1)
    assert data["verdict"] == "multiple" and data["stats"]["method"] == "sweep"


def test_check_unique_json_dlx():
    data = document(tilesat("check-unique", INSTANCES / "pentomino-3x20.txt", "--method", "dlx", "--json"),
                    RESULT_KEYS, status=1)
    assert data["stats"]["method"] == "dlx" and data["stats"]["solver"] == "xcover"


def test_check_unique_json_xcc_chosen_by_auto():
    data = document(tilesat("check-unique", INSTANCES / "pentomino-3x20.txt", "--json"), RESULT_KEYS, status=1)
    assert data["stats"]["method"] == "xcc" and data["stats"]["solver"] == "xcc"
    assert data["verdict"] == "multiple" and data["tilings"][0] != data["tilings"][1]


def test_solve_text_xcc_chosen_by_auto():
    verdict(tilesat("solve", INSTANCES / "pentomino-3x20.txt"), SOLVED, status=0)


def test_solve_by_xcc_stops_at_the_timeout_and_on_ctrl_c(boards):
    """The compiled exact cover searches in this process, in slices: both stop it between them."""
    lines = verdict(tilesat("solve", boards / "mut16.txt", "--method", "xcc", "--no-certificate", "--timeout", "1"),
                    UNKNOWN, status=124)
    assert lines == ["unknown: the time limit of 1 s passed before a tiling was found or ruled out"]
    run = interrupted("solve", boards / "mut16.txt", "--method", "xcc", "--no-certificate")
    assert run.status == 130 and run.out == b"", run.describe()
    assert run.err.splitlines() == ["interrupted: no tiling found yet; no verdict"], run.describe()


def test_check_unique_json_sat():
    data = document(tilesat("check-unique", INSTANCES / "lpanel-8x8.txt", "--method", "sat", "--json"),
                    RESULT_KEYS + ("grade",), status=0)
    assert data["stats"]["method"] == "sat" and data["grade"]["grade"] in ("easy", "medium", "hard")


@pytest.mark.parametrize("command, board, status", [("check-unique", "lpanel-6x6.txt", 0), ("solve", "lpanel-8x8.txt", 0)])
def test_portfolio_json(command, board, status):
    """--jobs 2: two configurations race in forked processes."""
    data = document(tilesat(command, INSTANCES / board, "--method", "sat", "--jobs", "2", "--json"), RESULT_KEYS, status=status)
    assert data["stats"]["portfolio"]["jobs"] == 2 and data["stats"]["portfolio"]["winner"]


def test_portfolio_text():
    verdict(tilesat("check-unique", INSTANCES / "lpanel-4x8-multiple.txt", "--jobs", "2"), MULTIPLE, status=1)


@pytest.mark.parametrize("solver", ["ext:cadical -q", "ext:minisat {cnf} {out}", "ext:picosat"])
def test_solve_and_check_unique_with_outside_solvers(solver):
    program = solver[4:].split()[0]
    if not has(program):
        pytest.skip(f"{program} is not installed (apt-get install {program}; .ci/run installs it)")
    verdict(tilesat("solve", INSTANCES / "lpanel-8x8.txt", "--solver", solver), SOLVED, status=0)
    data = document(tilesat("check-unique", INSTANCES / "lpanel-8x8.txt", "--solver", solver, "--json"),
                    RESULT_KEYS, status=0)
    assert data["stats"]["solver"] == solver


def test_solve_text_timeout(boards):
    lines = verdict(tilesat("solve", boards / "mut16.txt", "--no-certificate", "--timeout", "1"), UNKNOWN, status=124)
    assert lines == ["unknown: the time limit of 1 s passed before a tiling was found or ruled out"]


def test_check_unique_json_timeout(boards):
    data = document(tilesat("check-unique", boards / "mut16.txt", "--no-certificate", "--timeout", "1", "--json"),
                    RESULT_KEYS, status=124)
    assert data["verdict"] == "unknown" and data["stats"]["stopped"] == "timeout"


@pytest.mark.parametrize("as_json", [False, True])
def test_solve_interrupted(boards, as_json):
    """Ctrl-C: exit 130, one line on stderr saying what it had, stdout empty (no verdict)."""
    run = interrupted("solve", boards / "mut16.txt", "--no-certificate", *(["--json"] if as_json else []))
    assert run.status == 130, run.describe()
    assert run.out == b"", run.describe()
    assert run.err.splitlines() == ["interrupted: no tiling found yet; no verdict"], run.describe()

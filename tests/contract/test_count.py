"""count and list as real processes: every counting method (each loads its own
native engine: numba, ganak, ApproxMC, xcover, HiGHS in the certificate race),
--jobs, a Dask cluster, --timeout and Ctrl-C."""

import json

import pytest

from .process import INSTANCES, document, expect, interrupted, tilesat, verdict

COUNT_KEYS = ("count", "exact", "method", "why", "stopped", "up_to_symmetry", "group_order", "group", "estimate",
              "units", "jobs", "certificate", "certificate_check", "seconds")
COUNTED = r"count: [\d,]+ tilings(, [\d,]+ up to symmetry \(.+\))?, by \w+ \(.+\), [\d.]+ s"


@pytest.mark.parametrize("method, board, count", [
    ("native", "pentomino-3x20.txt", 8),
    ("pfaffian", "dom4.txt", 36),
    ("frontier", "l3.txt", 162),
    ("blocking", "dom4.txt", 36),
    ("ganak", "dom4.txt", 36),
    ("dlx", "pentomino-3x20.txt", 8),
])
def test_count_json_by_each_exact_method(boards, method, board, count):
    path = INSTANCES / board if board.startswith("pentomino") else boards / board
    data = document(tilesat("count", path, "--method", method, "--json"), COUNT_KEYS, status=0)
    assert (data["count"], data["exact"], data["method"]) == (count, True, method)


def test_count_json_approx(boards):
    data = document(tilesat("count", boards / "dom4.txt", "--method", "approx", "--json"), COUNT_KEYS, status=0)
    assert data["exact"] is False and data["estimate"] == {"epsilon": 0.8, "delta": 0.2}
    assert 36 / 1.8 <= data["count"] <= 36 * 1.8


@pytest.mark.parametrize("method, board", [("auto", "dom4.txt"), ("ganak", "l3.txt"), ("approx", "l3.txt")])
def test_count_text(boards, method, board):
    run = tilesat("count", boards / board, "--method", method)
    verdict(run, r"count: (about )?[\d,]+ tilings", status=0)
    assert len(run.text.splitlines()) == 1


def test_count_text_up_to_symmetry_the_readme_line():
    lines = verdict(tilesat("count", INSTANCES / "pentomino-3x20.txt", "--up-to-symmetry"), COUNTED, status=0)
    assert lines[0].startswith("count: 8 tilings, 2 up to symmetry (the 4 symmetries of the rectangle)") and len(lines) == 1


def test_count_json_certificate_race_stops_a_count_at_zero(boards):
    """By default the LP races beside the count (HiGHS in a forked child) and proves 0."""
    data = document(tilesat("count", boards / "mut16.txt", "--method", "blocking", "--json"), COUNT_KEYS, status=0)
    assert data["count"] == 0 and data["exact"] and data["certificate"] is not None
    assert data["certificate_check"]["ran"] and data["certificate_check"]["found"]


def test_count_text_certificate_first(boards):
    lines = verdict(tilesat("count", boards / "mut16.txt", "--method", "dlx", "--certificate"),
                    r"count: 0 tilings, by dlx \(chosen with --method\), [\d.]+ s; every placement covers weight", status=0)
    assert lines[1] == "cell weights:"


def test_count_json_without_certificate(boards):
    data = document(tilesat("count", boards / "mut8.txt", "--method", "blocking", "--no-certificate", "--json"),
                    COUNT_KEYS, status=0)
    assert data["count"] == 0 and data["certificate"] is None and not data["certificate_check"]["ran"]


def test_count_json_in_two_processes():
    data = document(tilesat("count", INSTANCES / "pentomino-3x20.txt", "--up-to-symmetry", "--jobs", "2", "--json"),
                    COUNT_KEYS, status=0)
    assert (data["count"], data["up_to_symmetry"], data["jobs"]) == (8, 2, 2)


@pytest.mark.slow
def test_count_json_on_a_dask_cluster_of_two_workers():
    """--cluster dask: a LocalCluster of worker processes, HiGHS's race, numba in each worker."""
    data = document(tilesat("count", INSTANCES / "pentomino-3x20.txt", "--cluster", "dask", "--jobs", "2", "--json"),
                    COUNT_KEYS + ("cluster",), status=0)
    assert (data["count"], data["exact"], data["jobs"]) == (8, True, 2) and data["cluster"]


@pytest.mark.slow
def test_count_text_on_a_dask_cluster_timeout():
    """Was: the answer at the time limit, then 10 s more before the process ended (Dask's exit
    hook closing again the cluster whose close had timed out)."""
    run = tilesat("count", INSTANCES / "long-counts" / "pentominoes-dominoes-8x8.txt", "--cluster", "dask", "--jobs", "2",
                  "--timeout", "5")
    # a unit whose answer is still on its way STOP_GRACE after the limit is said to be left out
    lines = verdict(run, r"count: at least [\d,]+ tilings? \(time limit reached(; what [\d,]+ units? running then had "
                         r"found is not included)?\), by native .* on a Dask cluster of 2 workers", status=124)
    assert len(lines) == 1
    assert run.seconds < 5 + 8, run.describe()  # the limit, the close, a loaded machine's slack: not 10 s more


def test_count_json_timeout(boards):
    data = document(tilesat("count", boards / "mut16.txt", "--method", "ganak", "--no-certificate", "--timeout", "1",
                            "--json"), COUNT_KEYS, status=124)
    assert data["stopped"] == "timeout" and data["exact"] is False


def test_count_text_timeout():
    lines = verdict(tilesat("count", INSTANCES / "pentomino-6x10.txt", "--method", "blocking", "--timeout", "1.5"),
                    r"count: at least [\d,]+ tilings? \(time limit reached\)", status=124)
    assert len(lines) == 1


@pytest.mark.parametrize("as_json", [True, False])
def test_count_interrupted_says_the_count_so_far(as_json):
    run = interrupted("count", INSTANCES / "pentomino-6x10.txt", "--method", "dlx", *(["--json"] if as_json else []))
    if as_json:
        data = document(run, COUNT_KEYS, status=130)
        assert data["stopped"] == "interrupted" and data["exact"] is False
    else:
        verdict(run, r"count: at least [\d,]+ tilings? \(interrupted\)", status=130)
    assert run.err == "", run.describe()


# --- list ---------------------------------------------------------------------

@pytest.mark.parametrize("method, board, tilings", [("native", "pentomino-3x20.txt", 8), ("dlx", "pentomino-3x20.txt", 8),
                                                     ("blocking", "dom4.txt", 36)])
def test_list_text(boards, method, board, tilings):
    path = INSTANCES / board if board.startswith("pentomino") else boards / board
    run = tilesat("list", path, "--method", method)
    lines = verdict(run, r"tiling 1$", status=0)
    block = len(lines) // tilings  # "tiling K", the board's rows, a blank line
    assert len(lines) == block * tilings and lines[::block] == [f"tiling {k}" for k in range(1, tilings + 1)]
    assert len({len(line) for line in lines if line and not line.startswith("tiling ")}) == 1  # one character per cell
    assert run.err == f"listed all {tilings} tilings\n", run.describe()


def test_list_out_writes_json_lines(boards, tmp_path):
    out = tmp_path / "tilings.jsonl"
    run = expect(tilesat("list", boards / "dom4.txt", "--out", out, "--limit", "5"), 0)
    assert run.out == b"" and run.err == f"listed the first 5 tilings to {out}\n", run.describe()
    assert [len(json.loads(line)) for line in out.read_text().splitlines()] == [8] * 5


def test_list_certificate_race_says_why_nothing(boards):
    run = expect(tilesat("list", boards / "mut16.txt", "--method", "dlx"), 0)
    assert run.out == b"", run.describe()
    assert run.err.startswith("listed all 0 tilings: no tiling exists (every placement covers weight"), run.describe()


def test_list_timeout():
    run = expect(tilesat("list", INSTANCES / "pentomino-6x10.txt", "--method", "blocking", "--timeout", "1.5"), 124)
    assert run.first_line in ("tiling 1", "")
    assert run.err.startswith("listed the first ") and run.err.endswith("(time limit of 1.5 s reached)\n"), run.describe()


def test_list_interrupted():
    run = interrupted("list", INSTANCES / "pentomino-6x10.txt", "--method", "blocking")
    expect(run, 130)
    assert run.err.startswith("interrupted after ") and run.err.count("\n") == 1, run.describe()

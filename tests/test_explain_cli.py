"""tilesat explain as a real process: stdout read as bytes (text, or one JSON
document), exit statuses as check-unique's, bad input in one line, --timeout
and Ctrl-C stopping within a second with what was found."""

import json
import signal
import subprocess
import sys
import time

import pytest

from test_issue12_why import finish, start_busy

CLI = [sys.executable, "-m", "tilesat"]

# Two rooms of 2x3 on either side of a black wall, each tiled by L3 in two ways.
TWO_ROOMS = "pieces: L3\n...#...\n...#...\n"
UNIQUE = "pieces: L3\n#.\n..\n"
NONE = "pieces: L4\n#.......\n.#......\n........\n........\n"


def run(*args, timeout=120):
    proc = subprocess.run(CLI + [str(a) for a in args], capture_output=True, timeout=timeout)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc


def test_text_shows_the_regions_their_ways_and_a_checked_repair(board):
    proc = run("explain", board(TWO_ROOMS))
    out = proc.stdout.decode()
    assert proc.returncode == 1, out
    assert out.startswith("multiple: 2 ambiguous regions; 0 of 12 open cells are settled")
    assert "AAA#BBB" in out  # the board with each region's letter
    assert "A: 6 cells, 2 ways" in out and "B: 6 cells, 2 ways" in out
    assert "tilings of the board: 2 x 2 = 4" in out
    assert "give 2 clue tiles (minimum)" in out
    assert proc.stderr == b""


def test_json_is_one_document_and_agrees_with_check_unique(board):
    path = board(TWO_ROOMS)
    proc = run("explain", path, "--json")
    data = json.loads(proc.stdout)  # the whole of stdout: one document
    assert proc.returncode == 1
    assert data["verdict"] == "multiple" and data["stopped"] is None
    assert [r["ways"] for r in data["regions"]] == [2, 2] and data["count"] == {"tilings": 4, "exact": True}
    assert data["repairs"][0]["kind"] == "clues" and data["repairs"][0]["checked"] == "unique"
    unique = json.loads(run("check-unique", path, "--json").stdout)
    assert unique["verdict"] == data["verdict"]


@pytest.mark.parametrize("text, status, verdict", [(UNIQUE, 0, "unique"), (NONE, 3, "none")])
def test_exit_statuses_are_check_uniques(board, text, status, verdict):
    proc = run("explain", board(text), "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == status and data["verdict"] == verdict
    if verdict == "none":
        assert data["failing_region"]["minimal"] and [0, 1] in data["failing_region"]["cells"]
        text_out = run("explain", board(text, "n.txt")).stdout.decode()
        assert "cannot all be covered at once" in text_out and "X" in text_out


def test_pictures_are_written_and_never_overwritten_without_force(board, tmp_path):
    path = board(TWO_ROOMS)
    svg, png = tmp_path / "e.svg", tmp_path / "e.png"
    assert run("explain", path, "--svg", svg, "--png", png).returncode == 1
    assert svg.read_bytes().startswith(b"<?xml") and png.read_bytes()[:4] == b"\x89PNG"
    again = run("explain", path, "--svg", svg)
    assert again.returncode == 2 and again.stdout == b""
    assert again.stderr.decode().count("\n") == 1 and "--force" in again.stderr.decode()


@pytest.mark.parametrize("args, message", [
    (["no-such-file.txt"], "no-such-file.txt: cannot read"),
    (["{board}", "--backbone", "magic"], "--backbone 'magic'"),
    (["{board}", "--solver", "kissat404"], "--solver 'kissat404'"),
    (["{board}", "--repairs", "-1"], "--repairs"),
])
def test_bad_input_is_one_line_and_exit_2(board, args, message):
    path = board(TWO_ROOMS)
    proc = run("explain", *[a.format(board=path) for a in args])
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


def test_timeout_stops_in_time_and_says_what_it_had(board):
    path = board("pieces: L4\n" + "\n".join(["." * 20] * 20) + "\n")  # one region, hundreds of thousands of ways
    t0 = time.perf_counter()
    proc = run("explain", path, "--timeout", "8", "--json")
    took = time.perf_counter() - t0
    data = json.loads(proc.stdout)
    assert proc.returncode == 124 and data["stopped"] == "timeout"
    assert data["verdict"] == "multiple"  # found before the time ran out: two tilings, verified
    assert len(data["tilings"]) == 2
    assert took < 8 + 1.5, took


def test_a_board_too_big_to_start_is_unknown_at_the_timeout(board):
    # 18,000 cells: building the formula alone takes seconds on any machine (a mutilated
    # chessboard does not do: a fast machine has its LP certificate within the limit)
    path = board("pieces: L5, N5, Y5, P5\n" + "\n".join(["." * 135] * 135) + "\n")
    t0 = time.perf_counter()
    proc = run("explain", path, "--timeout", "1.5")
    took = time.perf_counter() - t0
    assert proc.returncode == 124
    assert proc.stdout.decode().startswith("unknown: the time limit of 1.5 s passed")
    assert took < 1.5 + 1.5, took  # the deadline is checked while the formula is built


def test_ctrl_c_stops_within_a_second_and_prints_what_was_found(board):
    path = board("pieces: L4\n" + "\n".join(["." * 20] * 20) + "\n")
    proc = start_busy(["explain", path, "--json"], extra=1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    code, took, out, err = finish(proc, sent)
    assert code == 130 and took < 1.5, (code, took, err)
    assert err.startswith("interrupted: stopped while explaining")
    data = json.loads(out)
    assert data["stopped"] == "interrupted"

"""The command line, through typer's runner: output, exit statuses, errors."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tilesat import load_instance, verify_tiling
from tilesat.cli import app
from tilesat.model.tiling import Tiling

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
runner = CliRunner()


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


def test_check_unique_unique(board):
    res = run("check-unique", INSTANCES / "lpanel-8x8.txt")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("unique: exactly one tiling")
    rows = res.output.splitlines()[1:9]
    assert res.output.splitlines()[9].startswith("grade: ")  # then how hard the puzzle is (tilesat.making.grade)
    board = load_instance(INSTANCES / "lpanel-8x8.txt").board
    assert [len(line) for line in rows] == [8] * 8  # one character per cell
    assert [[ch == "#" for ch in line] for line in rows] == (~board.open).tolist()


def test_check_unique_multiple_shows_both_and_marks_differences():
    res = run("check-unique", INSTANCES / "lpanel-4x8-multiple.txt")
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert lines[0].startswith("multiple: at least two tilings; they differ at ")
    assert lines[1].split() == ["tiling", "1", "tiling", "2", "differ", "(*)"]
    grids = [line.split() for line in lines[2:6]]
    assert all(len(g) == 3 for g in grids)
    diff = [g[2] for g in grids]
    ndiff = int(lines[0].split("differ at ")[1].split()[0])
    assert sum(row.count("*") for row in diff) == ndiff > 0


def test_check_unique_none_says_why():
    res = run("check-unique", INSTANCES / "lpanel-6x6-none.txt")
    assert res.exit_code == 3
    assert res.output.startswith("none: no tiling exists")


def test_quick_check_answers_none_at_once(board):
    res = run("check-unique", board("pieces: L4\n.....\n.....\n"))
    assert res.exit_code == 3
    assert "no combination of the allowed pieces has exactly 10 cells" in res.output
    res = run("solve", board("pieces: I2\n.#...\n.#...\n.#...\n"))
    assert res.exit_code == 3 and "the region of 3 open cells containing (0, 0)" in res.output
    res = run("solve", board("pieces: L3\n...\n"))
    assert res.exit_code == 3 and "no piece fits on cell (0, 0)" in res.output


@pytest.mark.parametrize("command", ["solve", "check-unique"])
def test_json(command):
    res = run(command, INSTANCES / "lpanel-4x8-multiple.txt", "--json", "--encoding", "commander", "--solver", "glucose4")
    data = json.loads(res.output)
    assert data["verdict"] == {"solve": "solved", "check-unique": "multiple"}[command]
    assert len(data["tilings"]) == {"solve": 1, "check-unique": 2}[command]
    inst = load_instance(INSTANCES / "lpanel-4x8-multiple.txt")
    for t in data["tilings"]:
        verify_tiling(inst, Tiling.from_json(t))
        assert all(tile["piece"] == "L4" and len(tile["cells"]) == 4 for tile in t)
    stats = data["stats"]
    assert stats["encoding"] == "commander" and stats["solver"] == "glucose4"
    assert stats["variables"] > 0 and stats["clauses"] > 0 and stats["seconds"] >= 0


def test_json_none():
    data = json.loads(run("check-unique", INSTANCES / "lpanel-6x6-none.txt", "--json").output)
    assert data["verdict"] == "none" and data["tilings"] == []


def test_solve_prints_piece_letters_for_distinct_pieces():
    res = run("solve", INSTANCES / "pentomino-6x10.txt")
    assert res.exit_code == 0
    grid = "".join(res.output.splitlines()[1:])
    assert sorted(set(grid)) == sorted("FILNPTUVWXYZ") and all(grid.count(ch) == 5 for ch in set(grid))


def test_overrides(board):
    f = board("pieces: L4\n....\n....\n")
    assert run("check-unique", f, "--pieces", "I2:4", "--json").exit_code == 1
    assert run("check-unique", f, "--pieces", "O4", "--wrap", "both").exit_code == 1
    assert run("check-unique", f, "--pieces", "O4").exit_code == 0


def test_info():
    res = run("info", INSTANCES / "lpanel-8x8.txt", "--json")
    data = json.loads(res.output)
    assert set(data["encodings"]) == {"pairwise", "seqcounter", "ladder", "product", "commander", "bitwise", "native"}
    assert data["placements"] > 0 and all(v is None for v in data["checks"].values())
    assert data["encodings"]["pairwise"]["variables"] == data["placements"]
    # 97 placements of 4 cells over 44 open cells: 8.8 a cell, so auto is pairwise; L4 repeats: SAT
    assert data["candidates_per_cell"] == round(4 * data["placements"] / data["board"]["open"], 2) == 8.82
    assert data["auto_encoding"] == "pairwise" and data["search_method"] == "sat"
    pent = json.loads(run("info", INSTANCES / "pentomino-6x10.txt", "--json").output)
    assert pent["auto_encoding"] == "commander" and pent["search_method"] == "xcc"
    res = run("info", INSTANCES / "lpanel-8x8.txt")
    assert res.exit_code == 0 and "ladder" in res.output and "check area: ok" in res.output


def test_pieces_command():
    res = run("pieces", "pentominoes", "--shapes")
    assert res.exit_code == 0 and len(res.output.splitlines()) == 12
    assert run("pieces", "heptominoes", "--shapes").output.count("\n") == 108
    drawn = run("pieces", "pentominoes").output  # pictures: two blocks per cell, 12 pieces of 5
    assert drawn.count("\u2588") == 2 * 5 * 12 and "F5 (5)" in drawn and "#" not in drawn


@pytest.mark.parametrize(
    "args,message",
    [
        (["--solver", "nosuch"], "unknown solver 'nosuch'; choose one of: cadical195"),
        (["--encoding", "nosuch"], "unknown encoding 'nosuch'; choose one of: auto, pairwise"),
        (["--card", "nosuch"], "unknown cardinality encoding 'nosuch'"),
        (["--pieces", "Q7"], "--pieces: unknown piece 'Q7'"),
        (["--wrap", "diagonal"], "--wrap: unknown wrap 'diagonal'"),
    ],
)
@pytest.mark.parametrize("command", ["solve", "check-unique"])
def test_bad_options(command, args, message):
    res = run(command, INSTANCES / "lpanel-8x8.txt", *args)
    assert res.exit_code == 2
    assert res.output.startswith("error: ") and message in res.output
    assert len(res.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "text,message",
    [
        ("pieces: L4\n....\n...\n", "grid row has 3 cells"),
        ("pieces: L4:two\n....\n", "bad count"),
        ("pieces: Zz9\n....\n", "unknown piece"),
        ("pieces: L4\n", "no grid"),
        ("....\n", "no pieces given"),
        ("pieces: L4\n####\n", "no open cell"),
    ],
)
@pytest.mark.parametrize("command", ["solve", "check-unique", "info"])
def test_bad_files(board, command, text, message):
    res = run(command, board(text))
    assert res.exit_code == 2 and res.output.startswith("error: ") and message in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_unreadable_files(tmp_path):
    res = run("solve", tmp_path / "missing.txt")
    assert res.exit_code == 2 and "cannot read" in res.output
    res = run("check-unique", tmp_path)
    assert res.exit_code == 2 and "directory" in res.output


def test_solver_aliases_and_other_solvers():
    for solver in ("glucose4", "minisat22", "kissat404", "g42", "cadical153"):
        res = run("check-unique", INSTANCES / "lpanel-6x6.txt", "--solver", solver)
        assert res.exit_code == 0, (solver, res.output)


def test_usage_errors_exit_2():
    assert runner.invoke(app, ["solve"]).exit_code == 2
    assert runner.invoke(app, ["frobnicate"]).exit_code == 2
    assert runner.invoke(app, ["--version"]).output.startswith("tilesat ")


def test_ctrl_c_stops_cleanly_and_says_what_it_had(monkeypatch):
    import tilesat.questions.solve as search

    calls = {"n": 0}
    real_next = search.TilingSearch.next

    def next_then_interrupt(self):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_next(self)

    monkeypatch.setattr(search.TilingSearch, "next", next_then_interrupt)
    res = run("check-unique", INSTANCES / "lpanel-4x8-multiple.txt")
    assert res.exit_code == 130
    assert res.output.strip() == "interrupted: found 1 tiling before stopping; no verdict"


def test_info_marks_an_encoding_too_large_for_the_memory_limit_and_sizes_the_rest():
    res = run("--max-memory", "200M", "info", INSTANCES / "tromino-128x128-hole.txt", "--json")
    assert res.exit_code == 0, res.output
    sizes = json.loads(res.output)["encodings"]
    refused = [name for name, s in sizes.items() if s["clauses"] is None]
    assert refused and "too large" in sizes[refused[0]]["refused"]
    assert any(s["clauses"] for s in sizes.values())

"""Puzzle generation (tilesat.making.generate): unique boards, deterministic per
seed, of the grade asked for, for several piece sets; the CLI's --json; the
run's start that --timeout counts from."""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner

from tilesat import parse_pieces
from tilesat.cli import app
from tilesat.cli import common
from tilesat.making.generate import generate_puzzle
from tilesat.making.grade import grade
from tilesat.model.instance import parse_instance
from tilesat.questions.solve import check_unique

runner = CliRunner()


def _unique_two_ways(instance) -> bool:
    return (check_unique(instance).verdict == "unique"
            and check_unique(instance, method="sat", encoding="pairwise", solver="glucose4").verdict == "unique")


@pytest.mark.parametrize("size,pieces,seed", [
    ((12, 12), "L4", 1), ((20, 20), "L4", 2), ((9, 9), "L3", 3), ((10, 12), "L3, I3", 4),
    ((10, 10), "L4, I3, O4", 5), ((3, 21), "pentominoes:1", 1), ((8, 8), "L3:1, I2", 1),
    ((8, 8), "L4:0..5, L3", 1),
])
def test_generated_boards_are_unique_and_graded(size, pieces, seed):
    puzzle = generate_puzzle(*size, parse_pieces(pieces), seed=seed)
    instance = puzzle.instance
    assert (instance.board.rows, instance.board.cols) == size
    assert _unique_two_ways(instance)
    assert grade(instance).to_json() | {"seconds": 0} == puzzle.grade.to_json() | {"seconds": 0}
    if pieces == "pentominoes:1":  # exactly the 60 cells of the twelve pieces are open
        assert instance.board.area == 60
    tiling = check_unique(instance).tilings[0]
    for rule in instance.rules:  # the counts hold in the tiling (the checker inside check_unique says so too)
        assert rule.min <= sum(t.piece == rule.name for t in tiling.tiles) <= rule.max


def test_the_same_seed_gives_the_same_board_and_another_seed_another():
    rules = parse_pieces("L4")
    first = generate_puzzle(16, 16, rules, seed=7).instance.board.rows_text()
    assert generate_puzzle(16, 16, rules, seed=7).instance.board.rows_text() == first
    assert generate_puzzle(16, 16, rules, seed=8).instance.board.rows_text() != first


@pytest.mark.parametrize("difficulty,seed", [("easy", 1), ("easy", 2), ("medium", 1), ("medium", 2)])
def test_difficulty_gives_boards_of_that_grade(difficulty, seed):
    puzzle = generate_puzzle(12, 12, parse_pieces("L4"), seed=seed, difficulty=difficulty)
    assert puzzle.grade.grade == difficulty
    assert grade(puzzle.instance).grade == difficulty  # graded again, from the board alone
    assert _unique_two_ways(puzzle.instance)


def test_a_hard_board_with_pieces_used_once():
    puzzle = generate_puzzle(3, 21, parse_pieces("pentominoes:1"), seed=1, difficulty="hard")
    assert grade(puzzle.instance).grade == "hard" and _unique_two_ways(puzzle.instance)


def test_a_40x40_l_panel_board_in_seconds():
    t0 = time.perf_counter()
    puzzle = generate_puzzle(40, 40, parse_pieces("L4"), seed=1)
    assert time.perf_counter() - t0 < 30  # ~2 s here; generous for a loaded CI machine
    assert check_unique(puzzle.instance).verdict == "unique"
    assert puzzle.instance.board.area > 0.4 * 1600


def test_cli_json_is_the_instance_its_grade_and_a_message(tmp_path):
    res = runner.invoke(app, ["generate", "--size", "10x10", "--seed", "3", "--json", "--difficulty", "easy"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    instance = parse_instance(data["instance"])
    assert check_unique(instance).verdict == "unique"
    assert data["grade"]["grade"] == "easy" == grade(instance).grade
    assert data["message"].startswith("generated a unique 10x10 board") and data["size"] == "10x10"
    text = runner.invoke(app, ["generate", "--size", "10x10", "--seed", "3", "--difficulty", "easy"]).stdout
    assert text == data["instance"] and "; grade: easy" in text


@pytest.mark.parametrize("argv", [
    ["generate", "--size", "8x8", "--difficulty", "nope"],
    ["generate", "--size", "2x2", "--pieces", "pentominoes:1"],
])
def test_bad_generate_input_is_one_line(argv):
    res = runner.invoke(app, argv)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")


def test_begin_run_counts_each_later_run_from_its_own_start():
    common.begin_run()  # this process's first run (if it is) counts from the process's start
    common.STARTED = time.perf_counter() - 1000  # a run long ago
    before = time.perf_counter()
    common.begin_run()
    assert common.STARTED >= before  # the old code left STARTED where it was


def test_a_second_in_process_run_gets_its_full_timeout():
    common.begin_run()
    common.STARTED = time.perf_counter() - 1000
    res = runner.invoke(app, ["generate", "--size", "8x8", "--timeout", "30"])
    assert res.exit_code == 0, res.output  # the old code: 'unknown: the time limit ... passed' at once


def test_a_forked_run_counts_from_the_fork():
    common.begin_run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: what the studio's workers are
        try:
            t_fork = time.perf_counter()
            common.begin_run()
            os.write(write, b"1" if common.STARTED >= t_fork - 0.05 else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    os.close(read)
    assert answer == b"1"

"""Bad input, as real processes: one line ``error: ...`` on stderr, nothing on
stdout (with --json too), exit status 2, for every command."""

import json

import pytest

from .process import INSTANCES, Prefetch, selected_cases, tilesat, usage_error

L6 = INSTANCES / "lpanel-6x6.txt"

FILES = {
    "ragged.txt": "pieces: L4\n....\n...\n",
    "unknown-piece.txt": "pieces: Q7\n....\n",
    "bad-count.txt": "pieces: T5:x\n.....\n",
    "huge-count.txt": "pieces: L4:0..99999999999999999999\n......\n.....#\n.....#\n",
    "long-count.txt": "pieces: L4:" + "9" * 5000 + "\n....\n",  # past int()'s 4,300 digits
    "not-a-model.txt": "hello\n",
    # BurrTools XML (plain, not gzipped: both are read) whose piece count is past what tilesat counts
    "huge-count.xmpuzzle": '<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
                           '<problems><problem><shapes><shape id="0" min="0" max="5000000000"/></shapes>'
                           '<result id="0"/></problem></problems></puzzle>',
}

#: --block files that are not a tiling of lpanel-6x6.txt, each as a user might hand one over.
BLOCKS = {
    "another-board.json": None,  # the 8x8 L-Panel's tiling (written from the session's boards)
    "cells-out-of-range.json": [{"piece": "L4", "cells": [[100, 0], [100, 1], [100, 2], [101, 2]]}],
    "negative-cells.json": [{"piece": "L4", "cells": [[-1, 0], [0, 1], [0, 2], [1, 2]]}],
    "huge-cells.json": [{"piece": "L4", "cells": [[10 ** 30, 0], [0, 1], [0, 2], [1, 2]]}],
    "float-cells.json": [{"piece": "L4", "cells": [[0.0, 0], [0, 1], [0, 2], [1, 2]]}],
    "string-cells.json": [{"piece": "L4", "cells": ["ab", "cd"]}],
    "three-coordinates.json": [{"piece": "L4", "cells": [[0, 0, 0], [0, 1, 0], [0, 2, 0], [1, 2, 0]]}],
    "no-tiles.json": [],
    "no-tilings.json": {"tilings": []},
    "an-empty-tiling.json": {"tilings": [[]]},
    "unknown-piece.json": [{"piece": "Q9", "cells": [[0, 0]]}],
    "deeply-nested.json": "[" * 100_000 + "]" * 100_000,
    "not-json.json": "{tilings",
}


@pytest.fixture(scope="module")
def bad(boards, tmp_path_factory):
    d = tmp_path_factory.mktemp("bad-input")
    for name, text in FILES.items():
        (d / name).write_text(text)
    (d / "binary.txt").write_bytes(bytes(range(256)))
    for name, data in BLOCKS.items():
        if name == "another-board.json":
            (d / name).write_text((boards / "lpanel-8x8-tiling.json").read_text())
        else:
            (d / name).write_text(data if isinstance(data, str) else json.dumps(data))
    model = d / "model.txt"
    model.write_text("s SATISFIABLE\nv 1 0\n")
    return d


#: --block cases: the command and the file.
BLOCK_CASES = {f"{command}-{block}": (command, block) for command, block in
               [("export", name) for name in sorted(BLOCKS)]
               + [("decode", "another-board.json"), ("decode", "huge-cells.json"), ("decode", "deeply-nested.json")]}

#: Other bad input: the command line ({bad}: the folder of bad files) and what its one line says.
ERROR_CASES = {
    "missing-file": (["check-unique", "{bad}/nothere.txt"], "cannot read"),
    "ragged-grid": (["solve", "{bad}/ragged.txt", "--json"], "grid row has 3 cells"),
    "unknown-piece": (["solve", "{bad}/unknown-piece.txt"], "unknown piece 'Q7'"),
    "binary-file": (["info", "{bad}/binary.txt"], "not a text file"),
    "a-directory": (["solve", str(INSTANCES)], "is a directory"),
    "bad-count": (["pack", "{bad}/bad-count.txt", "--json"], "bad count 'x'"),
    "huge-count": (["count", "{bad}/huge-count.txt"], "counts go up to 1,000,000,000"),
    "long-count": (["solve", "{bad}/long-count.txt"], "counts go up to 1,000,000,000"),
    # was: the converted instance's line number (count), an OverflowError traceback (--burrtools-count)
    "burrtools-huge-count": (["count", "{bad}/huge-count.xmpuzzle"], "problem 0: shape 0 has a count of 5,000,000,000"),
    "burrtools-count-huge-count": (["count", "--burrtools-count", "{bad}/huge-count.xmpuzzle"],
                                   "problem 0: shape 0 has a count of 5,000,000,000"),
    "count-method": (["count", L6, "--method", "nope", "--json"], "unknown count method 'nope'"),
    "option-the-method-cannot-use": (["count", L6, "--method", "dlx", "--solver", "glucose4"],
                                     "--method dlx does not use it"),
    "cluster": (["count", L6, "--cluster", "nope"], "--cluster nope"),
    "encoding": (["check-unique", L6, "--encoding", "nope", "--json"], "unknown encoding 'nope'"),
    "solver": (["solve", L6, "--solver", "nope"], "unknown solver 'nope'"),
    "timeout": (["solve", L6, "--timeout", "nan"], "--timeout nan"),
    "wrap": (["solve", L6, "--wrap", "sideways"], "unknown wrap 'sideways'"),
    "picture-name": (["solve", L6, "--png", "{bad}/picture.jpg"], "must end in .png"),
    "checkpoint-without-out": (["list", L6, "--checkpoint", "{bad}/c.jsonl"], "--checkpoint needs --out"),
    "compare-missing-file": (["compare", "{bad}/nothere.txt"], "cannot read"),
    "not-a-model": (["decode", L6, "{bad}/not-a-model.txt"], "cannot read line 'hello'"),
    "output-directory": (["export", L6, "-o", "{bad}/no/such/dir/s.cnf"], "no such directory"),
    "family": (["export-family", "nope", "--sizes", "4", "--out", "{bad}/fam"], "unknown family 'nope'"),
    "size": (["generate", "--size", "10"], "--size '10'"),
    "fuzz-encoding": (["fuzz", "--encodings", "nope"], "unknown encoding 'nope'"),
    "tromino-size": (["tromino", "20"], "N must be between 1 and 13"),
    "piece-set": (["pieces", "nope"], "unknown piece or set 'nope'"),
    "command": (["nope"], "No such command 'nope'"),
    "max-memory": (["--max-memory", "nope", "solve", L6], "bad size 'nope'"),
}


@pytest.fixture(scope="module")
def runs(request, bad, tmp_path_factory):
    """The module's selected cases, started ahead two at a time (each a short process)."""
    def block_case(command, block):
        if command == "export":
            out = tmp_path_factory.mktemp("export") / "s.cnf"
            return tilesat("export", L6, "-o", out, "--block", bad / block), out
        return tilesat("decode", L6, bad / "model.txt", "--block", bad / block, "--json"), None

    def error_case(args):
        return tilesat(*[str(a).replace("{bad}", str(bad)) for a in args])

    with Prefetch() as ahead:
        for case in selected_cases(request):
            if case in BLOCK_CASES:
                ahead.submit(case, block_case, *BLOCK_CASES[case])
            elif case in ERROR_CASES:
                ahead.submit(case, error_case, ERROR_CASES[case][0])
        yield ahead


@pytest.mark.parametrize("case", BLOCK_CASES)
def test_block_that_is_not_a_tiling_of_the_board(runs, bad, case):
    """Was (export): a ValueError traceback from the board's index for another board's tiling,
    RecursionError for deep JSON, an empty clause written for []."""
    run, out = runs.result(case)
    usage_error(run, mentions=str(bad / BLOCK_CASES[case][1]))
    assert out is None or not out.exists()


@pytest.mark.parametrize("case", ERROR_CASES)
def test_bad_input_is_one_line_and_exit_2(runs, case):
    usage_error(runs.result(case), ERROR_CASES[case][1])


def test_verify_proof_of_nothing_is_rejected_in_one_line(bad):
    run = tilesat("verify-proof", bad / "no-proof-here")
    assert run.status == 1 and run.out == b"" and run.err == f"proof REJECTED: {bad / 'no-proof-here'}: no such directory\n"

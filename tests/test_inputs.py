"""Every file tilesat takes goes through one bounded reader (tilesat.running.inputs):
garbage, endless and huge inputs end in one ``error:`` line and exit status 2,
quickly and within bounded memory, through real processes (issue 33)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import threading
import time
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from procs import run_tilesat, tilesat_argv
from tilesat.running import inputs
from tilesat.errors import TilesatError

ROOT = Path(__file__).resolve().parent.parent
LPANEL = ROOT / "instances" / "lpanel-6x6.txt"
#: What a refused input may cost a whole tilesat process (the interpreter,
#: numpy and the CLI are ~70-100 MiB of it).
MEMORY_BOUND = 400 << 20


# -- the reader itself ------------------------------------------------------------

def test_the_limit_is_checked_while_reading(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x" * 100)
    assert inputs.read_bytes(f, 100) == b"x" * 100
    with pytest.raises(TilesatError, match=r"f: larger than 99 bytes; because$"):
        inputs.read_bytes(f, 99, why="because")


def test_an_endless_fifo_stops_at_the_limit(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    stop = threading.Event()

    def feed():
        with open(fifo, "wb") as w:
            try:
                while not stop.is_set():
                    w.write(b"y\n" * 65536)
            except BrokenPipeError:
                pass

    threading.Thread(target=feed, daemon=True).start()
    try:
        with pytest.raises(TilesatError, match="larger than 3.0 MiB"):
            inputs.read_text(fifo, 3 << 20)
    finally:
        stop.set()


@pytest.mark.parametrize("text, says", [
    ("[" * 100_000 + "]" * 100_000, "nested more than 64 deep"),
    ("[" * 65 + "]" * 65, "nested more than 64 deep"),
    ('{"a": "\\ud800"}', "lone surrogate"),
    ('{"\\udfff": 1}', "lone surrogate"),
    ("[NaN]", "not JSON"),
    ("[1e999999, -Infinity]", "not JSON"),
    ("{", "not JSON (Expecting property name"),
])
def test_json_is_bounded(text, says):
    with pytest.raises(TilesatError, match=r"^here: ") as e:
        inputs.parse_json(text, "here")
    assert says in str(e.value) and "\n" not in str(e.value)


def test_json_within_the_bounds_is_read():
    assert inputs.parse_json("[" * 64 + "]" * 64, "x") is not None
    assert inputs.parse_json('{"a": ["\\u00e9", 1.5, null]}', "x") == {"a": ["é", 1.5, None]}


@given(st.binary(max_size=300))
def test_any_bytes_are_json_or_one_line(data):
    try:
        inputs.parse_json(data, "f")
    except TilesatError as e:
        assert str(e).startswith("f: ") and "\n" not in str(e)


# -- every reader, as the command line uses it ------------------------------------

def _checkpoint_line(data: dict) -> str:
    body = json.dumps(data, separators=(",", ":"), sort_keys=True)
    return json.dumps({"crc": zlib.crc32(body.encode()), "data": data}, separators=(",", ":"), sort_keys=True) + "\n"


#: Each reader: the command line that reads FILE.
READERS = {
    "instance": lambda f: ["check-unique", f],
    "model": lambda f: ["decode", LPANEL, f],
    "block": lambda f: ["export", LPANEL, "-o", os.devnull, "--force", "--block", f],
    "decode-block": lambda f: ["decode", LPANEL, ROOT / "tests" / "procs.py", "--block", f],
    "checkpoint": lambda f: ["count", LPANEL, "--method", "dlx", "--checkpoint", f],
    "burrtools": lambda f: ["count", f],
    "puzzler": lambda f: ["check-unique", f],
}
#: Readers chosen by the file's ending: the input is given under a name that has it.
ENDINGS = {"burrtools": ".xmpuzzle", "puzzler": ".py"}


def _named(reader: str, path, folder: Path):
    """``path`` as ``reader`` takes it: itself, or a link to it with the reader's ending."""
    if reader not in ENDINGS:
        return path
    link = folder / f"input{ENDINGS[reader]}"
    link.symlink_to(path)
    return link


def _refused_in_one_line(run, reader: str) -> str:
    assert not run.capped, f"{reader}: grew past {run.peak_rss >> 20} MiB"
    assert run.returncode == 2, (reader, run.returncode, run.stderr)
    assert run.stdout == b""
    assert run.peak_rss < MEMORY_BOUND, f"{reader}: {run.peak_rss >> 20} MiB"
    return run.error_line()


@pytest.mark.parametrize("reader", sorted(READERS))
def test_dev_zero_stops_at_once(reader, tmp_path):
    # issue 33: decode grew to 24 GB on /dev/zero; export --block and count --checkpoint at 0.4-0.9 GB/s
    name = _named(reader, "/dev/zero", tmp_path)
    run = run_tilesat(*READERS[reader](name), timeout=60)
    assert str(name) in _refused_in_one_line(run, reader)


@pytest.mark.parametrize("reader", ["model", "block"])
def test_an_endless_text_stream_stops_at_the_limit(reader):
    # not NUL bytes: the size limit, checked while reading, is what stops it
    yes = subprocess.Popen(["yes", "1 2 3"], stdout=subprocess.PIPE)
    try:
        run = run_tilesat(*READERS[reader]("/dev/stdin"), stdin=yes.stdout, timeout=60)
    finally:
        yes.kill()
        yes.wait()
    assert "larger than" in _refused_in_one_line(run, reader)


def _garbage():
    """Bytes, text, JSON (deep, huge, wrong) and forged checkpoints."""
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
        max_leaves=12)
    header = st.fixed_dictionaries({
        "format": st.sampled_from(["tilesat-checkpoint/1", "x"]), "kind": st.sampled_from(["count", "list"]),
        "split": json_values, "units": json_values, "plan": json_values, "method": st.just("dlx"),
        "instance": st.text(max_size=4), "up_to_symmetry": st.booleans()})
    return st.one_of(
        st.binary(max_size=3000),
        st.text(max_size=500).map(str.encode),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.integers(60, 50_000).map(lambda n: b"[" * n + b"]" * n),
        st.integers(1, 5000).map(lambda n: ('[{"piece": "L4", "cells": [' + "[1, 2]," * n + "[0.5, 1]]}]").encode()),
        st.sampled_from([b'"\\ud800"', b'[{"piece": "\\udc00", "cells": [[0, 0]]}]', b"[]", b"{}", b"null",
                         b'{"tilings": []}', b"v 1 -1 0", b"s SATISFIABLE\nv 99999999999999999999 0"]),
        st.lists(header.map(_checkpoint_line), min_size=1, max_size=2).map(lambda lines: "".join(lines).encode()),
    )


@pytest.mark.slow
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reader=st.sampled_from(sorted(READERS)), data=_garbage())
def test_garbage_through_every_reader_is_one_line(tmp_path, reader, data):
    f = tmp_path / ("garbage" + ENDINGS.get(reader, ""))
    f.write_bytes(data)
    run = run_tilesat(*READERS[reader](f), timeout=120)
    _refused_in_one_line(run, reader)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_read_waiting_on_a_silent_pipe_stops_on_a_signal(tmp_path, signum):
    # reading is interruptible: a FIFO whose writer never writes holds the read, not the user
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(tilesat_argv("decode", LPANEL, fifo), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer = None
    try:
        deadline = time.monotonic() + 60
        while writer is None:  # opened without blocking once tilesat has it open to read
            try:
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                assert e.errno == errno.ENXIO and process.poll() is None and time.monotonic() < deadline, e
                time.sleep(0.02)
        time.sleep(0.3)  # in the read now, nothing to read
        process.send_signal(signum)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail("the read held tilesat past the signal")
    finally:
        if writer is not None:
            os.close(writer)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signum
    assert out == b""
    lines = err.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted"), err


# -- the cases of the issue, one by one -----------------------------------------------

def test_a_model_giving_a_variable_both_values_is_one_line(tmp_path):
    # issue 33: "BUG: tilesat produced an invalid tiling", exit 1
    from pysat.formula import CNF
    from pysat.solvers import Cadical153

    cnf = tmp_path / "f.cnf"
    assert run_tilesat("export", LPANEL, "-o", cnf).returncode == 0
    with Cadical153(bootstrap_with=CNF(from_file=str(cnf)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    false = -next(lit for lit in model if lit < 0)
    (tmp_path / "m.txt").write_text(f"s SATISFIABLE\nv {false} {' '.join(map(str, model))} 0\n")
    line = _refused_in_one_line(run_tilesat("decode", LPANEL, tmp_path / "m.txt"), "model")
    assert line == f"error: {tmp_path / 'm.txt'} gives variable {false} both true and false"


@pytest.mark.parametrize("tiling, says", [
    ("[]", "the tiling has no tile"),  # issue 33: the empty clause, written without a word
    ('[{"piece": "L4", "cells": [[0.5, 1]]}]', "not a tiling"),  # TypeError
    ('[{"piece": "L4", "cells": [[99, 99]]}]', "L4 covers (99, 99), off the board"),  # ValueError
    ("[" * 100_000 + "]" * 100_000, "nested more than 64 deep"),  # RecursionError
    ('[{"piece": "L4", "cells": [[true, 1]]}]', "not a tiling"),
    ('{"tilings": [[{"piece": "L4", "cells": "ab"}]]}', "not a tiling"),
])
def test_bad_block_tilings_are_one_line(tmp_path, tiling, says):
    (tmp_path / "t.json").write_text(tiling)
    out = tmp_path / "out.cnf"
    line = _refused_in_one_line(run_tilesat("export", LPANEL, "-o", out, "--block", tmp_path / "t.json"), "block")
    assert says in line
    assert not out.exists()


@pytest.fixture(scope="module")
def checkpoint_header(tmp_path_factory):
    """The header of a real count's checkpoint (made once: each forgery below starts from it)."""
    book = tmp_path_factory.mktemp("checkpoint") / "c.jsonl"
    first = run_tilesat("count", LPANEL, "--method", "dlx", "--checkpoint", book)
    assert first.returncode == 0, first.stderr
    return json.loads(book.read_text().splitlines()[0])["data"]


@pytest.mark.parametrize("split", ["x", 10**9, True, 0, None, [64]])
def test_a_forged_checkpoint_header_is_one_line(tmp_path, checkpoint_header, split):
    # issue 33: a header with "split": "x" (its CRC made right) was a TypeError
    book = tmp_path / "c.jsonl"
    book.write_text(_checkpoint_line({**checkpoint_header, "split": split}))
    line = _refused_in_one_line(run_tilesat("count", LPANEL, "--method", "dlx", "--checkpoint", book), "checkpoint")
    assert "'split' is not a number of units" in line


def test_max_memory_refuses_a_huge_board_before_reading_it_into_memory(tmp_path):
    # issue 33: --max-memory 1G let a 60 MB one-line board reach 5.2 GB before refusing it
    board = tmp_path / "wide.txt"
    with open(board, "w") as f:
        f.write("pieces: L4\n")
        f.write("." * 60_000_000 + "\n")
    run = run_tilesat("--max-memory", "1G", "check-unique", board, timeout=120)
    line = _refused_in_one_line(run, "instance")
    assert "instance too large" in line and "--max-memory" in line  # (the old code: 4.9 GB, 45 s, then this)

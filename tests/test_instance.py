import dataclasses
import os
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesat.running import inputs
from tilesat.running import memory
from tilesat import TilesatError, format_instance, load_instance, parse_instance, parse_pieces
from tilesat.model.instance import INF, parse_count


def test_parse_full_header():
    inst = parse_instance(
        "; comment\npieces: X5:0..3, I2, Q/fixed:2, tetrominoes/one-sided:1\nshape: Q ##/#./##\n"
        "wrap: rows\n; in the grid too\n...#\n....\n"
    )
    assert inst.board.rows == 2 and inst.board.cols == 4 and inst.board.area == 7
    assert inst.board.wrap == "rows"
    rules = {r.name: r for r in inst.rules}
    assert (rules["X5"].min, rules["X5"].max) == (0, 3)
    assert (rules["I2"].min, rules["I2"].max, rules["I2"].orient) == (0, INF, "free")
    assert rules["Q"].orient == "fixed" and rules["Q"].piece.size == 5
    assert [n for n in rules if n.endswith("4")] == ["I4", "O4", "T4", "S4", "L4"]
    assert all(rules[n].orient == "one-sided" and rules[n].min == rules[n].max == 1 for n in ("I4", "L4"))


def test_overrides_and_round_trip():
    inst = parse_instance("pieces: L4\nwrap: both\n....\n....\n", pieces="I2:0..", wrap="none")
    assert [r.name for r in inst.rules] == ["I2"] and inst.board.wrap == "none"
    again = parse_instance(format_instance(inst, ["made by a test"]))
    assert again.pieces_spec() == inst.pieces_spec() and again.board.rows_text() == inst.board.rows_text()


@pytest.mark.parametrize(
    "text,message",
    [
        ("pieces: L4\n....\n...\n", "3: grid row has 3 cells but the first row (line 2) has 4"),
        ("pieces: Q9\n....\n", "unknown piece 'Q9'"),
        ("pieces: L4:x\n....\n", "bad count 'x'"),
        ("pieces: L4:3..1\n....\n", "the range is empty"),
        ("pieces: L4:0..99999999999999999999\n....\n", "counts go up to 1,000,000,000"),
        ("pieces: L4:1000000001..\n....\n", "counts go up to 1,000,000,000"),
        ("pieces: L4:" + "9" * 5000 + "\n....\n", "counts go up to 1,000,000,000"),  # past int()'s 4,300 digits
        ("pieces: L4:1.." + "1" * 5000 + "\n....\n", "counts go up to 1,000,000,000"),
        ("pieces: L4/sideways\n....\n", "bad orientation 'sideways'"),
        ("pieces: L4, L4\n....\n", "listed twice"),
        ("....\n", "no pieces given: add a header line such as 'pieces: L4'"),
        ("pieces: L4\n", "no grid"),
        ("pieces: L4\n####\n", "no open cell"),
        ("pieces: L4\ncolour: red\n....\n", "2: unknown header 'colour'"),
        ("pieces: L4\n....\npieces: I2\n", "after the grid"),
        ("pieces: L4\n..%.\n", "not a grid row"),
        ("pieces: L4\n....\n\n....\n", "grid row after a blank line"),
        ("pieces: L4\nwrap: sideways\n....\n", "unknown wrap 'sideways'"),
        ("pieces: L4\nshape: L4 ##\n....\n", "is a built-in piece"),
        ("pieces: Q\nshape: Q #x#\n....\n", "only '#' and '.'"),
        ("pieces: L4\npieces: I2\n....\n", "given twice"),
        ("pieces: ,\n....\n", "empty"),
    ],
)
def test_bad_input_is_one_clear_error(text, message):
    with pytest.raises(TilesatError) as e:
        parse_instance(text, source="f.txt")
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_load_errors(tmp_path):
    with pytest.raises(TilesatError, match="cannot read"):
        load_instance(tmp_path / "missing.txt")
    with pytest.raises(TilesatError, match="directory"):
        load_instance(tmp_path)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(TilesatError, match="not a text file"):
        load_instance(binary)


def test_file_too_large_is_refused_before_reading(tmp_path, monkeypatch):
    f = tmp_path / "big.txt"
    f.write_text("pieces: I2\n" + "..\n" * 100)
    monkeypatch.setattr(memory, "MAX_INSTANCE_BYTES", 50)
    monkeypatch.setattr(inputs, "READ_CHUNK", None)  # any read would fail on it
    with pytest.raises(TilesatError, match=r"big.txt: larger than 50 bytes; instance files are text grids"):
        load_instance(f)


def _fifo_fed_with(tmp_path, data: bytes, times: int):
    """A FIFO that a thread fills with ``data`` ``times`` times (its size,
    for stat, is 0: only reading tells)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as f:
                for _ in range(times):
                    f.write(data)
        except BrokenPipeError:  # the reader stopped: what a bounded reader does
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return fifo, writer


def test_reading_is_bounded_for_files_whose_size_is_unknown(tmp_path, monkeypatch):
    """A FIFO (or /dev/zero, a pipe) is read up to the limit, then refused; fed
    4 MiB here (not for ever, so that old code fails instead of eating memory)."""
    monkeypatch.setattr(memory, "MAX_INSTANCE_BYTES", 3 * 2**20)
    fifo, writer = _fifo_fed_with(tmp_path, b"....\n" * 2**14, 52)  # 80 KiB x 52 > 4 MiB
    with pytest.raises(TilesatError, match="fifo: larger than 3.0 MiB; instance files are text grids"):
        load_instance(fifo)
    writer.join(5)


def test_exactly_the_limit_is_read(tmp_path, monkeypatch):
    f = tmp_path / "exact.txt"
    text = "pieces: I2\n" + "..\n" * 10
    f.write_text(text)
    monkeypatch.setattr(memory, "MAX_INSTANCE_BYTES", len(text))
    assert load_instance(f).board.area == 20
    monkeypatch.setattr(memory, "MAX_INSTANCE_BYTES", len(text) - 1)
    with pytest.raises(TilesatError, match="larger than"):
        load_instance(f)


def test_nul_bytes_stop_the_reading_at_once(tmp_path, monkeypatch):
    """/dev/zero as the reader sees it, bounded: refused after the first chunk
    (the writer is left with nearly all of its 8 MiB)."""
    fifo, writer = _fifo_fed_with(tmp_path, bytes(2**16), 128)
    t0 = time.monotonic()
    with pytest.raises(TilesatError, match=r"fifo: not a text file \(it contains NUL bytes\)"):
        load_instance(fifo)
    assert time.monotonic() - t0 < 2
    writer.join(5)


def test_byte_order_mark_is_not_a_header(tmp_path):
    f = tmp_path / "bom.txt"
    f.write_bytes("\ufeffpieces: I2\n..\n".encode("utf-8"))
    assert load_instance(f).board.area == 2


@settings(max_examples=200)
@given(st.binary(max_size=300), st.sampled_from([b"", b"pieces: L4\n", b"pieces: I2\n..\n", b"\xef\xbb\xbf"]))
def test_random_bytes_are_an_instance_or_one_clear_error(tmp_path_factory, data, prefix):
    f = tmp_path_factory.mktemp("fuzz") / "f.txt"
    f.write_bytes(prefix + data)
    try:
        load_instance(f)
    except TilesatError as e:
        assert "\n" not in str(e) and "\x00" not in str(e)


def test_counts_with_leading_zeros_past_ints_digit_limit_parse():
    assert parse_count("0" * 5000 + "3") == (3, 3) and parse_count("0" * 5000 + "..0" + "0" * 4400 + "7") == (0, 7)
    assert parse_count("000..") == (0, INF) and parse_count("0001000000000") == (10**9, 10**9)


def test_parse_pieces_counts():
    rules = parse_pieces("pentominoes:1")
    assert len(rules) == 12 and all(r.min == r.max == 1 for r in rules)
    assert parse_pieces("domino:*")[0].name == "I2"



@pytest.mark.parametrize("method", ["auto", "xcc", "blocking", "frontier", "native", "ganak"])
def test_the_largest_count_is_kept_in_machine_integers(method):
    # 0..1000000000 counts as 'no upper bound' on a 2x4 board (5 domino tilings), 10**9.. as 'none'
    from tilesat.questions.count import count_tilings
    many, too_many = (parse_instance(f"pieces: I2:{count}\n....\n....\n") for count in ("0..1000000000", "1000000000.."))
    assert (count_tilings(many, method).count, count_tilings(too_many, method).count) == (5, 0)
    # the library's rules may hold any number: the engines clamp it
    huge = dataclasses.replace(many.rules[0], max=10**20)
    assert count_tilings(many.with_rules([huge]), method).count == 5
    assert count_tilings(many.with_rules([dataclasses.replace(huge, min=10**20)]), method).count == 0

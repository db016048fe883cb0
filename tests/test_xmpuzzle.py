"""BurrTools files: read, write, read gives the same puzzle; bad files get one clear error."""

import gzip

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesat.errors import TilesatError
from tilesat.model.xmpuzzle import (
    EMPTY, FILLED, VARIABLE, BurrProblem, BurrPuzzle, BurrShape, Part, format_xmpuzzle, parse_xmpuzzle,
    read_xmpuzzle, write_xmpuzzle,
)

# names with the characters XML must escape, and some beyond ASCII (a name is one line)
names = st.text(st.sampled_from("ab Z09_-&<>\"'çé€"), max_size=10)


@st.composite
def shapes(draw, colours):
    x, y, z = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    voxel = st.tuples(st.sampled_from([EMPTY, FILLED, VARIABLE]), st.integers(0, colours))
    voxels = tuple((s, c if s != EMPTY else 0) for s, c in draw(st.lists(voxel, min_size=x * y * z,
                                                                        max_size=x * y * z)))
    hotspot = draw(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)))
    return BurrShape(x, y, z, voxels, draw(names), draw(st.integers(1, 5)), hotspot)


@st.composite
def problems(draw, n_shapes, colours):
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        lo = draw(st.integers(0, 3))
        hi = lo + draw(st.integers(0, 3))
        groups = tuple(draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3)), max_size=2)))
        parts.append(Part(draw(st.integers(0, n_shapes - 1)), lo, hi, draw(st.integers(0, 2)) if not groups else 0,
                          groups))
    pairs = frozenset(draw(st.lists(st.tuples(st.integers(0, colours - 1), st.integers(0, colours - 1)),
                                    max_size=4))) if colours else frozenset()
    state = draw(st.sampled_from([0, 2]))
    recorded = st.none() | st.integers(0, 10**6)
    return BurrProblem(tuple(parts), draw(st.integers(0, n_shapes - 1)), draw(names), pairs,
                       draw(st.none() | st.integers(0, 9)), state,
                       draw(recorded) if state else None, draw(recorded) if state else None,
                       draw(recorded) if state else None)


@st.composite
def puzzles(draw):
    colours = draw(st.integers(0, 12))
    shape_list = draw(st.lists(shapes(colours), min_size=1, max_size=4))
    problem_list = draw(st.lists(problems(len(shape_list), colours), max_size=3))
    rgb = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
    return BurrPuzzle(draw(st.integers(0, 4)), tuple(draw(st.lists(rgb, min_size=colours, max_size=colours))),
                      tuple(shape_list), tuple(problem_list), draw(names | st.just("two\nlines")),
                      draw(st.booleans()))


@given(puzzle=puzzles())
def test_round_trip(tmp_path_factory, puzzle):
    path = tmp_path_factory.getbasetemp() / "round-trip.xmpuzzle"  # rewritten by each example
    write_xmpuzzle(puzzle, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip'd, as BurrTools writes
    again = read_xmpuzzle(path)
    assert again == puzzle
    assert parse_xmpuzzle(format_xmpuzzle(puzzle).encode()) == puzzle  # plain XML reads too


def test_voxel_string_and_colours():
    xml = b"""<?xml version="1.0"?><puzzle version="2"><gridType type="0"/>
    <colors><color red="1" green="2" blue="3"/><color red="4" green="5" blue="6"/></colors>
    <shapes><voxel x="2" y="2" z="1" name="L" type="0">#12_+#2</voxel></shapes>
    <problems><problem name="P"><shapes><shape id="0" min="1" max="3"/><shape id="0"/></shapes>
    <result id="0"/><bitmap><pair piece="1" result="0"/></bitmap></problem></problems>
    <comment>caf\xc3\xa9</comment></puzzle>"""
    p = parse_xmpuzzle(xml)
    s = p.shapes[0]
    # x fastest: voxel 0 is (0,0,0) filled colour 12, voxel 2 is (0,1,0) variable, voxel 3 filled colour 2
    assert s.voxels == ((FILLED, 12), (EMPTY, 0), (VARIABLE, 0), (FILLED, 2))
    assert s.cells() == {(0, 0, 0): (FILLED, 12), (0, 1, 0): (VARIABLE, 0), (1, 1, 0): (FILLED, 2)}
    assert p.colours == ((1, 2, 3), (4, 5, 6))
    prob = p.problems[0]
    assert prob.parts == (Part(0, 1, 3), Part(0, 1, 1))  # no count: once
    assert prob.allowed(2, 1, 2) and not prob.allowed(1, 2, 2) and prob.allowed(0, 2, 2) and prob.allowed(1, 0, 2)
    assert p.comment == "café"
    assert p.problem("P")[0] == 0 and p.problem("0")[0] == 0


def test_latin1_file(tmp_path):
    text = '<puzzle version="2"><shapes/><comment>Markus G\xf6tz</comment></puzzle>'.encode("latin-1")
    path = tmp_path / "old.xmpuzzle"
    path.write_bytes(gzip.compress(text))
    assert read_xmpuzzle(path).comment == "Markus Götz"


@pytest.mark.parametrize("body, message", [
    (b"not xml", "not BurrTools XML"),
    (b"<board/>", "not <puzzle>"),
    (b'<puzzle version="7"/>', "version"),
    (b'<puzzle version="2"><gridType type="9"/></puzzle>', "unknown grid type 9"),
    (b'<puzzle version="2"><shapes><voxel x="2" y="1" z="1" type="0">#</voxel></shapes></puzzle>', "size is 2"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#64</voxel></shapes></puzzle>', "too big"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">x</voxel></shapes></puzzle>', "'x'"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" type="0">#</voxel></shapes></puzzle>', "'z'"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
     b'<problems><problem><shapes><shape id="3"/></shapes><result id="0"/></problem></problems></puzzle>',
     "not a shape"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
     b'<problems><problem><shapes><shape id="0" min="2" max="1"/></shapes><result id="0"/></problem></problems>'
     b'</puzzle>', "min 2 > max 1"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
     b'<problems><problem><shapes><shape id="0" count="1000000001"/></shapes><result id="0"/></problem></problems>'
     b'</puzzle>', "shape 0 has a count of 1,000,000,001: counts go up to 1,000,000,000"),
    (b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
     b'<problems><problem><shapes><shape id="0" min="0" max="2"><group group="1" count="9999999999"/></shape>'
     b'</shapes><result id="0"/></problem></problems></puzzle>', "shape 0 has a count of 9,999,999,999"),
    (b'<puzzle version="2"><shapes/><problems><problem><shapes/></problem></problems></puzzle>', "no <result>"),
])
def test_bad_files(body, message):
    with pytest.raises(TilesatError, match=message) as e:
        parse_xmpuzzle(body, "f.xmpuzzle")
    assert "\n" not in str(e.value) and str(e.value).startswith("f.xmpuzzle")


def test_missing_problem():
    p = parse_xmpuzzle(b'<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">#</voxel></shapes>'
                       b'<problems><problem name="a"><shapes/><result id="0"/></problem></problems></puzzle>', "f")
    with pytest.raises(TilesatError, match="no problem 1"):
        p.problem(1)
    with pytest.raises(TilesatError, match="no problem named 'b'"):
        p.problem("b")

"""BurrTools problems counted as BurrTools counts them (docs/guide/burrtools.md).

The shipped files' counts are BurrTools' own (burrTxt, burrTxt2 -m; listed in
instances/burrtools/README.md) and, for tilesat's small files, the brute force
of burrtools_oracle; random small puzzles compare the engine with that brute
force under every convention."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import burrtools_oracle
from tilesat.questions.burrtools import burr_cover
from tilesat.errors import TilesatError
from tilesat.engines.xcc import count
from tilesat.model.xmpuzzle import BurrProblem, BurrPuzzle, BurrShape, Part, parse_xmpuzzle, read_xmpuzzle

FILES = Path(__file__).resolve().parent.parent / "instances" / "burrtools"

# file, problem, default, keep mirror, every assembly; ours: the oracle counts them too
SHIPPED = [
    ("SolidSixPieceBurrs", 0, 588, 1063, 12597, False),
    ("DemoMirrorParadox", 0, 1, 2, 2, False),
    ("DemoMirrorParadox", 1, 1, 2, 48, False),
    ("DemoPieceGenerator", 0, 928, 1760, 1760, False),
    ("rotations", 0, 1, 1, 4, True),
    ("copies-and-twins", 0, 1, 1, 1, True),
    ("copies-and-twins", 1, 3, 3, 6, True),
    ("colours", 0, 1, 1, 1, True),
    ("colours", 1, 0, 0, 0, True),
    ("colours", 2, 1, 1, 1, True),
    ("holes", 0, 2, 2, 2, True),
    ("holes", 1, 1, 1, 1, True),
    ("mirror-partners", 0, 2, 3, 25, True),
    ("mirror-unpaired", 0, 3, 3, 19, True),
    ("twins-no-partner", 0, 1, 1, 12, True),
]


def counts(puzzle, problem):
    return [count(burr_cover(puzzle, problem, keep_mirror=m, keep_rotations=r).cover).count
            for m, r in ((False, False), (True, False), (True, True))]


@pytest.mark.parametrize("name, problem, default, mirror, every, ours", SHIPPED)
def test_shipped_files(name, problem, default, mirror, every, ours):
    puzzle = read_xmpuzzle(FILES / f"{name}.xmpuzzle")
    assert counts(puzzle, problem) == [default, mirror, every]
    if ours:
        assert [burrtools_oracle.count(puzzle, problem, m, r) for m, r in ((0, 0), (1, 0), (1, 1))] == \
            [default, mirror, every]


def test_recorded_count_is_with_mirrors_kept():
    # SolidSixPieceBurrs records 1,063 assemblies: its author solved it keeping mirror solutions
    puzzle = read_xmpuzzle(FILES / "SolidSixPieceBurrs.xmpuzzle")
    assert puzzle.problems[0].assemblies == count(burr_cover(puzzle, 0, keep_mirror=True).cover).count == 1063


def test_every_file_is_listed():
    assert {p.stem for p in FILES.glob("*.xmpuzzle")} == {name for name, *_ in SHIPPED}
    readme = (FILES / "README.md").read_text()
    assert all(f"{name}.xmpuzzle" in readme for name, *_ in SHIPPED)


# --- random small puzzles -------------------------------------------------------

def _shape(cells: dict, name="") -> BurrShape:
    X, Y, Z = (1 + max(c[i] for c in cells) for i in range(3))
    voxels = [(0, 0)] * (X * Y * Z)
    for (x, y, z), v in cells.items():
        voxels[x + X * (y + Y * z)] = v
    return BurrShape(X, Y, Z, tuple(voxels), name)


STEPS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


@st.composite
def polycube(draw, size, colours):
    cells = [(0, 0, 0)]
    while len(cells) < size:
        base = draw(st.sampled_from(cells))
        step = draw(st.sampled_from(STEPS))
        new = tuple(a + b for a, b in zip(base, step))
        if new not in cells:
            cells.append(new)
    low = [min(c[i] for c in cells) for i in range(3)]
    return {tuple(a - b for a, b in zip(c, low)): (1, draw(st.integers(0, colours))) for c in cells}


@st.composite
def small_puzzles(draw):
    colours = draw(st.integers(0, 2))
    X, Y, Z = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    result = {}
    for x in range(X):
        for y in range(Y):
            for z in range(Z):
                state = draw(st.sampled_from([1, 1, 1, 2, 0]))
                if state:
                    result[(x, y, z)] = (state, draw(st.integers(0, colours)) if draw(st.booleans()) else 0)
    if not result:
        result[(0, 0, 0)] = (1, 0)
    pieces = []
    for k in range(draw(st.integers(1, 3))):
        if pieces and draw(st.booleans()):
            # the mirror image of an earlier piece, or a twin (same voxels)
            src = draw(st.sampled_from(pieces)).cells()
            flip = draw(st.booleans())
            cells = {((-x if flip else x), y, z): v for (x, y, z), v in src.items()}
            low = [min(c[i] for c in cells) for i in range(3)]
            pieces.append(_shape({tuple(a - b for a, b in zip(c, low)): v for c, v in cells.items()}))
        else:
            pieces.append(_shape(draw(polycube(draw(st.integers(1, 3)), colours))))
    parts = []
    for k in range(len(pieces)):
        lo = draw(st.integers(0, 2))
        parts.append(Part(k, lo, lo if draw(st.booleans()) else lo + draw(st.integers(1, 2))))
    pairs = frozenset(draw(st.lists(st.tuples(st.integers(0, colours - 1), st.integers(0, colours - 1)),
                                    max_size=3))) if colours else frozenset()
    problem = BurrProblem(tuple(parts), len(pieces), pairs=pairs, max_holes=draw(st.none() | st.integers(0, 2)))
    return BurrPuzzle(0, ((9, 9, 9),) * colours, tuple(pieces) + (_shape(result),), (problem,))


@settings(max_examples=150)
@given(small_puzzles(), st.booleans(), st.booleans())
def test_engine_counts_as_the_oracle(puzzle, keep_mirror, keep_rotations):
    want = burrtools_oracle.count(puzzle, 0, keep_mirror, keep_rotations)
    assert count(burr_cover(puzzle, 0, keep_mirror, keep_rotations).cover).count == want


# --- what tilesat refuses ----------------------------------------------------------

def _file(grid=0, result="#", piece="#", colours=0):
    return parse_xmpuzzle((
        f'<puzzle version="2"><gridType type="{grid}"/><colors>'
        + '<color red="1" green="1" blue="1"/>' * colours
        + f'</colors><shapes><voxel x="{len(piece.rstrip("0123456789"))}" y="1" z="1" type="0">{piece}</voxel>'
        f'<voxel x="1" y="1" z="1" type="0">{result}</voxel></shapes>'
        '<problems><problem><shapes><shape id="0"/></shapes><result id="1"/></problem></problems></puzzle>'
    ).encode(), "f.xmpuzzle")


@pytest.mark.parametrize("puzzle, message", [
    (_file(grid=2), "grid type 2 \\(spheres\\)"),
    (_file(piece="+"), "no filled voxels"),
    (_file(result="_"), "result shape .* has no voxels"),
    (_file(piece="#3", colours=1), "colour 3 but the file defines 1"),
])
def test_refused(puzzle, message):
    with pytest.raises(TilesatError, match=message) as e:
        burr_cover(puzzle, 0)
    assert "\n" not in str(e.value)


# --- a problem as a tilesat instance (the commands' route) --------------------------------

@settings(max_examples=40, deadline=None)
@given(small_puzzles())
def test_the_instance_counts_every_assembly(puzzle):
    """tilesat's own count of a problem (variable voxels as optional cells, colours as
    colour letters) is BurrTools' count with every rotation kept apart, by the engine
    and by blocking clauses."""
    from tilesat.model.instance import parse_instance
    from tilesat.model.xmpuzzle import FILLED, VARIABLE, burr_instance_text
    from tilesat.questions.count import count_tilings

    try:
        instance = parse_instance(burr_instance_text(puzzle, 0))
    except TilesatError as e:
        assert "\n" not in str(e)
        if "every count is 0" in str(e):
            assert all(p.max == 0 for p in puzzle.problems[0].parts)
            return
        problem = puzzle.problems[0]
        if "no filled voxels" in str(e):  # a piece of variable voxels only
            assert any(not puzzle.shapes[p.shape].count(FILLED) for p in problem.parts if p.max > 0)
            return
        assert "maxHoles" in str(e) and problem.max_holes is not None
        assert puzzle.shapes[problem.result].count(VARIABLE)
        return
    want = burrtools_oracle.count(puzzle, 0, True, True)
    for method in ("xcc", "blocking"):
        assert count_tilings(instance, method, certificates=False).count == want, method


@pytest.mark.parametrize("name, problem, every", [(n, p, e) for n, p, _, _, e, _ in SHIPPED
                                                   if (n, p) != ("holes", 1)])
def test_shipped_files_as_instances(name, problem, every):
    from tilesat.model.instance import load_instance
    from tilesat.questions.count import count_tilings

    instance = load_instance(f"{FILES / name}.xmpuzzle:{problem}")
    assert count_tilings(instance, "xcc").count == every


def test_the_commands_read_a_burrtools_file(tmp_path):
    import json
    import subprocess
    import sys

    def tilesat(*args):
        return subprocess.run([sys.executable, "-m", "tilesat", *args], capture_output=True, cwd=tmp_path)

    run = tilesat("count", str(FILES / "copies-and-twins.xmpuzzle:three different shapes"), "--json")
    assert run.returncode == 0 and json.loads(run.stdout)["count"] == 6
    run = tilesat("solve", str(FILES / "rotations.xmpuzzle"), "--json")
    assert run.returncode == 0 and json.loads(run.stdout)["verdict"] == "solved"
    run = tilesat("count", str(FILES / "holes.xmpuzzle"), "--json")  # variable voxels: optional cells
    assert run.returncode == 0 and json.loads(run.stdout)["count"] == 2
    run = tilesat("count", str(FILES / "colours.xmpuzzle:2"), "--json")
    assert run.returncode == 0 and json.loads(run.stdout)["count"] == 1
    run = tilesat("count", str(FILES / "holes.xmpuzzle:1"))  # maxHoles with a varying volume
    assert run.returncode == 2 and run.stdout == b""
    assert run.stderr.decode().startswith("error: ") and run.stderr.count(b"\n") == 1 and b"maxHoles" in run.stderr
    run = tilesat("count", str(FILES / "rotations.xmpuzzle:7"))
    assert run.returncode == 2 and b"no problem 7" in run.stderr


def test_the_benchmark_counts_without_burrtxt_and_says_so(tmp_path):
    import json
    import subprocess
    import sys

    script = FILES.parent.parent / "scripts" / "bench_burrtools.py"
    out = tmp_path / "t.json"
    run = subprocess.run([sys.executable, str(script), str(FILES / "copies-and-twins.xmpuzzle"), "--burrtxt",
                          str(tmp_path / "no-burrTxt"), "--json", str(out)], capture_output=True, text=True)
    assert run.returncode == 0 and "burrTxt not found" in run.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [(r[3], r[2]) for r in rows] == [(1, "-"), (3, "-")]  # tilesat's counts; no peer's

"""Classes of tilings by the whole-instance engines (frontier, pfaffian) through
Burnside's lemma and the quotient by each symmetry (tilesat.engines.burnside):
each quotient counts exactly the tilings its symmetry fixes (against a brute
force), and the classes agree with the oracle's orbits and with the other
up-to-symmetry paths (native, dlx, ganak)."""

import json

import pytest
from hypothesis import event, example, given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, board_maps, brute_force_tilings, orbit_count
from test_property import POOL, _args
from typer.testing import CliRunner

from tilesat import Board, Instance, PieceRule
from tilesat.engines import burnside, frontier, pfaffian
from tilesat.cli import app
from tilesat.engines.base import Context
from tilesat.errors import TilesatError
from tilesat.engines.dlx import dlx_problem
from tilesat.engines.registry import get_engine
from tilesat.questions.count import choose_method, count_tilings
from tilesat.sat.options import SatOptions
from tilesat.model.instance import INF, parse_instance
from tilesat.model.placements import generate_placements
from tilesat.model.symmetry import symmetry_group


def board(pieces, rows, cols, wrap="none"):
    return parse_instance(f"pieces: {pieces}\nwrap: {wrap}\n" + ("." * cols + "\n") * rows)


@pytest.fixture(scope="module", autouse=True)
def compiled():
    frontier.warm_up()
    pfaffian.warm_up()


# --- random instances with symmetric holes ----------------------------------

def _images(rows, cols, which):
    """Point maps (row, col) -> (row, col) whose images are added to the holes."""
    R, C = rows, cols
    maps = {"rotate 180": lambda r, c: (R - 1 - r, C - 1 - c), "flip rows": lambda r, c: (R - 1 - r, c),
            "flip columns": lambda r, c: (r, C - 1 - c)}
    if R == C:
        maps |= {"rotate 90": lambda r, c: (c, R - 1 - r), "transpose": lambda r, c: (c, r)}
    if which == "all":
        return list(maps.values())
    return [maps[which]] if which in maps else []


@st.composite
def symmetric_instances(draw, max_side=6, wraps=True, counts=True):
    """Random boards whose holes are closed under a random symmetry (so
    that the groups are often bigger than the identity), random pieces,
    orientations and counts."""
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    if draw(st.booleans()):
        cols = rows  # squares: quarter turns and diagonals
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    holes = set(draw(st.sets(cells, max_size=(rows * cols) // 4)))
    which = draw(st.sampled_from(["none", "rotate 180", "flip rows", "flip columns", "rotate 90", "transpose", "all"]))
    for _ in range(4):  # close under the maps (and their powers)
        for f in _images(rows, cols, which):
            holes |= {f(r, c) for r, c in holes}
    grid = ["".join("#" if (r, c) in holes else "." for c in range(cols)) for r in range(rows)]
    wrap = draw(st.sampled_from(["none"] * 4 + ["rows", "columns", "both"])) if wraps else "none"
    first = draw(st.sampled_from(POOL[:4]))
    pieces = [first] + draw(st.lists(st.sampled_from(POOL), max_size=2, unique_by=lambda p: p.name))
    pieces = list({p.name: p for p in pieces}.values())
    bounds = [(0, INF), (0, INF), (1, 1), (0, 2), (1, 3), (2, INF), (0, 0), (2, 2), (0, 4)] if counts else [(0, INF)]
    rules = []
    for p in pieces:
        orient = draw(st.sampled_from(["free", "free", "one-sided", "fixed"]))
        lo, hi = draw(st.sampled_from(bounds))
        rules.append(PieceRule(p, orient, lo, hi))
    return Instance(Board.from_rows(grid, wrap), tuple(rules))


def oracle_tilings(instance, most=3000):
    try:
        truth = brute_force_tilings(*_args(instance), node_limit=60_000)
    except TooHard:
        reject()
    if len(truth) > most:
        reject()
    return truth


def fixes(g, tiling, cols):
    """Does the symmetry g (tilesat's) map the oracle's tiling onto itself?"""
    def image(cell):
        return divmod(int(g.cells[cell[0] * cols + cell[1]]), cols)

    return {(name, frozenset(map(image, tile))) for name, tile in tiling} == set(tiling)


# fixed L3 and its turn Q ('##/#.'): the flip exchanges the two rules, whose counts are bounded
_SHAPES = {p.name: p for p in POOL}
EXCHANGING = Instance(Board.from_rows(["..", ".."], "none"), (
    PieceRule(_SHAPES["L3"], "fixed", 0, 2), PieceRule(_SHAPES["Q"], "fixed", 0, 2), PieceRule(_SHAPES["I1"], "free", 0, INF)))


# --- the quotient counts what each symmetry fixes --------------------------------

@settings(max_examples=120)
@given(symmetric_instances())
@example(EXCHANGING)
def test_each_quotient_counts_the_tilings_its_symmetry_fixes(instance):
    """Brute force: every tiling listed by the oracle, those g maps onto
    themselves counted, against the exact covers of the quotient by <g>
    (with holes, wraps, restricted orientations and bounded counts, where a
    placement orbit of k members uses k pieces)."""
    truth = oracle_tilings(instance)
    placements = generate_placements(instance)
    group = symmetry_group(placements)
    cols = instance.board.cols
    exchanging = [burnside.exchanges_counted_pieces(placements, g) for g in group]
    for g, exchanges in zip(group, exchanging):
        if exchanges:  # its quotient cannot tell how many pieces of each rule an orbit uses: refused below
            continue
        expected = sum(fixes(g, t, cols) for t in truth)
        assert burnside.count_fixed(placements, g) == expected, g.name
        if not g.is_identity:
            event(f"a symmetry fixing {'some' if expected else 'no'} tilings"
                  + (", bounded counts" if any(r.bounded for r in instance.rules) else ""))
    if any(exchanging):
        event("a symmetry exchanges pieces with bounded counts: refused")
        with pytest.raises(TilesatError, match="exchanges pieces whose counts are bounded"):
            burnside.fixed_counts(frontier, placements, group)
        return
    assert burnside.fixed_counts(frontier, placements, group) == [
        sum(fixes(g, t, cols) for t in truth) for g in group]


@settings(max_examples=60)
@given(symmetric_instances(max_side=5))
@example(EXCHANGING)
def test_classes_agree_with_the_oracle_and_every_up_to_symmetry_method(instance):
    """frontier (and pfaffian where it applies) through Burnside == native and
    dlx up to symmetry (orbit-stabiliser, tilings checked one by one) == the
    oracle's own orbits under its own board maps."""
    truth = oracle_tilings(instance, most=600)
    classes = orbit_count(truth, board_maps(*_args(instance)))
    placements = generate_placements(instance)
    refused = any(burnside.exchanges_counted_pieces(placements, g) for g in symmetry_group(placements))
    methods = ["native"] + (["dlx"] if dlx_problem(instance) is None else [])
    if refused:  # the quotients cannot count pieces with bounds that a symmetry exchanges
        with pytest.raises(TilesatError, match="exchanges pieces whose counts are bounded"):
            count_tilings(instance, "frontier", up_to_symmetry=True)
    else:
        methods.append("frontier")
        if pfaffian.problem(instance) is None:
            methods.append("pfaffian")
    for method in methods:
        r = count_tilings(instance, method, up_to_symmetry=True)
        assert r.exact and r.count == len(truth), method
        assert r.up_to_symmetry == classes, (method, r.group)


def test_ganak_and_blocking_agree_on_a_few_boards():
    """The two SAT-based up-to-symmetry paths (x_p <-> x_g(p) clauses for
    ganak, each tiling checked for blocking) against the frontier's Burnside."""
    for pieces, rows, cols in [("L3, I3", 3, 6), ("domino", 4, 4), ("L3:2, I2", 3, 4), ("I2, O4:1", 4, 4)]:
        instance = board(pieces, rows, cols)
        want = count_tilings(instance, "frontier", up_to_symmetry=True)
        for method in ("ganak", "blocking"):
            r = count_tilings(instance, method, up_to_symmetry=True)
            assert (r.count, r.up_to_symmetry) == (want.count, want.up_to_symmetry), (pieces, method)


@st.composite
def symmetric_domino_boards(draw):
    n = draw(st.integers(2, 8))
    m = draw(st.sampled_from([n, draw(st.integers(2, 8))]))
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, m - 1))
    holes = set(draw(st.sets(cells, max_size=n * m // 5)))
    which = draw(st.sampled_from(["rotate 180", "flip rows", "flip columns", "rotate 90", "transpose", "all"]))
    for _ in range(4):
        for f in _images(n, m, which):
            holes |= {f(r, c) for r, c in holes}
    return ["".join("#" if (r, c) in holes else "." for c in range(m)) for r in range(n)]


@settings(max_examples=40)
@given(symmetric_domino_boards())
def test_pfaffian_classes_agree_with_ganak_on_symmetric_holed_boards(grid):
    if not any("." in row for row in grid):
        reject()  # the holes' symmetric closure blocked every cell: no board to count (one error line)
    instance = parse_instance("pieces: domino\n" + "\n".join(grid) + "\n")
    by_pfaffian = count_tilings(instance, "pfaffian", up_to_symmetry=True)
    by_frontier = count_tilings(instance, "frontier", up_to_symmetry=True)
    by_native = count_tilings(instance, "native", up_to_symmetry=True) if by_pfaffian.count <= 3000 else None
    assert by_pfaffian.group == by_frontier.group
    assert by_pfaffian.up_to_symmetry == by_frontier.up_to_symmetry
    if by_native is not None:
        assert (by_native.count, by_native.up_to_symmetry) == (by_pfaffian.count, by_pfaffian.up_to_symmetry)


def test_bounded_counts_use_one_piece_per_orbit_member():
    """A half-turn orbit of two placements uses two pieces: with 'L3:0..1'
    no L tromino pair can be fixed, with 'L3:0..2' it can (brute force: the
    oracle's tilings, those the half turn fixes)."""
    for pieces in ("L3:0..1, I1", "L3:0..2, I1", "L3:2, I1", "L3:1..3, I1"):
        instance = board(pieces, 2, 3)
        truth = oracle_tilings(instance)
        placements = generate_placements(instance)
        half = next(g for g in symmetry_group(placements) if g.name == "rotate 180")
        assert burnside.count_fixed(placements, half) == sum(fixes(half, t, 3) for t in truth), pieces


# --- known answers, each derived twice ------------------------------------------

def test_project_euler_161_up_to_symmetry():
    """Trominoes on 9x12: 20,574,308,184,277,971 tilings (Project Euler 161).
    The tilings each symmetry fixes, counted by ganak with x_p <-> x_g(p)
    (110 s, 40 s and 49 s on this machine: too slow for the suite), are
    215,579,081 (rotate 180), 19,350,099 (flip rows: the 9-row axis) and
    45,832,761 (flip columns); the quotients give the same three, so the
    classes are (20,574,308,184,277,971 + 215,579,081 + 19,350,099 + 45,832,761) / 4."""
    instance = board("L3, I3", 9, 12)
    placements = generate_placements(instance)
    group = symmetry_group(placements)
    fixed = dict(zip([g.name for g in group], burnside.fixed_counts(frontier, placements, group)))
    assert fixed == {"identity": 20_574_308_184_277_971, "rotate 180": 215_579_081,
                     "flip rows": 19_350_099, "flip columns": 45_832_761}
    r = count_tilings(instance, up_to_symmetry=True)
    assert r.method == "frontier"
    assert r.up_to_symmetry == (20_574_308_184_277_971 + 215_579_081 + 19_350_099 + 45_832_761) // 4
    assert r.up_to_symmetry == 5_143_577_116_259_978


def test_tromino_rectangles_up_to_symmetry_by_dancing_links_too():
    """The same board family, small enough to list: frontier's Burnside
    against dancing links' and native's tiling-by-tiling check, and the 6x6
    square (quarter turns; 80,092 tilings) against ganak."""
    for rows, cols in [(3, 6), (6, 3), (3, 9), (4, 6)]:
        instance = board("L3, I3", rows, cols)
        want = count_tilings(instance, "frontier", up_to_symmetry=True)
        for method in ("dlx", "native"):
            r = count_tilings(instance, method, up_to_symmetry=True)
            assert (r.count, r.up_to_symmetry) == (want.count, want.up_to_symmetry), (rows, cols, method)
    # the square: each symmetry's fixed tilings by ganak (x_p <-> x_g(p) clauses), all by native's raw count
    square = board("L3, I3", 6, 6)
    placements = generate_placements(square)
    group = symmetry_group(placements)
    ctx = Context(square, get_engine("ganak"), SatOptions("pairwise", "cadical195", "seqcounter"), group, placements)
    expected = [count_tilings(square, "native").count] + [ctx.engine.model_count(ctx, None, g) for g in group[1:]]
    assert burnside.fixed_counts(frontier, placements, group) == expected
    assert len(group) == 8 and min(expected) == 0 < expected[group.index(next(g for g in group if g.name == "rotate 90"))]


def test_dominoes_8x8_up_to_symmetry():
    """12,988,816 tilings, 1,629,189 classes under the square's 8 symmetries
    (pfaffian + quotients, against ganak with x_p <-> x_g(p) clauses)."""
    instance = board("domino", 8, 8)
    r = count_tilings(instance, up_to_symmetry=True)
    assert r.method == "pfaffian" and (r.count, r.up_to_symmetry) == (12_988_816, 1_629_189)
    g = count_tilings(instance, "ganak", up_to_symmetry=True)
    assert (g.count, g.up_to_symmetry) == (12_988_816, 1_629_189)


def test_dominoes_12x12_up_to_symmetry():
    """Pfaffian for the identity, quotients for the rest; the frontier on
    the identity too gives the same classes."""
    instance = board("domino", 12, 12)
    r = count_tilings(instance, up_to_symmetry=True)
    f = count_tilings(instance, "frontier", up_to_symmetry=True)
    assert r.method == "pfaffian" and r.count == f.count == 53_060_477_521_960_000
    assert r.up_to_symmetry == f.up_to_symmetry == 6_632_560_613_086_062


def test_l_trominoes_9x12_up_to_symmetry():
    """467,966,840 tilings; ganak's fixed counts (rotate 180: 31,452, flip
    rows: 0, flip columns: 4,312) match the quotients'."""
    instance = board("L3", 9, 12)
    placements = generate_placements(instance)
    group = symmetry_group(placements)
    assert burnside.fixed_counts(frontier, placements, group) == [467_966_840, 31_452, 0, 4_312]
    r = count_tilings(instance, up_to_symmetry=True)
    assert r.method == "frontier" and r.up_to_symmetry == (467_966_840 + 31_452 + 4_312) // 4


# --- the quotient's scan order, auto, the command ---------------------------------

def test_quarter_turn_quotients_stay_narrow():
    """Rings around the centre keep a quarter turn's folds short: on the
    12x12 domino board no quotient is wider than the board's own frontier."""
    instance = board("domino", 12, 12)
    placements = generate_placements(instance)
    for g in symmetry_group(placements):
        assert burnside.quotient(placements, g).width <= 12, g.name


def test_auto_says_how_classes_are_counted():
    method, why = choose_method(board("L3, I3", 9, 12), None, up_to_symmetry=True)
    assert method == "frontier" and "Burnside" in why
    method, why = choose_method(board("domino", 12, 12), None, up_to_symmetry=True)
    assert method == "pfaffian" and "Burnside" in why
    # bounded counts stay with the enumerator
    assert choose_method(board("pentominoes:1", 6, 10), None, up_to_symmetry=True)[0] == "native"


def test_the_command_reports_classes_by_frontier(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("pieces: L3, I3\n" + "......\n" * 3)
    res = CliRunner().invoke(app, ["count", str(f), "--up-to-symmetry", "--method", "frontier", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    by_dlx = count_tilings(parse_instance(f.read_text()), "dlx", up_to_symmetry=True)
    assert (data["method"], data["count"], data["up_to_symmetry"], data["group_order"]) == (
        "frontier", by_dlx.count, by_dlx.up_to_symmetry, 4)
    assert data["exact"] and data["units"] == 1


def test_a_timeout_stops_the_quotient_counts():
    """The engines run in a forked child: the time limit stops them, the classes are not reported."""
    instance = board("I1, I2, L3, I3", 16, 16)
    r = count_tilings(instance, "frontier", up_to_symmetry=True, timeout=0.5)
    assert r.timed_out and not r.exact and r.up_to_symmetry is None and r.seconds < 5


def test_a_map_that_moves_no_placement_fixes_every_tiling():
    """Was: native (and frontier) counted such a unit once for all its
    symmetries, and Burnside came out as 1/2 on a 1x2 board (its half turn
    maps the one domino onto itself): 'BUG: Burnside's count is not an integer'."""
    instance = parse_instance("pieces: I2\n..\n")
    for method in ("native", "frontier", "pfaffian", "dlx"):
        r = count_tilings(instance, method, up_to_symmetry=True)
        assert (r.count, r.up_to_symmetry, r.group_order) == (1, 1, 2), method


@settings(max_examples=60)
@given(symmetric_instances(max_side=5))
def test_compiled_and_reference_dp_agree_on_quotients(instance):
    """Options that put down several pieces (copies > 1) go through the
    compiled step's multiplicity branch: it must count as the pure-Python
    reference does, bounded counts and saturating minimums included."""
    placements = generate_placements(instance)
    for g in symmetry_group(placements):
        plan = burnside.quotient(placements, g).plan(instance)
        if plan.key_bits <= frontier.KEY_BITS:
            assert frontier._run_compiled(plan) == frontier._run_python(plan), g.name


@pytest.mark.parametrize("pieces, n, wrap, order", [("L3", 6, "rows", 24), ("I2", 4, "both", 128), ("L3, I1:2", 3, "both", 72)])
def test_wrapped_boards_with_their_shifts(pieces, n, wrap, order):
    """On a cylinder or torus the group holds the shifts too (ganak agreed
    on the 6x6 cylinder: 3,556 tilings, 190 classes, in 24 s): frontier's
    quotients against native's tiling-by-tiling check."""
    instance = board(pieces, n, n, wrap)
    by_frontier = count_tilings(instance, "frontier", up_to_symmetry=True)
    by_native = count_tilings(instance, "native", up_to_symmetry=True)
    assert by_frontier.group_order == order
    assert (by_frontier.count, by_frontier.up_to_symmetry) == (by_native.count, by_native.up_to_symmetry)

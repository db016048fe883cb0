"""The native engine (issue 13): a compiled exact-cover enumerator.  Known
counts, the brute-force oracle on random instances, the other exact methods,
forced placements, resumed batches, and the one-word search against the
any-size one."""

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from tilesat.certify.oracle import TooHard, brute_force_tilings
from test_property import _args, instances

from tilesat.engines import _bitboard, enumerator
from tilesat import verify_tiling
from tilesat.questions.count import count_tilings
from tilesat.model.instance import parse_instance
from tilesat.model.placements import generate_placements
from tilesat.model.tiling import Tiling


def rect(pieces, rows, cols, extra=""):
    return parse_instance(f"pieces: {pieces}\n{extra}" + ("." * cols + "\n") * rows)


def fib(n):
    a, b = 1, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def both_searches(instance, forced=None):
    """The count by the one-word search (when it applies) and by the any-size one."""
    tables = enumerator.build_tables(generate_placements(instance))
    return enumerator.Search(tables, forced).count(), enumerator.Search(tables, forced, general=True).count()


@pytest.mark.parametrize("n", range(1, 10))
def test_dominoes_2xn_fibonacci(n):
    assert both_searches(rect("I2", 2, n)) == (fib(n), fib(n))


@pytest.mark.parametrize("n", range(1, 5))
def test_l_trominoes_2x3n(n):
    assert both_searches(rect("L3", 2, 3 * n)) == (2**n, 2**n)


def test_boards_beyond_one_word():
    # 2x33 = 66 cells: the grid in one 128-bit word (L-trominoes: 2**11)
    inst = rect("L3", 2, 33)
    tables = enumerator.build_tables(generate_placements(inst))
    assert tables.grid and tables.kind == _bitboard.KIND_128
    assert enumerator.count(inst) == 2**11
    # the same strip in a 5x34 grid (170 cells): open cells only, on two 64-bit words
    inst = parse_instance("pieces: L3\n" + "." * 33 + "#\n" + "." * 33 + "#\n" + "#" * 34 + "\n" * 1 + ("#" * 34 + "\n") * 2)
    tables = enumerator.build_tables(generate_placements(inst))
    assert not tables.grid and tables.kind == _bitboard.KIND_WORDS and tables.words == 2
    assert enumerator.count(inst) == 2**11
    # 9x8 = 72 cells with 8 blocked: 64 open cells, not the whole grid in a word
    inst = parse_instance("pieces: I2\n" + "#......#\n" * 8 + "........\n")
    assert enumerator.count(inst) == count_tilings(inst, "ganak").count


def test_small_known_counts():
    assert enumerator.count(rect("I2", 4, 6)) == 281
    assert enumerator.count(rect("pentominoes:1", 3, 20)) == 8
    assert enumerator.count(rect("tetrominoes:2", 5, 8)) == 3106  # issue 13: two of each tetromino


@pytest.mark.slow
@pytest.mark.parametrize("rows,cols,raw", [(4, 15, 1472), (5, 12, 4040), (6, 10, 9356)])
def test_pentomino_rectangles(rows, cols, raw):
    assert enumerator.count(rect("pentominoes:1", rows, cols)) == raw


@pytest.mark.slow
def test_dominoes_8x8():
    assert enumerator.count(rect("I2", 8, 8)) == 12_988_816


def test_pieces_that_cannot_fill_the_board():
    assert enumerator.count(rect("I2", 3, 3)) == 0  # odd area
    assert enumerator.count(rect("I2:0..3", 2, 4)) == 0  # 2x4 needs 4 dominoes, at most 3 allowed
    assert enumerator.count(rect("I2:0..4", 2, 4)) == 5
    assert enumerator.count(rect("I2:5..", 2, 4)) == 0  # 5 dominoes do not fit


def test_piece_counts_are_kept():
    # 2x4 with dominoes and monominoes, at least 3 dominoes, at most 1 monomino: by the oracle
    inst = rect("I2:3.., I1:0..1", 2, 4)
    grid, wrap, pieces = _args(inst)
    assert enumerator.count(inst) == len(brute_force_tilings(grid, wrap, pieces))


def test_problem_says_none():
    assert enumerator.problem(rect("pentominoes:1", 6, 10)) is None


def test_forced_counts_add_up_over_a_cell():
    inst = rect("pentominoes:1", 4, 15)
    P = generate_placements(inst)
    ptr, ids = P.by_cell()
    over_cell = ids[ptr[0]:ptr[1]]  # every tiling holds exactly one placement on cell 0
    assert sum(enumerator.count(inst, P, forced=int(p)) for p in over_cell) == 1472
    x = P.of_rule([r.name for r in inst.rules].index("X5"))
    assert sum(enumerator.count(inst, P, forced=int(p)) for p in x) == 1472
    for p in x[:3]:
        for t in enumerator.tilings(inst, P, forced=int(p)):
            assert int(p) in t.tolist()


def test_forced_out_of_range_is_an_error():
    from tilesat.errors import TilesatError

    inst = rect("I2", 2, 2)
    with pytest.raises(TilesatError, match="out of range"):
        enumerator.count(inst, forced=99)


def test_a_forced_placement_covering_everything():
    inst = rect("I2", 1, 2)
    assert enumerator.count(inst, forced=0) == 1
    assert [t.tolist() for t in enumerator.tilings(inst, forced=0)] == [[0]]


def test_tilings_are_verified_and_resume_across_batches():
    inst = rect("tetrominoes:2", 5, 8)
    P = generate_placements(inst)
    whole = [tuple(sorted(t.tolist())) for t in enumerator.tilings(inst, P)]
    assert len(whole) == len(set(whole)) == 3106
    tables = enumerator.build_tables(P)
    for general in (False, True):
        small = [tuple(sorted(t.tolist())) for t in enumerator.Search(tables, general=general).batches(batch=7)]
        assert small == whole if not general else set(small) == set(whole)
    for chosen in whole[:50]:
        verify_tiling(inst, Tiling.from_placements(P, list(chosen)))


def test_placements_of_another_instance_are_refused():
    from tilesat.errors import TilesatError

    a, b = rect("I2", 2, 2), rect("I2", 2, 2)
    with pytest.raises(TilesatError):
        enumerator.count(a, generate_placements(b))


def test_region_pruning_only_prunes():
    # with and without the region check (and with tiny caps) the same count
    inst = rect("pentominoes:1", 3, 20)
    tables = enumerator.build_tables(generate_placements(inst))
    counts = {enumerator.Search(tables, regions=r, cap=c, general=g).count()
              for r in (False, True) for c in (0, 1, 2, 5, None) for g in (False, True)}
    assert counts == {8}


# --- random instances: the oracle and the other methods ------------------

def as_key(placements, chosen):
    return frozenset((placements.piece_of(int(i)).name, frozenset(placements.coords_of(int(i)))) for i in chosen)


@settings(max_examples=60, deadline=None)
@given(instances(), st.booleans())
def test_tilings_are_the_oracles(instance, general):
    grid, wrap, pieces = _args(instance)
    try:
        truth = brute_force_tilings(grid, wrap, pieces, node_limit=50_000)
    except TooHard:
        reject()
    P = generate_placements(instance)
    tables = enumerator.build_tables(P)
    found = [as_key(P, t) for t in enumerator.Search(tables, general=general).batches(batch=3)]
    assert len(found) == len(set(found))
    assert set(found) == {frozenset((name, frozenset(tile)) for name, tile in t) for t in truth}
    assert enumerator.Search(tables, general=general).count() == len(truth)
    # forced: the tilings holding each placement of the first open cell add up
    cell = int(instance.board.open_cells[0])
    ptr, ids = P.by_cell()
    assert sum(enumerator.Search(tables, int(p), general=general).count() for p in ids[ptr[cell]:ptr[cell + 1]]) == len(truth)


@settings(max_examples=15, deadline=None)
@given(instances())
def test_counts_like_the_other_exact_methods(instance):
    grid, wrap, pieces = _args(instance)
    try:
        truth = brute_force_tilings(grid, wrap, pieces, node_limit=50_000)
    except TooHard:
        reject()
    if len(truth) > 200:
        reject()  # blocking makes one SAT call per tiling
    assert enumerator.count(instance) == count_tilings(instance, "blocking").count == count_tilings(instance, "ganak").count


def test_disconnected_pieces_turn_region_pruning_off():
    """Was: 1 tiling instead of 2: the region check assumed every piece lies
    in one region, but ``D`` (#.#) spans two (found by hypothesis)."""
    inst = parse_instance("shape: D #.#\npieces: I2, D\n....\n")
    assert enumerator.count(inst) == 2
    inst = parse_instance("shape: D #.#\npieces: D, I2\n....\n....\n....\n")
    assert enumerator.count(inst) == count_tilings(inst, "ganak").count


@st.composite
def same_size_instances(draw):
    """Boards up to 6x7 with holes and wraps, pieces of one size: where the
    region check prunes most (every region a multiple of the size)."""
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 7))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    blocked = draw(st.sets(cells, max_size=(rows * cols) // 4))
    grid = ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]
    pieces = draw(st.sampled_from(["I2", "L3", "I3, L3", "L3:2.., I3:0..3", "tetrominoes", "L4, T4:1", "O4:0..1, S4"]))
    wrap = draw(st.sampled_from(["none", "rows", "columns", "both"]))
    return parse_instance(f"pieces: {pieces}\nwrap: {wrap}\n" + "\n".join(grid) + "\n")


@settings(max_examples=80, deadline=None)
@given(same_size_instances())
def test_region_pruning_is_sound_on_both_searches(instance):
    tables = enumerator.build_tables(generate_placements(instance))
    # Search.count slice by slice: an example past 20,000 tilings or 3M nodes is given up at once (a
    # drawn 6x6 board's millions of tilings took minutes; one of 21M nodes and none, 20 s with the six below)
    search, plain = enumerator.Search(tables, regions=False, general=True), 0
    while not search.done:
        plain += search.run()
        if plain > 20_000 or search.nodes > 3_000_000:
            reject()
    for general in (False, True):
        for cap in (None, 1, 3):
            assert enumerator.Search(tables, general=general, cap=cap).count() == plain, (general, cap)


def test_scotts_pentomino_problem():
    # 8x8 less the central 2x2, the 12 pentominoes once each: 520 tilings (65 up to symmetry, Scott 1958)
    rows = ["........"] * 3 + ["...##..."] * 2 + ["........"] * 3
    assert enumerator.count(parse_instance("pieces: pentominoes:1\n" + "\n".join(rows) + "\n")) == 520


@pytest.mark.parametrize("text", [
    "pieces: pentominoes/one-sided:1\n" + ("." * 12 + "\n") * 5,  # no reflections: orbits of 2 (46)
    "pieces: pentominoes/fixed:1, I1:0..5\n" + ("." * 13 + "\n") * 5,  # no rotations either (7)
    "pieces: pentominoes:1, I1:1\n" + "#" + "." * 20 + "\n" + "." * 21 + "\n" + "." * 20 + "#\n",  # a half turn only (152)
    "pieces: L4:1, I2\n....\n....\n....\n....\n",  # a square: 8 maps (208)
])
def test_count_by_orbits_equals_the_sum_over_placements(text):
    inst = parse_instance(text)
    P = generate_placements(inst)
    tables = enumerator.build_tables(P)
    k = enumerator._split_rule(tables)
    direct = sum(enumerator.Search(tables, int(p)).count() for p in P.of_rule(k))
    assert enumerator.count(inst, P) == direct > 0
    assert sum(1 for _ in enumerator.tilings(inst, P)) == direct


def test_counts_beyond_the_board_are_clamped():
    """Found with the CLI fuzz test's 20-digit counts: native failed with OverflowError."""
    from dataclasses import replace

    from tilesat.model.instance import parse_instance

    # the files' parser stops counts past 10**9; the library's rules may still hold any number
    instance = parse_instance("pieces: I2\n........\n........\n")
    rule = instance.rules[0]
    assert enumerator.count(instance.with_rules([replace(rule, min=0, max=10**20)])) == 34
    assert enumerator.count(instance.with_rules([replace(rule, min=10**20, max=10**20)])) == 0


# --- a search split where it stands (issue 31) ----------------------------

def count_split(tables, forced, excluded, pauses, general):
    """The tilings holding ``forced`` and none of ``excluded``: the search run
    for the next number of nodes in ``pauses``, then split where it stands and
    each part counted the same way (recursively), until ``pauses`` runs out."""
    search = enumerator.Search(tables, forced, general=general, excluded=excluded)
    if not pauses:
        return search.count()
    found = search.core.run(pauses[0])
    return found + sum(count_split(tables, f, e, pauses[1:], general) for f, e in search.split())


@settings(max_examples=60, deadline=None)
@given(instances(), st.booleans(), st.lists(st.integers(0, 40), max_size=4))
def test_a_search_split_where_it_stands_counts_like_the_oracle(instance, general, pauses):
    grid, wrap, pieces = _args(instance)
    try:
        truth = brute_force_tilings(grid, wrap, pieces, node_limit=50_000)
    except TooHard:
        reject()
    tables = enumerator.build_tables(generate_placements(instance))
    assert count_split(tables, (), (), pauses, general) == len(truth)


@settings(max_examples=30, deadline=None)
@given(same_size_instances(), st.lists(st.integers(0, 30), min_size=1, max_size=3))
def test_split_parts_are_disjoint_and_hold_every_tiling(instance, pauses):
    P = generate_placements(instance)
    tables = enumerator.build_tables(P)
    whole = sorted(tuple(sorted(t.tolist())) for t in enumerator.Search(tables).batches())
    search = enumerator.Search(tables)
    search.core.run(pauses[0], 10**4)
    first = [tuple(sorted(t)) for t in search.core.take()]
    parts = [tuple(sorted(t.tolist())) for f, e in search.split() for t in enumerator.Search(tables, f, excluded=e).batches()]
    assert sorted(first + parts) == whole  # no tiling twice, none lost
    for f, e in search.split():
        for t in enumerator.Search(tables, f, excluded=e).batches():
            assert set(f) <= set(t.tolist()) and not set(e) & set(t.tolist())


def test_excluded_placements_are_never_used():
    inst = rect("pentominoes:1", 4, 15)
    P = generate_placements(inst)
    tables = enumerator.build_tables(P)
    x = P.of_rule([r.name for r in inst.rules].index("X5"))
    # without X's first placements, the tilings are those of the others
    assert enumerator.Search(tables, excluded=x[:5]).count() == sum(enumerator.count(inst, P, forced=int(p)) for p in x[5:])


def test_knuths_estimate_is_unbiased_on_a_small_tree():
    """Random paths estimate the nodes closely; the tilings, rare leaves, only on average."""
    inst = rect("pentominoes:1", 5, 12)
    P = generate_placements(inst)
    tables = enumerator.build_tables(P)
    x = int(P.of_rule([r.name for r in inst.rules].index("X5"))[3])
    exact = enumerator.Search(tables, x)
    tilings = exact.count()
    estimates = [enumerator.Search(tables, x).estimate(20_000, seed=seed) for seed in range(1, 6)]
    for nodes, _ in estimates:
        assert 0.85 * exact.nodes < nodes < 1.15 * exact.nodes
    mean = sum(t for _, t in estimates) / len(estimates)
    assert 0.5 * tilings < mean < 1.5 * tilings
    started = enumerator.Search(tables, x)
    started.run(10)
    with pytest.raises(RuntimeError):
        started.estimate(10)

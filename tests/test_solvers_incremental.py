"""Every PySAT solver tilesat offers answers the incremental questions.

Counting by blocking clauses adds a clause after each solve.  Was: kissat404
(built without incremental use) died with SIGSEGV or SIGABRT in kissat_add on
the second solve, found by `tilesat fuzz --solvers all`."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from pysat.solvers import Solver

from tilesat.model.board import Board
from tilesat.model.instance import Instance, parse_instance, parse_pieces
from tilesat.model.placements import generate_placements
from tilesat.questions.count import count_tilings
from tilesat.sat import _clauses
from tilesat.sat.formula import compile_formula
from tilesat.sat.solvers import PysatSolver, _raw_add_rows, solver_names

DOMINOES_2X4 = parse_instance("pieces: I2\n....\n....\n")  # 5 tilings


@pytest.mark.parametrize("name", solver_names())  # those this installation runs
def test_counting_by_blocking_clauses_with_every_solver(name):
    result = count_tilings(DOMINOES_2X4, "blocking", solver=name)
    assert result.exact and result.count == 5


# A formula's clause blocks go into CaDiCaL 1.9.5 from C (sat/_clauses.c): the solver then
# answers as one given the same clauses one by one, model for model (the same clauses in the
# same order: the searches measured with the Python path are the ones run).

@st.composite
def small_formulas(draw):
    rows, cols = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    open_ = np.array(draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols)), bool)
    open_ = open_.reshape(rows, cols) | (draw(st.integers(0, 2)) > 0)  # mostly open
    pieces = draw(st.sampled_from(["I2", "I2,L3", "L3", "T4,I2", "I2:2,O4"]))
    encoding = draw(st.sampled_from(["pairwise", "seqcounter", "ladder", "product", "commander", "bitwise"]))
    placements = generate_placements(Instance(Board(open_), parse_pieces(pieces)))
    return compile_formula(placements, encoding), draw(st.randoms(use_true_random=False))


@settings(max_examples=60, deadline=None)
@given(small_formulas())
def test_a_formula_added_from_c_is_the_formula_added_one_clause_at_a_time(drawn):
    formula, rnd = drawn
    assert _clauses.can_add_directly()  # PySAT's CaDiCaL 1.9.5 exports its add(): else the fast path is lost
    assumptions = [v if rnd.random() < 0.5 else -v for v in range(1, formula.nvars + 1) if rnd.random() < 0.2]
    direct = PysatSolver("cadical195")
    assert _raw_add_rows("cadical195", direct._solver.solver, formula.nvars) is not None
    direct.add_formula(formula)
    with Solver(name="cadical195") as one_by_one:
        formula.add_to(one_by_one.add_clause)
        assert direct._solver.nof_clauses() == one_by_one.nof_clauses()
        for query in ([], assumptions):
            sat = one_by_one.solve(assumptions=query)
            assert direct.solve(query) == sat
            assert list(direct.model()) == (one_by_one.get_model() if sat else [])
    direct.close()


def test_rows_with_a_zero_or_an_oversized_literal_add_nothing():
    with Solver(name="cadical195") as solver:
        for bad in ([[1, 0]], [[1, 2**31]], [[-(2**31), 1]]):
            with pytest.raises(ValueError):
                _clauses.add_rows(solver.solver.cadical, np.array(bad, dtype=np.int64), 2)
        for bad in (np.array([[1, 2]], dtype=np.int32), np.zeros((3, 0), dtype=np.int64),
                    np.array([[1, 2], [3, 4]], dtype=np.int64).T):  # int32, rows of nothing, not C-contiguous
            with pytest.raises((TypeError, ValueError)):
                _clauses.add_rows(solver.solver.cadical, bad, 4)
        assert solver.nof_clauses() == 0
        assert _clauses.add_rows(solver.solver.cadical, np.array([[1, 2], [-1, -2]], dtype=np.int64), 2) == 2
        assert solver.nof_clauses() == 2 and solver.solve() and sorted(map(abs, solver.get_model())) == [1, 2]


def _dedupe_by_numpy(blocks, n):
    """The reference: repeated binary clauses over placement literals dropped with numpy
    (a key per clause, sorted, repeats out), the other binary rows after them in order."""
    binary = [b for b in blocks if b.ndim == 2 and b.shape[1] == 2]
    both = np.concatenate(binary) if binary else np.zeros((0, 2), np.int64)
    on = (np.abs(both[:, 0]) <= n) & (np.abs(both[:, 1]) <= n)
    pairs = np.sort(both[on], axis=1)
    pairs = np.unique(pairs, axis=0) if pairs.size else pairs.reshape(0, 2)
    return [b for b in blocks if not (b.ndim == 2 and b.shape[1] == 2)] + [pairs, both[~on]]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.lists(st.lists(st.tuples(st.integers(-60, 60), st.integers(-60, 60)), max_size=30),
                                    min_size=1, max_size=6),
       st.lists(st.integers(1, 4), max_size=3))
def test_binary_clauses_each_once_sorted_as_numpy_has_them(n, pair_blocks, widths):
    """sat/_clauses.c's unique_pairs (formula._dedupe_binary) keeps what the numpy reference keeps,
    in its order: placement pairs once, sorted; other binary rows in theirs; wider blocks untouched."""
    from tilesat.sat.formula import _dedupe_binary

    blocks = [np.array(b, dtype=np.int64).reshape(-1, 2) for b in pair_blocks]
    blocks += [np.arange(1, 1 + 2 * w, dtype=np.int64).reshape(2, w) for w in widths if w != 2]
    got, want = _dedupe_binary(list(blocks), n), _dedupe_by_numpy(blocks, n)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    pairs, others = got[-2:]
    assert pairs.base is None or pairs.base.shape[0] == len(pairs) + len(others)  # the repeats' rows not kept


@settings(max_examples=30, deadline=None)
@given(st.integers(2**16, 2**30), st.randoms(use_true_random=False))
def test_binary_clauses_with_keys_past_one_radix_digit(n, rnd):
    """Keys up to 4n^2: the radix sort's later passes (the test above stays within one)."""
    from tilesat.sat.formula import _dedupe_binary

    lits = [rnd.choice([-1, 1]) * rnd.randint(1, n + n // 8) for _ in range(400)]
    block = np.array(lits + lits[:100], dtype=np.int64).reshape(-1, 2)  # repeats too
    got, want = _dedupe_binary([block], n), _dedupe_by_numpy([block], n)
    assert all(np.array_equal(g, w) for g, w in zip(got, want)) and len(got) == len(want)


def test_pairwise_formula_has_each_overlap_once():
    """Two placements sharing cells are kept apart by one clause, however many cells they share."""
    placements = generate_placements(parse_instance("pieces: I3\n....\n....\n....\n"))
    formula = compile_formula(placements, "pairwise")
    binary = np.concatenate([b for b in formula.blocks if b.ndim == 2 and b.shape[1] == 2])
    negative = binary[(binary < 0).all(axis=1)]
    overlapping = {(i + 1, j + 1) for i in range(len(placements)) for j in range(i)
                   if set(placements.cells_of(i)) & set(placements.cells_of(j))}
    assert sorted(map(tuple, np.sort(-negative, axis=1)[:, ::-1])) == sorted(overlapping)

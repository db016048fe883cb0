"""Each exactly-one encoding alone: models, sizes (against encodings/*.md),
propagation strength, and agreement with pysat.card where it has the same
encoding."""

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from tilesat.sat.encodings import ENCODINGS, exactly_one

NOTES = Path(__file__).resolve().parent.parent / "encodings"
INSTANCES = NOTES.parent / "instances"


def models(clauses, nvars, project):
    """All models restricted to 1..project (blocking on those only), and the
    number of full models."""
    projected = set()
    with Solver(name="glucose4", bootstrap_with=clauses) as s:
        while s.solve():
            m = s.get_model() or []
            m = (m + [v for v in range(len(m) + 1, nvars + 1)])[:nvars]  # unmentioned vars: pick +
            projected.add(tuple(lit > 0 for lit in m[:project]))
            s.add_clause([-lit for lit in m[:project]])
    full = 0
    with Solver(name="glucose4", bootstrap_with=clauses) as s:
        for m in s.enum_models():
            full += 1
            if full > 10 * project:
                break
    return projected, full


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("n", range(1, 13))
def test_exactly_n_models_on_original_literals(name, n):
    clauses, top = exactly_one(range(1, n + 1), n, name)
    projected, full = models(clauses + [[v, -v] for v in range(1, top + 1)], top, n)
    expected = {tuple(i == j for j in range(n)) for i in range(n)}
    assert projected == expected
    # every auxiliary is determined by the literals when exactly one is true
    assert full == n


def note_sizes(name):
    text = (NOTES / f"{name}.md").read_text()
    block = re.search(r"```sizes\n(.*?)```", text, re.S)
    assert block, f"encodings/{name}.md has no sizes block"
    ns = {"ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2}
    for line in block.group(1).strip().splitlines():
        m = re.fullmatch(r"(\w+)\(n\) = (.+)", line.strip())
        assert m, f"bad sizes line in {name}.md: {line!r}"
        exec(f"def {m.group(1)}(n):\n    return {m.group(2)}\n", ns)
    return ns["aux"], ns["clauses"]


@pytest.mark.parametrize("name", ENCODINGS)
def test_sizes_match_the_notes(name):
    aux, nclauses = note_sizes(name)
    for n in range(1, 51):
        clauses, top = exactly_one(range(1, n + 1), n, name)
        assert (top - n, len(clauses)) == (aux(n), nclauses(n)), f"{name} n={n}"


def test_every_encoding_has_a_note():
    assert {p.stem for p in NOTES.glob("*.md")} - {"README"} == set(ENCODINGS)


@pytest.mark.parametrize("name", ["pairwise", "seqcounter", "bitwise"])
def test_sizes_equal_pysat_card(name):
    # the same encodings as pysat.card, so the same sizes
    for n in range(1, 40):
        ours, top = exactly_one(range(1, n + 1), n, name)
        theirs = CardEnc.equals(lits=list(range(1, n + 1)), bound=1, top_id=n, encoding=getattr(EncType, name))
        assert (top, len(ours)) == (max(theirs.nv, n), len(theirs.clauses)), f"{name} n={n}"


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("n", range(2, 7))  # n = 1 is the unit clause (x_1)
def test_unit_propagation_is_arc_consistent(name, n):
    """Under every partial assignment of the literals, unit propagation finds
    a conflict iff none of the n models agrees, and otherwise implies every
    literal that all agreeing models share."""
    clauses, _ = exactly_one(range(1, n + 1), n, name)
    with Solver(name="glucose4", bootstrap_with=clauses) as s:
        for values in itertools.product((None, True, False), repeat=n):
            assumptions = [v if val else -v for v, val in zip(range(1, n + 1), values) if val is not None]
            ok, implied = s.propagate(assumptions=assumptions)
            agreeing = [i for i in range(n) if all(val is None or val == (i == j) for j, val in enumerate(values))]
            if not agreeing:
                assert not ok, (values, "conflict expected")
                continue
            assert ok, values
            implied = set(implied)
            for j in range(n):
                if all(i == j for i in agreeing):
                    assert j + 1 in implied, (values, j)
                if all(i != j for i in agreeing):
                    assert -(j + 1) in implied, (values, j)


@pytest.mark.parametrize("name", ENCODINGS)
def test_batch_is_independent_constraints(name):
    """The vectorised batch of m rows is m independent exactly-ones: the same
    sizes as encoding each row alone, and n^m models."""
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 5, 7):
        rows = rng.permutation(2 * n).reshape(2, n) + 1
        blocks, top = ENCODINGS[name](rows, 2 * n)
        batch = [c for b in blocks for c in b.tolist()]
        single, t = [], 2 * n
        for row in rows:
            cl, t = exactly_one(row.tolist(), t, name)
            single += cl
        assert (top, len(batch)) == (t, len(single))
        free = [[v, -v] for v in range(1, top + 1)]
        with Solver(name="glucose4", bootstrap_with=batch + free) as s:
            found = [tuple(m[: 2 * n]) for m in s.enum_models()]
        assert len(found) == len(set(found)) == n * n


def test_auto_chooses_by_candidates_per_cell():
    from tilesat import check_unique, generate_placements, load_instance
    from tilesat.sat.encodings import AUTO_PAIRWISE_UP_TO, choose_encoding
    from tilesat.sat.formula import compile_formula, resolve_encoding

    assert choose_encoding(AUTO_PAIRWISE_UP_TO) == "pairwise"
    assert choose_encoding(AUTO_PAIRWISE_UP_TO + 0.5) == "commander"
    assert choose_encoding(20) == "commander" and choose_encoding(20.5) == choose_encoding(60) == "ladder"
    assert choose_encoding(60.5) == "commander"
    for name, expected in [("lpanel-20x20.txt", "pairwise"), ("tromino-16x16-hole.txt", "commander"),
                           ("pentomino-6x10.txt", "commander"), ("hard-L4-30x30-s1.txt", "ladder")]:
        placements = generate_placements(load_instance(INSTANCES / name))
        board = placements.instance.board
        mean = placements.coverage()[board.open_cells].sum() / board.area
        assert (mean <= AUTO_PAIRWISE_UP_TO) == (expected == "pairwise")
        assert resolve_encoding("auto", placements) == expected
        auto, chosen = compile_formula(placements), compile_formula(placements, expected)
        assert auto.encoding == expected and list(auto.clauses()) == list(chosen.clauses())
    assert check_unique(load_instance(INSTANCES / "lpanel-20x20.txt")).stats["encoding"] == "pairwise"
    # the one-constraint API: by its own length
    assert exactly_one([1, 2, 3], 3) == exactly_one([1, 2, 3], 3, "pairwise")
    many = list(range(1, 13))
    assert exactly_one(many, 12) == exactly_one(many, 12, "commander")

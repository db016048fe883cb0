"""Symmetry breaking (tilesat.sat.symbreak): the lex-leader clauses admit exactly
the lex-leaders (brute force over every assignment), the whole group keeps
one model per orbit, and on random symmetric boards breaking changes no
answer: solve's sat/unsat (against the oracle), pack's optimum (against the
brute-force packer), count --up-to-symmetry (against the oracle's orbits);
proofs over the broken formula verify, and tampered ones do not."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from tilesat.certify.oracle import TooHard, board_maps, brute_force_max_packing, orbit_count
from test_burnside import oracle_tilings, symmetric_instances
from test_cli import run
from test_property import _args

from tilesat import load_instance, parse_instance, verify_tiling
from tilesat.sat.encodings import ENCODINGS
from tilesat.sat.formula import compile_formula
from tilesat.questions.pack import pack
from tilesat.model.placements import generate_placements
from tilesat.sat.proof import ProofError, verify_proof, write_pack_proof, write_proof
from tilesat.questions.solve import check_unique, solve
from tilesat.questions.count import count_tilings
from tilesat.sat.symbreak import board_map_symmetries, check_symmetry, lex_leader_clauses, named_breaking
from tilesat.model.symmetry import Symmetry, symmetry_group
from tilesat.errors import TilesatError

def count_classes(instance, encoding, solver, card, timeout=None):
    """Classes by lex-leader breaking: count's lexleader method."""
    return count_tilings(instance, "lexleader", up_to_symmetry=True, encoding=encoding, solver=solver, card=card,
                         timeout=timeout)



# --- the clauses themselves, by brute force ---------------------------------------

def lex_ok(x, perms):
    """x <=lex x o p for every p, read straight from the definition."""
    return all(tuple(x) <= tuple(x[p[i]] for i in range(len(x))) for p in perms)


def admitted(clauses, n, top):
    """The assignments of variables 1..n that some assignment of the auxiliaries extends to a model."""
    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        s.add_clause([top + 1, -(top + 1)])  # every variable known to the solver
        return {x for x in itertools.product((0, 1), repeat=n)
                if s.solve(assumptions=[(i + 1) if v else -(i + 1) for i, v in enumerate(x)])}


perms_st = st.integers(1, 8).flatmap(lambda n: st.lists(st.permutations(range(n)), min_size=1, max_size=3))


@settings(max_examples=150)
@given(perms_st, st.data())
def test_the_clauses_admit_exactly_the_lex_leaders(perms, data):
    n = len(perms[0])
    clauses, top = lex_leader_clauses([np.array(p) for p in perms], n)
    want = {x for x in itertools.product((0, 1), repeat=n) if lex_ok(x, perms)}
    assert admitted(clauses, n, top) == want
    # read in another order: the lex-leaders of the variables renumbered in that order
    order = data.draw(st.permutations(range(n)))
    clauses, top = lex_leader_clauses([np.array(p) for p in perms], n, np.array(order))
    renamed = [[order.index(p[o]) for o in order] for p in perms]
    want = {x for x in itertools.product((0, 1), repeat=n) if lex_ok(tuple(x[o] for o in order), renamed)}
    assert admitted(clauses, n, top) == want


def closure(gens, n):
    group = {tuple(range(n))}
    frontier = list(group)
    while frontier:
        more = []
        for h in frontier:
            for g in gens:
                c = tuple(g[h[i]] for i in range(n))
                if c not in group:
                    group.add(c)
                    more.append(c)
        frontier = more
    return [np.array(g) for g in group]


small_perms_st = st.integers(1, 6).flatmap(lambda n: st.lists(st.permutations(range(n)), min_size=1, max_size=2))


@settings(max_examples=80)
@given(small_perms_st)  # at most 6! elements: 8! would be minutes of brute force
def test_the_whole_group_keeps_one_model_per_orbit_and_generators_at_least_one(gens):
    n = len(gens[0])
    group = closure(gens, n)
    orbits = {frozenset(tuple(x[g[i]] for i in range(n)) for g in group)
              for x in itertools.product((0, 1), repeat=n)}
    clauses, top = lex_leader_clauses(group, n)
    models = admitted(clauses, n, top)
    assert len(models) == len(orbits) and all(len(o & models) == 1 for o in orbits)
    clauses, top = lex_leader_clauses([np.array(g) for g in gens], n)
    assert all(o & admitted(clauses, n, top) for o in orbits)  # sound: every orbit keeps a member


def test_the_board_maps_generate_the_torus_group():
    inst = parse_instance("pieces: L3\nwrap: both\n" + "......\n" * 6)
    group = symmetry_group(generate_placements(inst))
    maps = board_map_symmetries(generate_placements(inst))
    assert len(group) == 8 * 36 and len(maps) == 9  # 7 rotations/reflections, 2 one-cell shifts
    assert len(closure([g.placements for g in maps], group[0].placements.size)) == len(group)


@settings(max_examples=60, deadline=None)
@given(symmetric_instances(max_side=6))
def test_the_board_maps_are_elements_of_the_group(instance):
    """The cheap maps (vectorised, a few) are symmetries that symmetry.py's
    whole group also finds, with the same placement permutation; on boards
    without wraps they are the whole group but the identity and the elements
    that exchange two piece rules (which only the whole group looks for: a
    fixed L3 and its mirror image on a 2x2 board, as Hypothesis once drew)."""
    placements = generate_placements(instance)
    whole = symmetry_group(placements)
    group = {g.cells.tobytes(): g.placements for g in whole}  # (one map may have two names: shift or turn)
    maps = board_map_symmetries(placements)
    assert all(np.array_equal(group[g.cells.tobytes()], g.placements) for g in maps)
    if instance.board.wrap == "none":  # (a map that moves no placement, as on a 1x2 board, is left out)
        keeps_rules = [np.array_equal(placements.rule[g.placements], placements.rule) for g in whole]
        assert len(maps) == sum(not g.is_identity and keeps for g, keeps in zip(whole, keeps_rules))


def test_check_symmetry_rejects_what_is_not_one():
    placements = generate_placements(parse_instance("pieces: L3, I3\n......\n......\n......\n"))
    group = symmetry_group(placements)
    assert all(check_symmetry(placements, g) is None for g in group)
    g = group[1]
    swapped = g.placements.copy()
    swapped[[0, 1]] = swapped[[1, 0]]  # two placements' images exchanged
    assert "cells" in check_symmetry(placements, Symmetry("bad", g.cells, swapped))
    moved = np.roll(g.cells, 1)  # a cell map that is no symmetry
    assert check_symmetry(placements, Symmetry("bad", moved, g.placements)) is not None


# --- answers unchanged on random symmetric boards ------------------------------------

@settings(max_examples=80, deadline=None)
@given(symmetric_instances(max_side=5), st.sampled_from(["auto", "auto", *ENCODINGS]))
def test_solve_and_count_with_breaking_match_the_oracle(instance, encoding):
    truth = oracle_tilings(instance, most=600)
    r = solve(instance, method="sat", encoding=encoding, break_symmetry=True, certificates=False)
    assert r.verdict == ("solved" if truth else "none")
    for t in r.tilings:
        verify_tiling(instance, t)
    c = count_classes(instance, encoding, "minicard" if encoding == "native" else "cadical195", "seqcounter")
    event(f"group of order {len(c.group)}, {'some' if truth else 'no'} tilings")
    assert c.exact and c.count == len(truth)
    assert c.up_to_symmetry == orbit_count(truth, board_maps(*_args(instance)))


@settings(max_examples=30, deadline=None)
@given(symmetric_instances(max_side=4), st.sampled_from(["pieces", "cells"]))
def test_pack_optimum_with_breaking_matches_the_brute_force(instance, objective):
    try:
        truth = brute_force_max_packing(*_args(instance), objective=objective)
    except TooHard:
        reject()
    result = pack(instance, objective, break_symmetry=True)
    event(f"{len(result.stats['symmetry_breaking']['symmetries'])} symmetries broken")
    assert result.proved and result.optimum == truth
    if truth is not None:
        verify_tiling(instance, result.packing, partial=True)


def test_a_count_stopped_by_its_time_limit_is_a_lower_bound():
    inst = parse_instance("pieces: L3\nwrap: both\n" + "......\n" * 6)  # 69,744 tilings, 306 classes
    c = count_classes(inst, "auto", "cadical195", "seqcounter", timeout=0.5)
    assert c.timed_out and not c.exact and c.up_to_symmetry is None and c.count < 69_744


def test_classes_by_breaking_agree_with_burnside_on_known_boards():
    for text in ("pieces: L3\n" + "......\n" * 6, "pieces: I3, L3\nwrap: rows\n" + "......\n" * 3,
                 "pieces: domino\n" + "....\n" * 4):
        inst = parse_instance(text)
        want = count_tilings(inst, "dlx" if "wrap" not in text else "native", up_to_symmetry=True)
        got = count_classes(inst, "auto", "cadical195", "seqcounter")
        assert (got.count, got.up_to_symmetry, len(got.group)) == (want.count, want.up_to_symmetry, len(want.group))


# --- proofs ---------------------------------------------------------------------------

@pytest.fixture
def t6(tmp_path):
    path = tmp_path / "t6.txt"
    path.write_text("pieces: T4\n" + "......\n" * 6)
    return path


def test_a_none_proof_holds_the_breaking_clauses_and_verifies(t6, tmp_path):
    inst = load_instance(t6)
    r = solve(inst, method="sat", break_symmetry=True, certificates=False)
    names = r.stats["symmetry_breaking"]["symmetries"]
    assert r.verdict == "none" and len(names) == 7
    write_proof(inst, tmp_path / "p", "none", None, "pairwise", "seqcounter", symmetries=names)
    meta = json.loads((tmp_path / "p" / "proof.json").read_text())
    assert meta["claim"] == "the board has no tiling (proved on the symmetry-broken formula)"
    assert meta["symmetry_breaking"] == names
    plain = compile_formula(generate_placements(inst), "pairwise")
    cnf = (tmp_path / "p" / "formula.cnf").read_text()
    assert int(cnf.split("p cnf ")[1].split()[1]) > plain.nclauses  # the breaking clauses are in it
    assert "lex-leader clauses for 7 symmetries, each checked" in verify_proof(tmp_path / "p")

    # a symmetry the board does not have is refused, and so is a list cut short
    # (formula.cnf then holds clauses the verifier does not rebuild)
    for bad, words in ((["rotate 90", "rotate 45"], "not a symmetry"), (names[:-1], "not the CNF")):
        meta2 = {**meta, "symmetry_breaking": bad}
        (tmp_path / "p" / "proof.json").write_text(json.dumps(meta2))
        with pytest.raises(ProofError, match=words):
            verify_proof(tmp_path / "p")
    # a breaking proof's claim must say so
    (tmp_path / "p" / "proof.json").write_text(json.dumps({**meta, "claim": "the board has no tiling"}))
    with pytest.raises(ProofError, match="claim"):
        verify_proof(tmp_path / "p")
    # and without the field the formula is not the plain one
    del meta["symmetry_breaking"]
    (tmp_path / "p" / "proof.json").write_text(json.dumps({**meta, "claim": "the board has no tiling"}))
    with pytest.raises(ProofError, match="not the CNF"):
        verify_proof(tmp_path / "p")


def test_named_breaking_refuses_a_forged_symmetry(monkeypatch):
    """verify-proof checks each named symmetry itself (check_symmetry), not
    trusting the code that built its map: a wrong placement map is caught."""
    import tilesat.sat.symbreak as sb
    inst = parse_instance("pieces: L3\n......\n......\n......\n")
    placements = generate_placements(inst)
    formula = compile_formula(placements)
    assert named_breaking(formula, ["rotate 180"])[1] is None
    real = sb.placement_map
    monkeypatch.setattr(sb, "placement_map", lambda p, image: np.roll(real(p, image), 1))
    _, why = named_breaking(formula, ["rotate 180"])
    assert why is not None and "rotate 180" in why


def test_pack_proof_with_breaking_verifies(tmp_path):
    path = tmp_path / "t5.txt"
    path.write_text("pieces: T5\n" + "........\n" * 8)
    inst = load_instance(path)
    result = pack(inst, break_symmetry=True)
    assert result.proved and result.optimum == 10 and not result.stats["lp_bound_met"]
    write_pack_proof(inst, tmp_path / "p", result, "commander", "seqcounter")
    assert json.loads((tmp_path / "p" / "proof.json").read_text())["symmetry_breaking"]
    assert verify_proof(tmp_path / "p").startswith(
        "proof verified: no packing has more than 10 pieces, and the packing in proof.json has 10 "
        "(proved on the formula with lex-leader clauses")


# --- the command line -----------------------------------------------------------------

def test_cli_break_symmetry(t6, tmp_path):
    r = run("solve", t6, "--break-symmetry", "--no-certificate", "--proof", tmp_path / "p")  # else a colouring proves it
    assert r.exit_code == 3 and "symmetry-broken formula" in r.output
    assert run("verify-proof", tmp_path / "p").exit_code == 0
    l3 = tmp_path / "l3.txt"
    l3.write_text("pieces: L3\n" + "......\n" * 6)
    r = run("count", l3, "--up-to-symmetry", "--break-symmetry", "--json")
    data = json.loads(r.output)
    assert (data["count"], data["up_to_symmetry"], data["exact"]) == (162, 25, True)
    for args, words in (((l3, "--break-symmetry"), "--up-to-symmetry"),
                        ((l3, "--up-to-symmetry", "--break-symmetry", "--method", "dlx"), "blocking"),
                        ((l3, "--up-to-symmetry", "--break-symmetry", "--jobs", "2"), "--jobs")):
        r = run("count", *args)
        assert r.exit_code == 2 and words in r.output and r.output.startswith("error:")
    r = run("check-unique", l3, "--break-symmetry")
    assert r.exit_code == 2 and "cannot tell 'unique' from 'multiple'" in r.output
    r = run("solve", l3, "--break-symmetry", "--method", "dlx")
    assert r.exit_code == 2 and "--method sat" in r.output
    with pytest.raises(TilesatError):
        check_unique(load_instance(l3), break_symmetry=True)
    for cmd in ("solve", "pack"):
        r = run(cmd, t6, "--break-symmetry", "--jobs", "2")
        assert r.exit_code == 2 and "--jobs" in r.output and r.output.startswith("error:")
    r = run("pack", t6, "--break-symmetry", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["optimum"] == 8

"""The look-ahead's and probing's verdicts on every path that uses them, on small boards
where the oracle judges (the area thresholds lowered as the engines' own tests do):
no placement of an oracle tiling dies, on every grid, with colours; a lost cell is
checked by the replay and means the oracle finds none; check-unique and solve by
sweep with the look-ahead, probing during the sweep and mended counts, by the
portfolio with the sweep (--jobs 2-4: the sweep first, or its attempts racing as
members; a sweep that gives up), and with the LP's budget stopping the search
anywhere, answer as the oracle does; and so they do when the look-ahead's log is
tampered with (a placement of a tiling marked dead): the replay refuses it and the
search runs without its deaths."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_optional_colours import _key, instances as marked_instances, oracle_tilings
from test_property import as_key, instances, oracle, oracle_checker
from test_sweep import open_boards

from tilesat import Board, Instance, check_unique, solve
from tilesat.certify.deaths import check_deaths, replay_deaths
from tilesat.certify.oracle import TooHard
from tilesat.model.placements import generate_placements
from tilesat.model.tiling import Tiling
from tilesat.engines.prune import probe, prune

GRIDS = ["square", "triangle", "hex", "cube"]


@st.composite
def exact_marked_instances(draw):
    """test_optional_colours' boards (every grid, coloured cells and pieces, piece counts)
    with no optional cell: the boards the look-ahead runs on."""
    inst = draw(st.sampled_from(GRIDS).flatmap(marked_instances))
    b = inst.board
    board = Board(b.open, b.wrap, b.grid, None, b.colour)
    return Instance(board, inst.rules, inst.shapes, pairs=inst.pairs)


def _marked_truth(inst):
    try:
        return oracle_tilings(inst)
    except TooHard:
        return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(exact_marked_instances())
def test_no_placement_of_an_oracle_tiling_dies_on_any_grid_with_colours(inst):
    truth = _marked_truth(inst)
    if truth is None:
        return
    placements = generate_placements(inst)
    if not len(placements):
        return
    index = {_key(Tiling.from_placements(placements, [p])): p for p in range(len(placements))}
    used = {index[frozenset([tile])] for tiling in truth for tile in tiling}
    one_step = prune(placements)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.prune.ROUNDS", 10**6)
        probed = probe(placements, one_step)
    for pruned in (one_step, probed):
        assert all(pruned.alive[p] for p in used)
        assert np.array_equal(replay_deaths(placements, pruned.deaths), pruned.alive)
        if pruned.lost is not None:
            assert not truth
            check_deaths(placements, pruned.deaths, pruned.lost)
    event(f"dead {one_step.dead} -> {probed.dead}, lost: {probed.lost is not None}, tilings: {min(len(truth), 2)}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.sampled_from(GRIDS).flatmap(marked_instances))
def test_check_unique_with_the_look_ahead_and_probing_on_marked_boards(inst):
    # optional cells ('+': the look-ahead must not run), colours, every grid
    truth = _marked_truth(inst)
    if truth is None:
        return
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.sat.PROBE_AFTER", 0)
        result = check_unique(inst, "sat")
    assert result.verdict == expected
    assert len({_key(t) for t in result.tilings}) == len(result.tilings)
    assert all(_key(t) in truth for t in result.tilings)
    assert inst.board.exact or "look_ahead" not in result.stats  # a cell may stay empty: no look-ahead
    event(f"{expected}, exact: {inst.board.exact}, look-ahead: {'look_ahead' in result.stats}")


def _agrees(instance, truth, method, **keywords):
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    accepts = oracle_checker(instance)
    result = check_unique(instance, method, **keywords)
    assert result.verdict == expected, (method, keywords, result.reason, result.stats.get("sweep"))
    assert all(accepts(as_key(t)) for t in result.tilings)
    assert len({as_key(t) for t in result.tilings}) == len(result.tilings)
    found = solve(instance, method, **keywords)
    assert found.verdict == ("solved" if truth else "none"), (method, keywords, found.reason)
    assert all(accepts(as_key(t)) for t in found.tilings)
    return result


@settings(max_examples=80, deadline=None)
@given(open_boards(counts=True, side=6))
def test_sweep_with_the_look_ahead_probing_and_mended_counts_agrees_with_the_oracle(instance):
    # the look-ahead on every board (its dead placements left out of the sweep's windows,
    # the local change's boxes and mend_counts'), probing at the sweep's first step
    truth = oracle(instance)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.sat.PROBE_AFTER", 0)
        result = _agrees(instance, truth, "sweep")
    look = result.stats.get("look_ahead", {})
    event(f"probing ran: {'probing' in look}; found by {result.stats.get('sweep', {}).get('found_by')}")


@st.composite
def swept_boards(draw):
    """Open boards with counts, at most 5 cells wide: a process per member costs more than the oracle."""
    return draw(open_boards(counts=True, side=5))


def _gives_up(sweep, progress=None, pause_wider_than=None):
    sweep._give_up("a test: the sweep gives up at once")
    return None


@settings(max_examples=30, deadline=None)
@given(swept_boards(), st.sampled_from([2, 3, 4]), st.booleans())
def test_the_portfolio_with_the_sweep_and_the_look_ahead_agrees_with_the_oracle(instance, jobs, gives_up):
    # the look-ahead's dead placements go to the sweep, the local change and (where a
    # branch hands them on) to every member; the sweep's attempts may race as members;
    # a sweep that gives up leaves "none" and "unique" to the CDCL members
    truth = oracle(instance)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.portfolio.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.portfolio.cores", lambda: 64)  # a core each
        if gives_up:
            mp.setattr("tilesat.engines.repair_sweep.RepairSweep.run", _gives_up)
        result = _agrees(instance, truth, "sweep", jobs=jobs)
    race = result.stats.get("portfolio", {})
    event(f"found by {result.stats.get('sweep', {}).get('found_by')}; race: {[a['answer'] for a in race.get('answers', [])]}")


@settings(max_examples=60, deadline=None)
@given(open_boards(counts=True, side=6), st.sampled_from([1e-5, 1e-4, 1e-3, 1e-2]), st.sampled_from(["sweep", "sat"]),
       st.sampled_from([0, 10, 10**9]))
def test_a_search_the_lps_budget_stops_anywhere_answers_as_the_oracle(instance, budget, method, probe_after):
    # the LP's turn after a tiny budget: the budget's stop lands anywhere (a sweep's window,
    # probing, the glance, the whole-board solver); what it stopped is not "no tiling"
    from tilesat.certify import schedule

    truth = oracle(instance)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(schedule, "lp_gate", lambda placements: (True, "a test"))
        mp.setattr(schedule, "lp_estimate", lambda placements: budget)
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.sat.PROBE_AFTER", probe_after)
        result = _agrees(instance, truth, method)
    event(f"{method}: LP {result.stats['certificate_check'].get('why')}; probing: {'probing' in result.stats.get('look_ahead', {})}")


@pytest.mark.parametrize("board, pieces, lost_by", [([".....", ".....", "#.##."], "L3", "one step"),
                                                    (["......."] * 3, "L3", "probing")])  # 3xn tiles for even n
def test_a_board_the_look_ahead_proves_untileable_is_none_on_every_path(board, pieces, lost_by):
    from tilesat import parse_pieces

    instance = Instance(Board.from_rows(board), parse_pieces(pieces))
    assert not oracle(instance, cap=1)
    with pytest.MonkeyPatch.context() as mp:
        for where in ("sat", "portfolio"):
            mp.setattr(f"tilesat.engines.{where}.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.portfolio.cores", lambda: 64)
        for method, jobs in (("sat", 1), ("sweep", 1), ("sweep", 2), ("sweep", 4)):
            result = check_unique(instance, method, jobs=jobs)
            assert result.verdict == "none" and not result.tilings, (method, jobs)
            # one step's lost cell answers on every path (the portfolio's look-ahead too); probing
            # runs before the whole-board solver of --method sat (the sweep's glance answers first,
            # the portfolio does not probe: its CDCL members prove it)
            if lost_by == "one step" or (method, jobs) == ("sat", 1):
                assert "each placement on it" in result.reason, (method, jobs, result.reason)
            else:
                assert result.reason is None, (method, jobs, result.reason)
            assert solve(instance, method, jobs=jobs).verdict == "none", (method, jobs)


def _swept_with_probing_at_once(instance):
    # the sweep on a small board, probing as soon as the sweep allows (PROBE_AFTER 0), the glance off
    from tilesat.engines.sat import TilingSearch

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.sat.PROBE_AFTER", 0)
        mp.setattr(TilingSearch, "_glance", lambda self, conflicts=None: None)
        return check_unique(instance, "sweep")


def test_probing_stops_a_sweep_once_a_window_failed_on_a_board_with_no_tiling():
    # L-trominoes on 3x31 (no tiling: 3xn needs n even; one step misses it, probing finds it):
    # the first window is tiled, the second fails, and probing then answers "none"
    from tilesat import parse_pieces

    result = _swept_with_probing_at_once(Instance(Board.from_rows(["." * 31] * 3), parse_pieces("L3")))
    assert result.verdict == "none" and "each placement on it" in result.reason
    assert result.stats["look_ahead"]["probing"]["dead"] > 0
    sweep = result.stats["sweep"]
    assert sweep["windows"] == 2 and sweep["repairs"] == 1 and sweep["found_by"] == []


def test_a_sweep_that_goes_smoothly_never_probes():
    # L-trominoes on 3x60: every window tiled at once, so probing (whose deaths the sweep is
    # not given) has nothing to do there, however long the sweep takes
    from tilesat import parse_pieces

    result = _swept_with_probing_at_once(Instance(Board.from_rows(["." * 60] * 3), parse_pieces("L3")))
    assert result.verdict == "multiple" and result.stats["sweep"]["found_by"] == ["sweep", "local change"]
    sweep = result.stats["sweep"]
    assert sweep["windows"] > 1 and not (sweep.get("repairs") or sweep["widened"] or sweep.get("restarts"))
    assert "probing" not in result.stats["look_ahead"]


def test_a_death_log_that_does_not_replay_says_no_none_and_the_search_decides():
    # the replay refuses the log (as it would a wrong one): no "none" on its strength, the
    # error in the stats, and the verdict from the search (the solver, or the portfolio's members)
    from tilesat import parse_pieces
    from tilesat.certify.certificate import CertificateError

    def refuse(placements, deaths, lost):
        raise CertificateError("a test: this log does not replay")

    instance = Instance(Board.from_rows([".....", ".....", "#.##."]), parse_pieces("L3"))
    with pytest.MonkeyPatch.context() as mp:
        for where in ("sat", "portfolio"):
            mp.setattr(f"tilesat.engines.{where}.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.prune.check_deaths", refuse)
        for method, jobs in (("sat", 1), ("sweep", 2)):
            result = check_unique(instance, method, jobs=jobs)
            assert result.verdict == "none", (method, jobs)
            assert result.reason is None or "each placement on it" not in result.reason, (method, jobs)
            assert result.stats["look_ahead"]["error"].startswith("BUG: the look-ahead's deaths do not check"), (method, jobs)


def _tampered(kind: str, victim: int):
    """engines.prune.prune, then ``victim`` (a placement of an oracle tiling) marked dead:
    in the log too, blamed on an open cell outside it ("logged"), or also calling one of its
    cells lost ("lost": a "none"), or in the placements left alive only ("unlogged")."""
    from dataclasses import replace

    from tilesat.engines import prune as prune_module

    honest = prune_module.prune

    def prune_tampered(placements):
        pruned = honest(placements)
        alive = pruned.alive.copy()
        alive[victim] = False
        if kind == "unlogged":
            return replace(pruned, alive=alive)
        own = set(placements.cells_of(victim).tolist())
        blamed = next(c for c in placements.instance.board.open_cells.tolist() if c not in own)
        d = pruned.deaths
        deaths = type(d)(np.append(d.placement, victim), np.append(d.cell, blamed),
                         np.append(d.ends, d.ends[-1] if len(d.ends) else 0), d.chain)
        lost = int(min(own)) if kind == "lost" else None
        return replace(pruned, alive=alive, deaths=deaths, lost=lost)

    return prune_tampered


def _victim(instance, tiling, spare) -> int:
    """A placement of this oracle tiling that ``spare`` (another) does not use."""
    placements = generate_placements(instance)
    index = {as_key(Tiling.from_placements(placements, [p])): p for p in range(len(placements))}
    return index[frozenset([next(tile for tile in tiling if tile not in spare)])]



def _two_tilings():
    from tilesat import parse_pieces
    return Instance(Board.from_rows(["....", "...."]), parse_pieces("L4"))


def _unique():
    from tilesat import load_instance
    return load_instance(Path(__file__).resolve().parent.parent / "instances" / "lpanel-10x10.txt")


@pytest.mark.parametrize("board, tilings", [(_two_tilings, 2), (_unique, 1)])
@pytest.mark.parametrize("kind", ["logged", "lost", "unlogged"])
def test_a_tampered_death_log_never_gives_a_wrong_verdict(board, tilings, kind):
    # a placement of a known tiling marked dead after the compiled look-ahead ran: trusted,
    # it would turn "unique" into "none" (the solver's units) and "multiple" into "unique";
    # the replay refuses the log and the search runs without its deaths
    instance = board()
    truth = list(oracle(instance))
    assert len(truth) == tilings
    victim = _victim(instance, truth[0], truth[1] if tilings > 1 else frozenset())
    with pytest.MonkeyPatch.context() as mp:
        for where in ("sat", "portfolio"):
            mp.setattr(f"tilesat.engines.{where}.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.portfolio.cores", lambda: 64)
        mp.setattr("tilesat.engines.prune.prune", _tampered(kind, victim))
        for method, jobs in (("sat", 1), ("sweep", 1), ("sweep", 2), ("sweep", 4)):  # 4: sweep members race
            result = _agrees(instance, truth, method, jobs=jobs)
            look = result.stats["look_ahead"]
            assert look["error"].startswith("BUG: the look-ahead's deaths do not check"), (method, jobs)
            assert look["dead"] == 0 and not look["settled"], (method, jobs)  # its deaths dropped


@settings(max_examples=150, deadline=None)  # a quarter of the boards drawn have a tiling of two tiles or more
@given(st.one_of(open_boards(side=6), open_boards(counts=True, side=6), instances()),
       st.sampled_from(["logged", "lost", "unlogged"]), st.data())
def test_a_placement_of_a_tiling_marked_dead_changes_no_verdict(instance, kind, data):
    # any placement of any oracle tiling, marked dead after the look-ahead: sat and sweep
    # still answer as the oracle does, with the log's error in the stats
    truth = list(oracle(instance))
    two_or_more = [t for t in truth if len(t) >= 2]  # a tile and some cell outside it, to blame
    if not two_or_more:
        return
    tiling = data.draw(st.sampled_from(two_or_more))
    others = [t for t in truth if t != tiling]
    victim = _victim(instance, tiling, data.draw(st.sampled_from(others)) if others else frozenset())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        mp.setattr("tilesat.engines.prune.prune", _tampered(kind, victim))
        for method in ("sat", "sweep") if instance.board.wrap == "none" else ("sat",):  # no sweep around a torus
            result = _agrees(instance, truth, method)
            assert result.stats["look_ahead"]["error"].startswith("BUG: the look-ahead's deaths do not check")
    event(f"{min(len(truth), 2)} tilings, {kind}")

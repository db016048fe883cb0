"""The look-ahead (tilesat.engines.prune) and the classic colourings (tilesat.certify.colourings):
a placement it calls dead is in no tiling the oracle finds, a lost cell means
the oracle finds none, a forced tiling is the oracle's only one; a colouring
certificate passes the independent checker and the oracle finds no tiling."""

from pathlib import Path

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st
import pytest
from test_property import as_key, instances, oracle, oracle_checker
from test_sweep import open_boards

from tilesat import Instance, check_unique, load_instance, parse_pieces, solve
from tilesat.model.board import Board
from tilesat.certify.certificate import check_certificate
from tilesat.certify.colourings import colouring_certificate
from tilesat.model.placements import generate_placements
from tilesat.certify.certificate import CertificateError
from tilesat.certify.deaths import check_deaths, replay_deaths
from tilesat.engines import prune as prune_module
from tilesat.engines.prune import Deaths, forced_tiling, probe, prune
from tilesat.model.tiling import Tiling

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def _used(instance, placements, truth) -> set[int]:
    """The placements (indices) that some oracle tiling uses."""
    index = {}
    for p in range(len(placements)):
        cells = frozenset(placements.instance.board.cells(placements.cells_of(p)))
        index[(placements.piece_of(p).name, cells)] = p
    return {index[(name, cells)] for tiling in truth for name, cells in tiling}


@settings(max_examples=150, deadline=None)
@given(instances())
def test_dead_placements_are_in_no_tiling(instance):
    truth = oracle(instance)  # at most CAP + 1 tilings: enough to name placements in use
    placements = generate_placements(instance)
    one_step = prune(placements)
    used = _used(instance, placements, truth)
    for pruned in (one_step, probe(placements, one_step)):  # one step to its fixpoint, then probing
        assert pruned.alive.shape == (len(placements),)
        assert all(pruned.alive[p] for p in used)
        if pruned.lost is not None:
            assert not truth and instance.board.open.ravel()[pruned.lost]
        if len(placements) and instance.board.exact:
            # the log of deaths, replayed by other code, ends where the loops ended
            assert np.array_equal(replay_deaths(placements, pruned.deaths), pruned.alive)
            if pruned.lost is not None:
                check_deaths(placements, pruned.deaths, pruned.lost)
    pruned = one_step
    event("probing found a lost cell one step did not" if pruned.lost is None and probe(placements, pruned).lost
          is not None else "no lost cell by probing alone")
    forced = forced_tiling(placements, pruned)
    if forced is not None:
        # one candidate tiling: if it keeps the piece counts it is the oracle's only one
        key = as_key(Tiling.from_placements(placements, forced))
        assert truth <= {key}


def test_a_designed_puzzle_is_settled_by_the_look_ahead():
    for name in ("lpanel-20x20.txt", "lpanel-gen-40x40.txt"):
        instance = load_instance(INSTANCES / name)
        placements = generate_placements(instance)
        pruned = prune(placements)
        forced = forced_tiling(placements, pruned)
        assert forced is not None and pruned.dead > 0
        assert pruned.stats()["dead"] == pruned.dead
    # a board with many tilings is not settled, and nothing is lost
    open_board = generate_placements(Instance(Board.rectangle(6, 6), parse_pieces("L4")))
    pruned = prune(open_board)
    assert forced_tiling(open_board, pruned) is None and pruned.lost is None


def test_a_cell_lost_by_the_look_ahead():
    # I3 on an H: each upright covers a middle cell that only the crossbar could also
    # cover, so both uprights die, and with them the corners' only placements
    instance = Instance(Board.from_rows([".#.", "...", ".#."]), parse_pieces("I3"))
    pruned = prune(generate_placements(instance))
    assert pruned.lost is not None


@settings(max_examples=150, deadline=None)
@given(instances())
def test_a_colouring_certificate_is_checked_and_right(instance):
    placements = generate_placements(instance)
    cert = colouring_certificate(instance, placements)
    event("a colouring proves no tiling" if cert is not None else "no colouring certificate")
    if cert is None:
        return
    check_certificate(instance, cert)  # the independent checker accepts it
    assert not oracle(instance, cap=1)


@settings(max_examples=60, deadline=None)
@given(open_boards())
def test_no_colouring_certificate_where_the_oracle_tiles(instance):
    truth = oracle(instance, cap=1)
    if truth:
        assert colouring_certificate(instance, generate_placements(instance)) is None


def test_the_classic_colourings():
    # L4 on an 8x8 board with four more white cells than black: the checkerboard
    board = np.ones((8, 8), dtype=bool)
    board[0, 0] = board[0, 2] = board[1, 1] = board[2, 2] = False  # four black cells
    cert = colouring_certificate(*_with_placements(Instance(Board(board), parse_pieces("L4"))))
    assert cert is not None and cert.modulus is None and cert.stats["colouring"] == "checkerboard"
    # the 6x6 L-tetromino board: rows mod 4 (each L covers 1 or 3 cells of the odd rows)
    cert = colouring_certificate(*_with_placements(load_instance(INSTANCES / "lpanel-6x6-none.txt")))
    assert cert is not None and cert.modulus == 4
    # T4 on a balanced board with an odd number of pieces: the checkerboard mod 4
    # (2x6: three Ts, each covering +-2 of the checkerboard, so 2 mod 4 each, 6 in all)
    cert = colouring_certificate(*_with_placements(Instance(Board.rectangle(2, 6), parse_pieces("T4"))))
    assert cert is not None and cert.modulus == 4 and cert.stats["colouring"] == "checkerboard"
    assert not oracle(Instance(Board.rectangle(2, 6), parse_pieces("T4")), cap=1)
    tiles = _with_placements(Instance(Board.rectangle(4, 4), parse_pieces("T4")))
    assert colouring_certificate(*tiles) is None  # 4x4 is tiled by four Ts


def _with_placements(instance):
    return instance, generate_placements(instance)


@settings(max_examples=80, deadline=None)
@given(instances())
def test_check_unique_with_the_look_ahead_agrees_with_the_oracle(instance):
    # the look-ahead runs from SWEEP_MIN_AREA open cells: here on every board, so that
    # the oracle can judge (units for dead placements, the settled shortcut, piece counts)
    truth = oracle(instance)
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    accepts = oracle_checker(instance)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        for method in ("sat", "auto"):
            result = check_unique(instance, method)
            assert result.verdict == expected, method
            assert all(accepts(as_key(t)) for t in result.tilings)
            assert len({as_key(t) for t in result.tilings}) == len(result.tilings)
            assert solve(instance, method).verdict == ("solved" if truth else "none")


def test_a_designed_puzzle_is_answered_by_the_look_ahead_without_a_solver(monkeypatch):
    # 9% of its cells have one candidate: the look-ahead leaves one placement per cell,
    # that candidate tiling is checked, and no solver starts (loading the whole board's
    # formula into one costs more than the look-ahead)
    from tilesat.engines.sat import TilingSearch

    instance = load_instance(INSTANCES / "lpanel-gen-40x40.txt")
    monkeypatch.setattr(TilingSearch, "_ensure_solver", lambda self: pytest.fail("a solver started"))
    result = check_unique(instance)
    assert result.verdict == "unique" and result.stats["sweep"]["found_by"] == ["look-ahead"]
    assert result.stats["look_ahead"]["settled"] and result.stats["look_ahead"]["dead"] > 0


def test_the_look_ahead_resumes_between_slices_and_stops_at_its_deadline(monkeypatch):
    """The compiled loop runs in slices, the deadline checked between them (an open 300x300
    board takes a third of a second whole): cut into small slices it ends where one slice ends, and
    past its deadline it stops after the first slice."""
    import tilesat.engines._prune as compiled
    from tilesat.engines import prune as prune_module
    from tilesat.running.control import Deadline, TimedOut, time_limit

    instance = Instance(Board.from_rows(["." * 12] * 11 + ["." * 8 + "####"]), parse_pieces("L4"))
    placements = generate_placements(instance)
    whole = prune(placements)
    assert whole.dead > 0  # the blocked corner kills some
    slices = []
    one_slice = compiled.dead_placements_slice

    def counted(*args):
        slices.append(args[-1])
        return one_slice(*args)

    monkeypatch.setattr(compiled, "dead_placements_slice", counted)
    monkeypatch.setattr(prune_module, "SLICE", 50)
    sliced = prune(placements)
    assert len(slices) > 10
    assert np.array_equal(sliced.alive, whole.alive) and sliced.lost == whole.lost
    slices.clear()
    with time_limit(Deadline(0.0)), pytest.raises(TimedOut):
        prune(placements)
    assert len(slices) == 1


def _dead_by_definition(placements) -> np.ndarray:
    """The look-ahead's fixpoint the slow way: kill any live p that leaves some open cell
    outside it only candidates overlapping it (a cell with none at all is the board
    checks' business), until none dies."""
    cells = [set(placements.cells_of(p).tolist()) for p in range(len(placements))]
    open_cells = placements.instance.board.open_cells.tolist()
    alive = np.ones(len(placements), dtype=bool)
    changed = True
    while changed:
        changed = False
        for p in np.flatnonzero(alive):
            for c in open_cells:
                others = [q for q in np.flatnonzero(alive) if c in cells[q]]
                if c not in cells[p] and others and all(cells[q] & cells[p] for q in others):
                    alive[p], changed = False, True
                    break
    return alive


@settings(max_examples=80, deadline=None)
@given(instances())
def test_the_look_ahead_reaches_the_fixpoint_of_its_definition(instance):
    # the compiled loop queues again only placements that may die (not every neighbour's
    # neighbour): it must still end where the plain definition ends
    placements = generate_placements(instance)
    pruned = prune(placements)
    if pruned.lost is None and len(placements):
        assert np.array_equal(pruned.alive, _dead_by_definition(placements))


def _probing_by_definition(placements, alive) -> np.ndarray:
    """Probing's fixpoint the slow way: put p down, give every open cell left with one
    candidate that candidate, again and again; p dies when an open cell is left with none
    (a cell with none to begin with is the board checks' business)."""
    cells = [set(placements.cells_of(p).tolist()) for p in range(len(placements))]
    open_cells = placements.instance.board.open_cells.tolist()
    alive = alive.copy()

    def fails(p) -> bool:
        coverable = [c for c in open_cells if any(alive[q] and c in cells[q] for q in range(len(cells)))]
        down = set(cells[p])
        while True:
            free = [q for q in np.flatnonzero(alive) if not cells[q] & down]
            left = {c: [q for q in free if c in cells[q]] for c in coverable if c not in down}
            if any(not qs for qs in left.values()):
                return True
            forced = [qs[0] for qs in left.values() if len(qs) == 1]
            if not forced:
                return False
            down |= cells[forced[0]]

    changed = True
    while changed:
        changed = False
        for p in np.flatnonzero(alive):
            if fails(p):
                alive[p], changed = False, True
    return alive


@settings(max_examples=80, deadline=None)
@given(instances())
def test_probing_reaches_the_fixpoint_of_its_definition(instance):
    placements = generate_placements(instance)
    one_step = prune(placements)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prune_module, "ROUNDS", 10**6)  # to the fixpoint, however many rounds
        probed = probe(placements, one_step)
    assert not (probed.alive & ~one_step.alive).any()  # probing only adds deaths
    if one_step.lost is None and probed.lost is None and len(placements):
        event("probing killed more" if probed.dead > one_step.dead else "probing killed none")
        assert np.array_equal(probed.alive, _probing_by_definition(placements, one_step.alive))


def test_a_wrong_log_of_deaths_does_not_check():
    # L-trominoes on 3x7 (no tiling; probing's deaths have chains): a log whose death is
    # blamed on a cell of its own placement, that stops before the lost cell's last
    # candidate died, or that forces a placement onto a cell it does not cover
    placements = generate_placements(Instance(Board.rectangle(3, 7), parse_pieces("L3")))
    pruned = probe(placements, prune(placements))
    deaths, lost = pruned.deaths, pruned.lost
    check_deaths(placements, deaths, lost)
    own_cell = deaths.cell.copy()
    own_cell[0] = placements.cells_of(int(deaths.placement[0]))[0]
    chained = next(k for k in range(len(deaths.placement)) if deaths.forced(k))
    start = int(deaths.ends[chained - 1]) if chained else 0
    chain = deaths.chain.copy()
    chain[2 * start] = next(q for q in range(len(placements)) if chain[2 * start + 1] not in placements.cells_of(q))
    for wrong in (Deaths(deaths.placement, own_cell, deaths.ends, deaths.chain),
                  Deaths(deaths.placement[:-1], deaths.cell[:-1], deaths.ends[:-1], deaths.chain),
                  Deaths(deaths.placement, deaths.cell, deaths.ends, chain)):
        with pytest.raises(CertificateError):
            check_deaths(placements, wrong, lost)


def _replay_by_definition(placements, deaths) -> np.ndarray:
    """certify.deaths' replay the slow way: one death after the other, sets of cells, the
    placements alive kept as the log goes; raises CertificateError where a step fails."""
    cells = [frozenset(placements.cells_of(p).tolist()) for p in range(len(placements))]
    open_cells = placements.instance.board.open.ravel()
    alive = np.ones(len(placements), dtype=bool)

    def others_on(c, down, but=None):  # live candidates of cell c that do not overlap down
        return [r for r in range(len(cells)) if alive[r] and c in cells[r] and r != but and not cells[r] & down]

    for k, (p, empty, chain) in enumerate(_as_list(deaths)):
        if not 0 <= p < len(cells) or not alive[p]:
            raise CertificateError(f"death {k}")
        down = set(cells[p])
        for q, x in chain:
            if not 0 <= q < len(cells) or x in down or not alive[q] or x not in cells[q] or cells[q] & down:
                raise CertificateError(f"death {k}: forced {q}")
            if others_on(x, down, but=q):
                raise CertificateError(f"death {k}: forced {q}, other candidates")
            down |= cells[q]
        if not 0 <= empty < open_cells.size or empty in down or not open_cells[empty] or others_on(empty, down):
            raise CertificateError(f"death {k}: cell {empty}")
        alive[p] = False
    return alive


def _as_list(deaths: Deaths) -> list[tuple[int, int, list[tuple[int, int]]]]:
    return [(int(p), int(c), deaths.forced(k)) for k, (p, c) in enumerate(zip(deaths.placement, deaths.cell))]


def _on(placements, cell: int) -> np.ndarray:
    """The placements on this cell."""
    owners = np.repeat(np.arange(len(placements)), np.diff(placements.indptr))
    return owners[placements.cells == cell]


def _as_deaths(steps) -> Deaths:
    chains = [pair for _, _, chain in steps for pair in chain]
    return Deaths(np.array([p for p, _, _ in steps], dtype=np.int64), np.array([c for _, c, _ in steps], dtype=np.int64),
                  np.cumsum([len(chain) for _, _, chain in steps], dtype=np.int64),
                  np.array(chains, dtype=np.int64).reshape(-1))


@st.composite
def _mutated(draw, deaths: Deaths, placements) -> Deaths:
    """The log, or the log changed in one place: a death added, dropped, moved, blamed on
    another cell or given to another placement; a forced placement or its cell changed,
    one dropped or one added.  A placement drawn is as often one on a cell of the step
    changed (the near misses a replay could let through) as any."""
    steps = _as_list(deaths)
    how = draw(st.sampled_from(["none", "add", "repeat", "drop", "swap", "cell", "placement", "forced", "onto",
                                "drop forced", "add forced"]))
    count, ncells = len(placements), placements.instance.board.ncells
    near = [int(p) for p in np.unique(np.concatenate([_on(placements, c) for _, c, chain in steps
                                                      for c in [c, *(x for _, x in chain)]] or [[]]))]
    placement = st.one_of(st.integers(0, count - 1), *([st.sampled_from(near)] if near else []))
    cell = st.integers(0, ncells - 1)
    if how == "add":
        steps.insert(draw(st.integers(0, len(steps))), (draw(placement), draw(cell), []))
    elif how in ("repeat", "drop", "swap", "cell", "placement") and steps:
        k = draw(st.integers(0, len(steps) - 1))
        p, c, chain = steps[k]
        if how == "repeat":
            steps.insert(draw(st.integers(k + 1, len(steps))), steps[k])
        elif how == "drop":
            del steps[k]
        elif how == "swap" and k + 1 < len(steps):
            steps[k], steps[k + 1] = steps[k + 1], steps[k]
        elif how == "cell":
            steps[k] = (p, draw(cell), chain)
        elif how == "placement":
            steps[k] = (draw(placement), c, chain)
    elif how != "none":
        chained = [k for k, (_, _, chain) in enumerate(steps) if chain] if how != "add forced" else list(range(len(steps)))
        if chained:
            k = draw(st.sampled_from(chained))
            p, c, chain = steps[k]
            chain = list(chain)
            i = draw(st.integers(0, max(len(chain) - 1, 0)))
            if how == "forced":  # often another candidate of the same cell
                x = chain[i][1]
                chain[i] = (draw(st.one_of(placement, st.sampled_from(_on(placements, x).tolist()))), x)
            elif how == "onto":
                chain[i] = (chain[i][0], draw(cell))
            elif how == "drop forced":
                del chain[i]
            else:  # onto one of its own cells
                q = draw(placement)
                chain.insert(i, (q, draw(st.sampled_from(placements.cells_of(q).tolist()))))
            steps[k] = (p, c, chain)
    event(f"log: {how}")
    return _as_deaths(steps)


@settings(max_examples=300, deadline=None)
@given(st.one_of(instances(), open_boards(side=6)), st.data())
def test_the_replay_accepts_the_logs_its_definition_accepts_and_kills_no_tiles_placement(instance, data):
    # certify.deaths checks every step at once with arrays: it must accept exactly the logs,
    # real or changed, that the death-by-death definition accepts, end where it ends, and
    # never let a placement of an oracle tiling die
    placements = generate_placements(instance)
    if not instance.board.exact:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prune_module, "ROUNDS", 10**6)
        pruned = probe(placements, prune(placements))
    if not len(placements):  # nothing to replay, and nothing dies
        empty = Deaths(*(np.zeros(0, dtype=np.int64) for _ in range(4)))
        assert replay_deaths(placements, empty).shape == (0,)
        return
    event(f"deaths: {min(len(pruned.deaths.placement), 3)}, chains: {len(pruned.deaths.chain) > 0}")
    log = data.draw(_mutated(pruned.deaths, placements))
    try:
        expected = _replay_by_definition(placements, log)
    except CertificateError:
        expected = None
    try:
        alive = replay_deaths(placements, log)
    except CertificateError:
        alive = None
    event("accepted" if alive is not None else "refused")
    assert (alive is None) == (expected is None)
    if alive is not None:
        assert np.array_equal(alive, expected)
        truth = oracle(instance)
        assert all(alive[p] for p in _used(instance, placements, truth))


@pytest.mark.parametrize("rows, pieces", [([".....", ".....", "#.##."], "L3"), (["....."] * 3, "I3,L4")])
def test_every_log_one_forced_placement_away_is_judged_as_its_definition_judges_it(rows, pieces):
    # each death's chain given one more forced placement (any, onto any of its cells, anywhere
    # in the chain): the near misses random changes rarely hit (a forced placement that died
    # before, or that overlaps what is down; pieces of two sizes, whose cell rows are padded)
    placements = generate_placements(Instance(Board.from_rows(rows), parse_pieces(pieces)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prune_module, "ROUNDS", 10**6)
        steps = _as_list(probe(placements, prune(placements)).deaths)
    verdicts = set()
    for k, (p, c, chain) in enumerate(steps):
        for i in range(len(chain) + 1):
            for q in range(len(placements)):
                for x in placements.cells_of(q).tolist():
                    log = _as_deaths(steps[:k] + [(p, c, chain[:i] + [(q, x)] + chain[i:])] + steps[k + 1:])
                    verdict = [_accepts(replay, placements, log) for replay in (replay_deaths, _replay_by_definition)]
                    assert verdict[0] == verdict[1], (k, i, q, x)
                    verdicts.add(verdict[0])
    assert verdicts == {True, False}


def _accepts(replay, placements, log) -> bool:
    try:
        replay(placements, log)
    except CertificateError:
        return False
    return True


def test_probing_finds_a_lost_cell_the_one_step_look_ahead_misses():
    """L-trominoes on 3x7 (3xn tiles only for even n): every placement on some cell forces,
    cell by cell, a cell left empty further on; one step does not see it, probing does,
    and check-unique says "none" on its strength."""
    instance = Instance(Board.rectangle(3, 7), parse_pieces("L3"))
    placements = generate_placements(instance)
    assert prune(placements).lost is None
    pruned = probe(placements, prune(placements))
    assert pruned.lost is not None and pruned.probing["dead"] > 0
    assert any(len(pruned.deaths.forced(k)) > 0 for k in range(len(pruned.deaths.placement)))
    assert not oracle(instance, cap=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        result = check_unique(instance)
    assert result.verdict == "none" and "each placement on it" in result.reason
    assert result.stats["certificate_check"]["ran"] is False  # no LP
    assert result.stats["look_ahead"]["probing"]["dead"] > 0


def test_a_search_the_lps_budget_stopped_goes_on_after_the_lp(monkeypatch):
    """The LP's turn comes once the search has run for the LP's expected time: the solver
    stopped there is spent (the search exhausted) until the LP has had its turn and a new
    solver starts.  Probing, which runs just before the LP, must not take that for "no tiling"."""
    from tilesat.certify import schedule

    def stopped_by_the_budget(plan, work):
        work.__self__.exhausted = True  # what a solver stopped by the LP's budget leaves
        return False, None

    monkeypatch.setattr(schedule, "lp_gate", lambda placements: (True, "a test"))
    monkeypatch.setattr(schedule, "lp_estimate", lambda placements: 1.0)
    monkeypatch.setattr(schedule.LpBudget, "attempt", stopped_by_the_budget)
    monkeypatch.setattr(schedule.LpBudget, "run", lambda plan: setattr(plan, "pending", False))  # no certificate
    monkeypatch.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)  # the look-ahead, and probing, on a small board
    result = check_unique(Instance(Board.rectangle(4, 6), parse_pieces("L4")), "sat")
    assert result.verdict == "multiple" and "probing" in result.stats["look_ahead"]

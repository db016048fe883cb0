"""Certificates of "no tiling" (issue 14): LP weightings and modular colourings.

Whenever one is produced, the independent brute-force oracle finds no
tiling and the exact checker accepts it; damaging it makes the checker
reject it.  Known families: mutilated boards, domino boards missing two
cells of one colour, deficient 5x5 L-tromino boards, Aztec diamonds with a
cell added, the T-tetromino on 4x6 and 6x6.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesat.certify.oracle import brute_force_tilings, TooHard
from tilesat import check_unique, parse_instance, solve
from tilesat.certify.certificate import (
    Certificate, CertificateError, check_certificate, lp_certificate, lp_gate, modular_certificate,
)
from tilesat.cli import app
from tilesat.model.placements import generate_placements
from tilesat.sat.proof import ProofError, verify_proof

runner = CliRunner()


def board(rows: list[str], pieces: str, wrap: str = "none"):
    return parse_instance(f"pieces: {pieces}\nwrap: {wrap}\n" + "\n".join(rows) + "\n")


def mutilated(n: int) -> list[str]:
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return ["".join(r) for r in rows]


def certify(instance):
    placements = generate_placements(instance)
    return lp_certificate(instance, placements) or modular_certificate(instance, placements)


def damaged(cert: Certificate, cell, delta: int, keep_total: bool) -> Certificate:
    weights = dict(cert.weights)
    weights[cell] = weights.get(cell, 0) + delta
    total = cert.total + delta if keep_total else cert.total
    return Certificate(weights, cert.rules, total, cert.modulus)


def assert_damage_rejected(instance, cert: Certificate) -> None:
    cells = [divmod(int(x), instance.board.cols) for x in instance.board.open_cells]
    cell = cells[len(cells) // 2]
    with pytest.raises(CertificateError):  # the total no longer adds up
        check_certificate(instance, damaged(cert, cell, 1, keep_total=False))
    covered = generate_placements(instance).coverage()[cell[0] * instance.board.cols + cell[1]] > 0
    if covered and cert.modulus is None:
        # consistent total, but a placement over the cell now weighs > 0
        big = 1 + 2 * max([abs(w) for w in cert.weights.values()] + [abs(v) for v in cert.rules.values()] + [1]) * 8
        with pytest.raises(CertificateError, match="covers weight"):
            check_certificate(instance, damaged(cert, cell, big, keep_total=True))


@pytest.mark.parametrize("n", range(2, 41, 2))
def test_mutilated_boards_have_checkerboard_certificates(n):
    instance = board(mutilated(n), "domino")
    cert = lp_certificate(instance, generate_placements(instance))
    assert cert is not None and cert.modulus is None
    check_certificate(instance, cert)
    assert cert.total > 0
    assert_damage_rejected(instance, cert)


def test_domino_boards_missing_two_cells_of_one_colour():
    n = 6
    cells = [(r, c) for r in range(n) for c in range(n)]
    pairs = [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:] if sum(a) % 2 == sum(b) % 2]
    for a, b in pairs[::7]:  # a spread of the 306 pairs, corners to centre
        rows = [["."] * n for _ in range(n)]
        rows[a[0]][a[1]] = rows[b[0]][b[1]] = "#"
        instance = board(["".join(r) for r in rows], "domino")
        cert = lp_certificate(instance, generate_placements(instance))
        assert cert is not None, (a, b)
        check_certificate(instance, cert)


@pytest.mark.parametrize("hole", [(r, c) for r in range(5) for c in range(5)])
def test_deficient_5x5_l_tromino_boards(hole):
    """Tileable exactly when the missing cell has both coordinates even
    (Chu and Johnsonbaugh); every other one gets a certificate."""
    rows = [["."] * 5 for _ in range(5)]
    rows[hole[0]][hole[1]] = "#"
    instance = board(["".join(r) for r in rows], "L3")
    cert = lp_certificate(instance, generate_placements(instance))
    tileable = hole[0] % 2 == 0 and hole[1] % 2 == 0
    assert (cert is None) == tileable
    if cert is not None:
        check_certificate(instance, cert)
        assert_damage_rejected(instance, cert)


@pytest.mark.parametrize("order", range(1, 6))
def test_aztec_diamond_with_a_cell_added(order):
    size = 2 * order + 2  # one spare column for the added cell
    rows = []
    for r in range(2 * order):
        half = r + 1 if r < order else 2 * order - r
        rows.append(["#"] + ["." if order - half <= c < order + half else "#" for c in range(2 * order)] + ["#"])
    for r in range(2 * order):
        line = rows[r]
        if line[1] == "#" and line[2] == ".":
            line[1] = "."  # one cell added beside the diamond
            break
    else:
        rows[order - 1][0] = "."
    instance = board(["".join(r) for r in rows], "domino")
    assert instance.board.area == 2 * order * (order + 1) + 1 and size
    cert = lp_certificate(instance, generate_placements(instance))
    assert cert is not None
    check_certificate(instance, cert)


@pytest.mark.parametrize("shape", [(4, 6), (6, 6)])
def test_t_tetromino_rectangles(shape):
    """Walkup: T-tetrominoes tile no 4x6 or 6x6 rectangle.  The LP answers
    both; the modular search answers 6x6 (mod 2: each T covers an odd number
    of black cells, and there are 9 of them)."""
    instance = board(["." * shape[1]] * shape[0], "T4")
    placements = generate_placements(instance)
    cert = lp_certificate(instance, placements)
    assert cert is not None
    check_certificate(instance, cert)
    modular = modular_certificate(instance, placements)
    if shape == (6, 6):
        assert modular is not None and modular.modulus == 2
        check_certificate(instance, modular)
        wrong = damaged(modular, (0, 0), 1, keep_total=True)
        with pytest.raises(CertificateError):
            check_certificate(instance, wrong)


def test_modular_certificates_never_claim_a_tileable_board():
    instance = board(["." * 4] * 4, "T4")  # 4x4: tileable
    assert modular_certificate(instance, generate_placements(instance)) is None
    assert lp_certificate(instance, generate_placements(instance)) is None


PIECES = ["domino", "L3", "I3", "T4", "O4", "L4", "S4"]


@st.composite
def small_instances(draw):
    rows = draw(st.integers(2, 5))
    cols = draw(st.integers(2, 5))
    grid = ["".join(draw(st.sampled_from(".....#")) for _ in range(cols)) for _ in range(rows)]
    if "." not in "".join(grid):
        grid[0] = "." + grid[0][1:]
    names = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3, unique=True))
    items = []
    for name in names:
        count = draw(st.sampled_from(["", "", ":1", ":2", ":0..1", ":1..", ":2..3"]))
        items.append(name + count)
    wrap = draw(st.sampled_from(["none", "none", "none", "rows", "both"]))
    return grid, ", ".join(items), wrap


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_certificates_are_sound(case):
    grid, pieces, wrap = case
    instance = board(grid, pieces, wrap)
    cert = certify(instance)
    if cert is None:
        return
    check_certificate(instance, cert)  # the independent checker accepts it
    oracle_pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max) for r in instance.rules]
    try:
        found = brute_force_tilings(grid, wrap, oracle_pieces, cap=0)
    except TooHard:
        return
    assert not found, f"a certificate for a tileable board: {grid} {pieces} {wrap}"
    assert_damage_rejected(instance, cert)
    # the JSON form reads back to the same certificate, which checks too
    again = Certificate.from_json(json.loads(json.dumps(cert.to_json())))
    check_certificate(instance, again)


def _vertex_only(monkeypatch):
    """lp_certificate as it was before the interior point: the simplex's vertex alone."""
    import tilesat.certify.certificate as certificate

    solve_lp = certificate._solve_lp
    monkeypatch.setattr(certificate, "_solve_lp", 
                        lambda matrix, cost, bounds, limit, vertex=False: solve_lp(matrix, cost, bounds, limit, True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(small_instances())
def test_the_interior_point_finds_a_certificate_where_the_simplex_does(monkeypatch, case):
    """The LP by interior point (its point rounded, else the simplex's vertex)
    finds a certificate on exactly the boards the simplex's vertex alone does."""
    grid, pieces, wrap = case
    instance = board(grid, pieces, wrap)
    placements = generate_placements(instance)
    if len(placements) == 0:
        return
    first = lp_certificate(instance, placements)
    with monkeypatch.context() as m:
        _vertex_only(m)
        vertex = lp_certificate(instance, placements)
    event(first.stats["lp_method"] if first is not None else "no certificate")
    assert (first is None) == (vertex is None), f"{grid} {pieces} {wrap}"
    if first is not None:
        check_certificate(instance, first)


def test_an_interior_point_that_does_not_round_is_followed_by_the_simplex():
    """T4 on this 5x6 board: the LP's value is 6.5 and the interior point's
    solution rounds to no weights that check; the simplex's vertex does."""
    grid = ["......", "......", "..#..#", "##..#.", "......"]
    instance = board(grid, "T4")
    cert = lp_certificate(instance, generate_placements(instance))
    assert cert is not None and cert.stats["lp_method"] == "interior point, then simplex"
    assert cert.stats["lp_value"] == 6.5
    check_certificate(instance, cert)
    oracle_pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max) for r in instance.rules]
    assert not brute_force_tilings(grid, "none", oracle_pieces, cap=0)


def test_piece_counts_get_multipliers():
    """2x6 with exactly two T-tetrominoes and O-tetrominoes: the area adds up
    (two Ts and one O), but the Ts cannot both fit beside the O; the
    certificate needs the T count's multiplier."""
    instance = board(["......", "......"], "T4:2, O4")
    cert = certify(instance)
    assert cert is not None and cert.rules.get("T4", 0) > 0
    check_certificate(instance, cert)
    assert cert.total == sum(cert.weights.values()) + 2 * cert.rules["T4"]
    assert not brute_force_tilings(instance.board.rows_text(), "none",
                                   [("T4", list(instance.rule("T4").piece.cells), "free", 2, 2),
                                    ("O4", list(instance.rule("O4").piece.cells), "free", 0, float("inf"))])
    without = Certificate(cert.weights, {}, sum(cert.weights.values()))  # the multiplier matters
    with pytest.raises(CertificateError):
        check_certificate(instance, without)


def test_json_format_is_the_issues():
    instance = board(mutilated(4), "domino")
    cert = lp_certificate(instance, generate_placements(instance))
    data = cert.to_json()
    assert set(data) == {"weights", "rules", "total"}
    assert all(len(w) == 3 for w in data["weights"]) and data["total"] == 2
    assert sum(w for _, _, w in data["weights"]) + sum(data["rules"].values()) * 0 == data["total"]


def test_solve_answers_with_the_certificate():
    instance = board(mutilated(8), "domino")
    for method in ("sat", "dlx"):
        result = check_unique(instance, method=method, certificates="always")
        assert result.verdict == "none" and result.certificate is not None
        assert result.stats["certificate_check"]["ran"] and result.stats["certificate_check"]["why"] == "asked for"
        check_certificate(instance, result.certificate)
    off = solve(board(mutilated(4), "domino"), certificates=False)
    assert off.verdict == "none" and off.certificate is None
    assert off.stats["certificate_check"] == {"ran": False, "why": "turned off"}


def test_by_default_the_lp_runs_once_the_search_has_taken_its_estimated_time(monkeypatch):
    """40x40: CDCL would need far more than the LP's 0.02 s estimate.  (The checkerboard
    colouring answers this board before the LP by default: turned off here, as on a
    board no classic colouring answers.)"""
    board40 = board(mutilated(40), "domino")
    by_colouring = solve(board40, timeout=60)
    assert by_colouring.verdict == "none" and by_colouring.stats["certificate_check"]["why"] == "the checkerboard colouring"
    monkeypatch.setattr("tilesat.engines.sat.colouring_certificate", lambda instance, placements: None)
    result = solve(board40, timeout=60)
    assert result.verdict == "none" and result.certificate is not None
    check = result.stats["certificate_check"]
    assert check["ran"] and check["found"] and "estimated time" in check["why"]


def test_a_search_that_finishes_first_skips_the_lp():
    result = check_unique(board(["." * 6] * 4, "domino"))
    assert result.verdict == "multiple" and result.certificate is None
    assert result.stats["certificate_check"] == {"ran": False, "why": "the search finished first"}


def test_the_gate_skips_clued_boards(tmp_path):
    from tilesat import load_instance

    root = Path(__file__).resolve().parent.parent / "instances"
    for name in ("lpanel-8x8.txt", "lpanel-gen-40x40.txt"):
        run, why = lp_gate(generate_placements(load_instance(root / name)))
        assert not run and "only one way" in why
    run, _ = lp_gate(generate_placements(board(mutilated(8), "domino")))
    assert run


def test_cli_json_proof_and_verify_rejects_a_changed_weight(tmp_path):
    path = tmp_path / "mut.txt"
    path.write_text("pieces: domino\n" + "\n".join(mutilated(10)) + "\n")
    result = runner.invoke(app, ["solve", str(path), "--json", "--certificate", "--proof", str(tmp_path / "p"),
                                 "--svg", str(tmp_path / "w.svg")])
    assert result.exit_code == 3, result.output
    data = json.loads(result.output)
    assert data["verdict"] == "none" and set(data["certificate"]) == {"weights", "rules", "total"}
    assert (tmp_path / "w.svg").read_text().count("data-weight") == 98
    assert "proof verified" in verify_proof(tmp_path / "p")
    meta_path = tmp_path / "p" / "proof.json"
    meta = json.loads(meta_path.read_text())
    meta["certificate"]["weights"][5][2] += 1
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ProofError, match="does not check"):
        verify_proof(tmp_path / "p")
    meta["certificate"]["total"] += 1  # consistent again: the placements over that cell now weigh too much
    meta["certificate"]["weights"][5][2] += 5
    meta["certificate"]["total"] += 5
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ProofError, match="covers weight"):
        verify_proof(tmp_path / "p")
    result = runner.invoke(app, ["verify-proof", str(tmp_path / "p")])
    assert result.exit_code != 0


def test_cli_text_shows_the_weights(tmp_path):
    path = tmp_path / "mut.txt"
    path.write_text("pieces: domino\n" + "\n".join(mutilated(4)) + "\n")
    result = runner.invoke(app, ["solve", str(path), "--certificate"])
    assert result.exit_code == 3
    assert "every placement covers weight <= 0, the open cells weigh +2: no tiling" in result.output
    assert " #  1 -1  1" in result.output or "# -1  1 -1" in result.output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(), st.sampled_from(["pieces", "cells"]))
def test_the_lp_pack_bound_is_an_upper_bound(case, objective):
    from tilesat.certify.oracle import brute_force_max_packing
    from tilesat.certify.certificate import lp_pack_bound
    from tilesat.questions.pack import pack

    grid, pieces, wrap = case
    instance = board(grid, pieces, wrap)
    oracle_pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max) for r in instance.rules]
    try:
        best = brute_force_max_packing(grid, wrap, oracle_pieces, objective)
    except TooHard:
        return
    bound = lp_pack_bound(generate_placements(instance), objective)
    if best is not None and bound is not None:
        assert best <= bound
    result = pack(instance, objective)
    assert result.optimum == best  # stopping at the LP bound never stops short
    if result.stats.get("lp_bound_met"):
        assert result.optimum == result.lp_bound


def test_info_says_whether_the_check_runs(tmp_path):
    root = Path(__file__).resolve().parent.parent / "instances"
    result = runner.invoke(app, ["info", str(root / "lpanel-8x8.txt")])
    assert "certificate check (LP) before a search: skipped" in result.output
    path = tmp_path / "mut.txt"
    path.write_text("pieces: domino\n" + "\n".join(mutilated(8)) + "\n")
    result = runner.invoke(app, ["info", str(path), "--json"])
    assert json.loads(result.output)["certificate_check"]["runs"] is True


# -- bound certificates: pack's LP bound, proved by LP duality ---------------------

from tilesat.certify.certificate import BoundCertificate, check_bound_certificate  # noqa: E402


def bound_by_placements(instance, cert: BoundCertificate, objective: str):
    """The test's own reading of a bound certificate, over the placement
    generator's placements (the checker uses neither it nor the LP): the
    bound floor(total / D) it proves, or None when it proves nothing."""
    rules = {r.name: r for r in instance.rules}
    D = cert.denominator
    if D < 1 or any(w < 0 for w in cert.weights.values()) or not set(cert.rules) <= set(rules):
        return None
    if any(not instance.board.open[r, c] for r, c in cert.weights if 0 <= r < instance.board.rows and 0 <= c < instance.board.cols):
        return None
    if any(not (0 <= r < instance.board.rows and 0 <= c < instance.board.cols) for r, c in cert.weights):
        return None
    total = sum(cert.weights.values())
    for name, mu in cert.rules.items():
        if mu > 0 and rules[name].max == float("inf"):
            return None
        total += mu * (rules[name].max if mu > 0 else rules[name].min)
    if total != cert.total:
        return None
    placements = generate_placements(instance)
    cols = instance.board.cols
    for i in range(len(placements)):
        cells = placements.cells[placements.indptr[i]:placements.indptr[i + 1]].tolist()
        rule = instance.rules[int(placements.rule[i])]
        covered = sum(cert.weights.get(divmod(x, cols), 0) for x in cells) + cert.rules.get(rule.name, 0)
        if covered < D * (len(cells) if objective == "cells" else 1):
            return None
    return total // D


def oracle_max(instance, grid, wrap, objective, node_limit=200_000):
    from tilesat.certify.oracle import brute_force_max_packing

    oracle_pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max) for r in instance.rules]
    return brute_force_max_packing(grid, wrap, oracle_pieces, objective, node_limit=node_limit)


def proof_round_trip(tmp: Path, text: str, objective: str) -> tuple[Path, dict]:
    """pack --proof through the library on the instance written to a file;
    verify-proof accepts it; the proof.json data."""
    from tilesat import load_instance
    from tilesat.questions.pack import pack
    from tilesat.sat.proof import write_pack_proof

    path = tmp / "board.txt"
    path.write_text(text)
    instance = load_instance(path)
    result = pack(instance, objective)
    write_pack_proof(instance, tmp / "p", result, "auto", "seqcounter")
    assert sorted(f.name for f in (tmp / "p").iterdir()) == ["instance.txt", "proof.json"]  # no CNF, no DRAT: no SAT call
    assert verify_proof(tmp / "p").startswith(f"proof verified: no packing has more than {result.optimum} ")
    return tmp / "p" / "proof.json", json.loads((tmp / "p" / "proof.json").read_text())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(), st.sampled_from(["pieces", "cells"]), st.data())
def test_bound_certificates_are_sound(case, objective, data):
    import tempfile

    from tilesat.questions.pack import pack

    grid, pieces, wrap = case
    instance = board(grid, pieces, wrap)
    result = pack(instance, objective)
    if not result.stats.get("lp_bound_met"):
        assert result.bound_certificate is None
        return
    event(f"LP bound met, objective {objective}")
    cert = result.bound_certificate
    assert cert is not None, "the LP bound was met but its duals gave no certificate"
    assert check_bound_certificate(instance, cert, objective) == result.optimum
    assert bound_by_placements(instance, cert, objective) == result.optimum
    assert BoundCertificate.from_json(json.loads(json.dumps(cert.to_json()))) == cert
    try:
        assert oracle_max(instance, grid, wrap, objective) == result.optimum
        event("the oracle agrees")
    except TooHard:
        pass
    # damage one weight (or a multiplier), with the total kept or moved along
    keys = [("w", k) for k in sorted(cert.weights)] + [("r", k) for k in sorted(cert.rules)]
    if not keys:
        return
    which, key = data.draw(st.sampled_from(keys), label="damaged")
    delta = data.draw(st.sampled_from([-3, -1, 1, 2]), label="delta")
    weights, rules = dict(cert.weights), dict(cert.rules)
    (weights if which == "w" else rules)[key] += delta
    for total in (cert.total, None):  # None: the total made consistent again
        bad = BoundCertificate(weights, rules, cert.denominator, 0 if total is not None else 0)
        if total is None:
            try:
                from tilesat.certify.certificate import _bound_total
                total = _bound_total(instance, bad)
            except CertificateError:
                total = cert.total
        bad = BoundCertificate(weights, rules, cert.denominator, total)
        truth = bound_by_placements(instance, bad, objective)
        try:
            got = check_bound_certificate(instance, bad, objective)
        except CertificateError:
            got = None
        assert got == truth, (bad, truth, got)
        event("damaged: " + ("rejected" if got is None else "still a valid bound"))
    # through a written proof: a changed weight (total kept) is rejected
    if which == "w":
        with tempfile.TemporaryDirectory() as tmp:
            path, meta = proof_round_trip(Path(tmp), f"pieces: {pieces}\nwrap: {wrap}\n" + "\n".join(grid) + "\n", objective)
            entry = meta["bound_certificate"]["weights"][0]
            entry[2] += delta
            path.write_text(json.dumps(meta))
            with pytest.raises(ProofError, match="bound certificate does not check"):
                verify_proof(Path(tmp) / "p")


KNOWN_BOUNDS = [
    # (board rows, pieces, wrap, objective, optimum)
    (["....."] * 5, "V5", "none", "pieces", 4),  # every V covers two cells of the central cross: D = 2
    (["....."] * 5, "V5", "none", "cells", 20),
    ([".........."] * 5, "V5", "none", "pieces", 9),
    (["....."] * 3, "V5", "none", "pieces", 2),
    (["....."] * 5, "T4", "none", "pieces", 5),
    (["......"] * 6, "T4", "none", "pieces", 8),  # the area allows 9; the LP says 8
    (["....."] * 6, "T4", "none", "pieces", 7),
    (["...."] * 4, "T4", "none", "cells", 16),
    (["....."] * 5, "V5", "both", "pieces", 5),
    (["......"] * 5, "V5", "rows", "pieces", 6),
    (["....."] * 5, "T4", "rows", "pieces", 6),
    (["......"] * 2, "T4:2, O4", "none", "pieces", 2),  # a negative multiplier times T4's minimum
    (["...."] * 4, "V5:1.., domino", "none", "pieces", 6),
    (["....."] * 3, "V5:1.., I3", "none", "pieces", 4),
    (["....."] * 5, "T4:1..2, domino:0..3", "none", "pieces", 5),  # positive multipliers times the maxima
]


@pytest.mark.parametrize("grid, pieces, wrap, objective, optimum", KNOWN_BOUNDS)
def test_known_lp_tight_packings_are_proved_by_a_certificate(grid, pieces, wrap, objective, optimum, tmp_path):
    path, meta = proof_round_trip(tmp_path, f"pieces: {pieces}\nwrap: {wrap}\n" + "\n".join(grid) + "\n", objective)
    assert meta["optimum"] == optimum
    instance = board(grid, pieces, wrap)
    cert = BoundCertificate.from_json(meta["bound_certificate"])
    assert cert.total // cert.denominator == optimum and bound_by_placements(instance, cert, objective) == optimum
    assert oracle_max(instance, grid, wrap, objective, node_limit=2_000_000) == optimum
    if pieces == "T4:2, O4":
        assert cert.rules == {"T4": -2 * cert.denominator // 6} or cert.rules["T4"] < 0
    # a changed weight, total or denominator is rejected
    for field, change in (("weight", 1), ("total", 1), ("denominator", 1), ("denominator", -cert.denominator)):
        damaged = json.loads(json.dumps(meta))
        c = damaged["bound_certificate"]
        if field == "weight":
            if not c["weights"]:
                continue
            c["weights"][len(c["weights"]) // 2][2] += change
        else:
            c[field] += change
        bad = tmp_path / f"bad-{field}-{change}"
        bad.mkdir()
        (bad / "proof.json").write_text(json.dumps(damaged))
        if field == "denominator" and change == 1:
            # D + 1 may still be a valid certificate (slack everywhere); the test's own criterion decides
            again = BoundCertificate(cert.weights, cert.rules, cert.denominator + 1, cert.total)
            if bound_by_placements(instance, again, objective) == optimum:
                assert verify_proof(bad).startswith("proof verified")
                continue
        with pytest.raises(ProofError):
            verify_proof(bad)


def test_the_v5_cross_certificate_reads_as_the_argument():
    """V5 on 5x5: weight 1 on the nine cells of the central cross except the
    centre, denominator 2: every V covers at least two of them, so 4 Vs at most."""
    from tilesat.questions.pack import pack

    instance = board(["....."] * 5, "V5")
    cert = pack(instance).bound_certificate
    assert cert is not None and (cert.denominator, cert.total, cert.rules) == (2, 8, {})
    assert cert.sentence("pieces").endswith("no packing is worth more than 8/2, so 4")
    assert all(w == 1 for w in cert.weights.values()) and len(cert.weights) == 8
    assert all(r == 2 or c == 2 for r, c in cert.weights) and (2, 2) not in cert.weights

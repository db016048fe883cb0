"""Memory guards and their estimates (tilesat.model.footprint, tilesat.running.memory): sizes against the real
encoders, bounds against real placements, the limit and its sources, and real
runs in child processes (peak memory against the estimate; a 3000x3000 board
refused in one line under an address-space limit)."""

import json
import os
import resource
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.card import CardEnc, EncType

from tilesat import Board, Instance, PieceRule, TilesatError, builtin_piece, compile_formula, generate_placements
from tilesat.model import footprint
from tilesat.running import memory
from tilesat.sat.encodings import ENCODINGS
from tilesat.sat.formula import CARD_ENCODINGS
from tilesat.model.instance import INF, parse_instance, parse_pieces
from tilesat.model.pieces import parse_drawing
from tilesat.model.placements import Placements


@pytest.fixture(autouse=True)
def no_limit(monkeypatch):
    """Each test starts with no explicit limit, whatever the environment."""
    monkeypatch.delenv(memory.ENV_VAR, raising=False)
    memory.set_memory_limit(None)
    yield
    memory.set_memory_limit(None)


# --- sizes ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ENCODINGS)
def test_exactly_one_sizes_match_the_encoders(name):
    for n in range(1, 81):
        lits = np.arange(1, n + 1, dtype=np.int64)[None, :]
        blocks, top = ENCODINGS[name](lits, n)
        real = footprint.CnfSize(
            clauses=sum(b.shape[0] for b in blocks),
            literals=sum(b.size for b in blocks),
            binary=sum(b.shape[0] for b in blocks if b.shape[1] == 2),
            aux=top - n,
        )
        assert footprint.exactly_one_size(name, n) == real, (name, n)


def test_every_encoding_has_sizes():
    assert set(footprint.EXACTLY_ONE_SIZES) == set(ENCODINGS)
    # one registered at run time (test_compare's "broken") is sized as pairwise, not a KeyError
    assert footprint.exactly_one_size("registered-later", 7) == footprint.exactly_one_size("pairwise", 7)


@pytest.mark.parametrize("card", CARD_ENCODINGS)
def test_card_clauses_bound_pysat(card):
    enc = getattr(EncType, card)
    for n in (1, 2, 3, 7, 20, 64, 150):
        for lo, hi in {(1, 1), (0, 1), (1, INF), (2, 5), (n // 2, n // 2), (0, n - 1), (n - 1, n - 1), (3, INF)}:
            if lo > n or (hi != INF and hi < lo) or (lo == 0 and hi >= n):
                continue
            lits = list(range(1, n + 1))
            made = 0
            if lo == hi:
                made = len(CardEnc.equals(lits=lits, bound=lo, top_id=n, encoding=enc).clauses)
            else:
                if lo > 0:
                    made += len(CardEnc.atleast(lits=lits, bound=lo, top_id=n, encoding=enc).clauses)
                if hi < n:
                    made += len(CardEnc.atmost(lits=lits, bound=int(hi), top_id=n, encoding=enc).clauses)
            assert made <= footprint.card_clauses(card, n, lo, hi), (card, n, lo, hi, made)


# --- bounds against real placements and formulas ---------------------------------

POOL = [builtin_piece(n) for n in ("I1", "I2", "I3", "L3", "O4", "T4", "L4", "S4", "X5", "I5")] + [
    parse_drawing("D", "#.#"),  # disconnected
    parse_drawing("W", "#../##./.##"),
]


@st.composite
def instances(draw):
    rows, cols = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    blocked = draw(st.sets(cells, max_size=(rows * cols) // 2))
    if len(blocked) == rows * cols:
        blocked = set(list(blocked)[1:])
    grid = ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]
    wrap = draw(st.sampled_from(["none", "rows", "columns", "both"]))
    pieces = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=4, unique_by=lambda p: p.name))
    rules = []
    for p in pieces:
        orient = draw(st.sampled_from(["free", "one-sided", "fixed"]))
        lo, hi = draw(st.sampled_from([(0, INF), (1, 1), (0, 2), (1, 3), (2, INF), (0, 0)]))
        rules.append(PieceRule(p, orient, lo, hi))
    return Instance(Board.from_rows(grid, wrap), tuple(rules))


@settings(max_examples=150)
@given(instances())
def test_placement_bounds_hold(instance):
    placements = generate_placements(instance)
    count, cells, degree = footprint.placement_bounds(instance)
    assert len(placements) <= count
    assert placements.cells.size <= cells
    assert placements.coverage().max(initial=0) <= degree


@settings(max_examples=60)
@given(instances(), st.sampled_from(sorted(ENCODINGS)), st.sampled_from(CARD_ENCODINGS), st.booleans())
def test_formula_estimate_counts_every_clause(instance, encoding, card, allow_empty):
    placements = generate_placements(instance)
    estimate = footprint.estimate_formula(placements, encoding, card, allow_empty)
    formula = compile_formula(placements, encoding, card, allow_empty)
    assert estimate.placements == len(placements)
    assert formula.nclauses <= estimate.clauses
    assert formula.nvars <= len(placements) + instance.board.area * allow_empty + estimate.clauses


def test_early_estimate_on_an_open_board_is_exact_in_placements():
    inst = Instance(Board.rectangle(30, 40), parse_pieces("L4"))
    placements = generate_placements(inst)
    count, cells, degree = footprint.placement_bounds(inst)
    assert count == len(placements) and cells == placements.cells.size
    assert degree == placements.coverage().max() == 32  # 8 orientations x 4 cells


def test_3000x3000_L4_is_far_too_large_for_any_ordinary_machine():
    inst = Instance(Board.rectangle(3000, 3000), parse_pieces("L4"))
    est = footprint.estimate_run(inst)
    assert est.placements == 8 * 2998 * 2999  # exact on an open board
    assert est.bytes > 100 * memory.GiB  # refused wherever less than ~125 GiB is free
    memory.set_memory_limit(64 * memory.GiB)
    with pytest.raises(TilesatError, match=r"^instance too large: 9,000,000 open cells, up to 71,928,016 placements"):
        footprint.check_memory(inst)  # generate_placements calls it: see the command line test below


# --- the limit -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [("4G", 4 * 2**30), ("512M", 512 * 2**20), ("1.5g", 3 * 2**29), ("64MiB", 64 * 2**20), ("2GB", 2**31),
     ("100000", 100000), (" 3 k ", 3072), ("1T", 2**40), (".5K", 512)],
)
def test_parse_size(text, value):
    assert memory.parse_size(text) == value


@pytest.mark.parametrize("text", ["", "G", "4X", "-1G", "four", "1e9", "0", "0.1", "4 G B", "nan", "inf", "99999999T"])
def test_parse_size_refuses(text):
    with pytest.raises(TilesatError, match="bad size"):
        memory.parse_size(text)


@given(st.integers(1, 2**20), st.sampled_from(["", "K", "M", "G"]))
def test_parse_size_units(n, unit):
    assert memory.parse_size(f"{n}{unit}") == n * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[unit]


@given(st.integers(1, 2**50))
def test_format_size_is_close(n):
    text = memory.format_size(n)
    assert abs(memory.parse_size(text.replace(" ", "").replace("bytes", "")) - n) <= max(n * 0.051, 1)


SMALL = "pieces: L4\n....\n....\n"


def test_explicit_limit_refuses_a_small_board_in_one_line():
    inst = parse_instance(SMALL)
    memory.set_memory_limit(memory.parse_size("1M"))
    with pytest.raises(TilesatError) as e:
        generate_placements(inst)
    msg = str(e.value)
    assert msg.startswith("instance too large: 8 open cells") and "the limit is 1.0 MiB (--max-memory)" in msg
    assert "\n" not in msg
    memory.set_memory_limit(memory.parse_size("10G"))
    compile_formula(generate_placements(inst))


def test_formula_check_names_the_encoding_chosen():
    inst = Instance(Board.rectangle(20, 20), parse_pieces("L4"))
    placements = generate_placements(inst)
    pairwise = footprint.estimate_formula(placements, "pairwise", "seqcounter").bytes
    commander = footprint.estimate_formula(placements, "commander", "seqcounter").bytes
    assert commander < pairwise
    memory.set_memory_limit((pairwise + commander) // 2)
    compile_formula(placements, "commander")
    with pytest.raises(TilesatError, match=r"400 open cells, 2,736 placements and [\d,]+ clauses \(pairwise\)"):
        compile_formula(placements, "pairwise")


def test_card_constraints_count():
    """A piece count makes pysat.card build O(n k) clauses as Python lists
    (``L4:500..`` on a 200x200 board: 3e8, tens of GB): counted, and refused
    before they exist.  Small here, so that old code finishes (and fails)."""
    inst = Instance(Board.rectangle(40, 40), parse_pieces("L4:50.., I4"))
    placements = generate_placements(inst)
    n = int((placements.rule == 0).sum())
    est = footprint.estimate_formula(placements, "commander", "seqcounter")
    unbounded = Placements(inst.with_rules(parse_pieces("L4, I4")), placements.rule, placements.indptr, placements.cells)
    plain = footprint.estimate_formula(unbounded, "commander", "seqcounter")
    assert est.clauses - plain.clauses >= 2 * 50 * n
    memory.set_memory_limit(plain.bytes * 2)
    compile_formula(unbounded, "commander", "seqcounter")  # the same board without the count fits
    with pytest.raises(TilesatError, match="instance too large"):
        compile_formula(placements, "commander", "seqcounter")


def test_environment_variable(monkeypatch):
    inst = parse_instance(SMALL)
    monkeypatch.setenv(memory.ENV_VAR, "1M")
    with pytest.raises(TilesatError, match=r"the limit is 1\.0 MiB \(TILESAT_MAX_MEMORY\)"):
        generate_placements(inst)
    memory.set_memory_limit(10 * memory.GiB)  # the option wins over the variable
    generate_placements(inst)
    memory.set_memory_limit(None)
    monkeypatch.setenv(memory.ENV_VAR, "lots")
    with pytest.raises(TilesatError, match="TILESAT_MAX_MEMORY: bad size 'lots'"):
        generate_placements(inst)


def test_default_limit_is_a_share_of_available_memory(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: (100 * memory.MiB, "available memory"))
    limit, why = memory.memory_limit()
    assert limit == 80 * memory.MiB and why.startswith("80% of the available memory; set --max-memory")
    inst = Instance(Board.rectangle(200, 200), parse_pieces("L4"))  # ~0.8 GiB
    with pytest.raises(TilesatError, match=r"the limit is 80 MiB \(80% of the available memory; set --max-memory"):
        generate_placements(inst)


def test_small_boards_do_not_read_the_machine(monkeypatch):
    def boom():
        raise AssertionError("available_memory read for a small board")

    monkeypatch.setattr(memory, "available_memory", boom)
    compile_formula(generate_placements(parse_instance(SMALL)))


def test_available_memory_sees_meminfo_and_rlimits():
    avail, what = memory.available_memory()
    assert 0 < avail < 2**62 and what
    # in a child under ulimit -v, the address-space limit is what is left
    code = textwrap.dedent("""
        import resource
        from tilesat.running import memory
        resource.setrlimit(resource.RLIMIT_AS, (1500 * 2**20, resource.RLIM_INFINITY))
        print(*memory.available_memory(), sep="|")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    value, what = out.strip().split("|")
    assert int(value) < 1500 * 2**20 and what == "memory ulimit -v leaves"


def test_meminfo_fallback(monkeypatch):
    import builtins

    real_open = builtins.open

    def no_proc(path, *a, **k):
        if str(path).startswith("/proc/meminfo"):
            raise OSError("no /proc")
        return real_open(path, *a, **k)

    monkeypatch.setattr(builtins, "open", no_proc)
    assert memory._meminfo_available() == os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_limits_must_be_positive():
    with pytest.raises(TilesatError):
        memory.set_memory_limit(0)


# --- real runs ---------------------------------------------------------------------

MEASURE = textwrap.dedent("""
    import gc, json, sys
    from tilesat.model import footprint
    from tilesat.model.instance import parse_instance
    from tilesat.model.placements import generate_placements
    from tilesat.sat.formula import compile_formula, resolve_encoding
    from pysat.solvers import Solver
    rows, cols, pieces, encoding = sys.argv[1:]
    inst = parse_instance(f"pieces: {pieces}\\n" + ("." * int(cols) + "\\n") * int(rows))
    gc.collect()
    def peak():  # VmHWM, not ru_maxrss: that keeps the parent's figure (pytest's) across exec
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    base = peak()
    early = footprint.estimate_run(inst).bytes
    placements = generate_placements(inst)
    encoding = resolve_encoding(encoding, placements)
    estimate = footprint.estimate_formula(placements, encoding, "seqcounter").bytes
    formula = compile_formula(placements, encoding)
    with Solver(name="cadical195") as s:
        formula.add_to(s.add_clause)
        print(json.dumps({"used": peak() - base, "estimate": estimate, "early": early}))
""")


@pytest.mark.parametrize("rows,cols,pieces,encoding", [(96, 96, "L3", "auto"), (40, 40, "L4", "pairwise"),
                                                       (24, 24, "pentominoes", "auto")])
def test_estimate_bounds_the_real_peak(rows, cols, pieces, encoding):
    """Peak resident memory of placements, formula and a CaDiCaL copy (the
    interpreter's own excluded), against the estimate: above it, by less
    than 3x (calibration figures in tilesat/model/footprint.py)."""
    out = subprocess.run([sys.executable, "-c", MEASURE, str(rows), str(cols), pieces, encoding],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    got = json.loads(out)
    assert got["used"] <= got["estimate"] <= 3 * got["used"] + 16 * memory.MiB, got


WRAPPER = textwrap.dedent("""
    import resource, subprocess, sys
    # ulimit -v 3 GB for the run: a regression fails instead of eating the machine
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, resource.RLIM_INFINITY))
    proc = subprocess.run(sys.argv[2:], preexec_fn=limit)
    with open(sys.argv[1], "w") as f:
        f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))  # kB, of that one child
    sys.exit(proc.returncode)
""")


def test_huge_board_gets_one_line_quickly_and_small(tmp_path):
    """The issue's 3000x3000 L4 board (a 9 MB file) once grew to 24 GB until
    the kernel killed it: now one line and exit 2, in seconds, under 2 GB."""
    big = tmp_path / "big.txt"
    big.write_text("pieces: L4\n" + ("." * 3000 + "\n") * 3000)
    peak_file = tmp_path / "peak"
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", WRAPPER, str(peak_file), sys.executable, "-m", "tilesat",
                           "solve", str(big)], capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: instance too large: 9,000,000 open cells"), proc.stderr
    assert int(peak_file.read_text()) < 2 * 2**20  # kB
    assert elapsed < 60


# --- the command line ----------------------------------------------------------------


def _address_space_3gb():
    # a regression (reading /dev/zero for ever, building a huge formula) then
    # fails with a MemoryError instead of eating the machine
    resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, resource.RLIM_INFINITY))


def tilesat(*args, env=None):
    environ = {k: v for k, v in os.environ.items() if k != memory.ENV_VAR} | (env or {})
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=environ, preexec_fn=_address_space_3gb)


def one_error_line(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.fixture
def small(tmp_path):
    f = tmp_path / "small.txt"
    f.write_text(SMALL)
    return f


def test_cli_max_memory(small):
    line = one_error_line(tilesat("--max-memory", "1M", "solve", small))
    assert "instance too large: 8 open cells" in line and "the limit is 1.0 MiB (--max-memory)" in line
    assert tilesat("--max-memory", "10G", "solve", small).returncode == 0
    line = one_error_line(tilesat("solve", small, env={memory.ENV_VAR: "1M"}))
    assert "(TILESAT_MAX_MEMORY)" in line
    assert tilesat("--max-memory", "10G", "solve", small, env={memory.ENV_VAR: "1M"}).returncode == 0


@pytest.mark.parametrize("value", ["abc", "0", "-1G", "4X", ""])
def test_cli_malformed_max_memory_is_a_usage_error(small, value):
    line = one_error_line(tilesat("--max-memory", value, "solve", small))
    assert "--max-memory" in line and "bad size" in line


def test_cli_runner_does_not_keep_a_limit(small):
    """In one process (typer's runner), a command without --max-memory has no
    limit left over from the command before."""
    from typer.testing import CliRunner

    from tilesat.cli import app

    runner = CliRunner()
    assert runner.invoke(app, ["--max-memory", "1M", "solve", str(small)]).exit_code == 2
    assert runner.invoke(app, ["solve", str(small)]).exit_code == 0


def test_cli_endless_or_huge_input_is_one_line(tmp_path):
    t0 = time.monotonic()
    assert "/dev/zero: not a text file" in one_error_line(tilesat("solve", "/dev/zero"))
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(100 * 2**20)  # 100 MB (sparse: no disk used)
    assert one_error_line(tilesat("solve", big)).endswith("big.txt: larger than 64 MiB; instance files are text grids")
    assert time.monotonic() - t0 < 30

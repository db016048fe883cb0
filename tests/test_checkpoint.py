"""Units of a split count, checkpoints and resumes (issue 19).

- units planned at any depth partition the tilings: their weighted counts
  add up to the oracle's count, and up to symmetry to the oracle's classes
  (hypothesis, against :mod:`tilesat.certify.oracle`), with several placements
  forced at once in the native and dancing-links engines;
- a count resumed from a checkpoint (finished units kept, a record torn by a
  crash dropped) gives the exact total, serially and with --jobs; a
  count interrupted by SIGINT and resumed gives the exact total;
- a damaged checkpoint, or one made for another instance, method or
  --up-to-symmetry, is refused in one line (exit 2);
- list --out --checkpoint writes every tiling exactly once across resumes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import event, given, reject, settings
from hypothesis import strategies as st

from tilesat.engines import enumerator
from tilesat.running.checkpoint import Checkpoint, CheckpointError
from tilesat.questions.count import count_tilings, plan_units
from tilesat.engines.dlx import covers, dlx_problem
from tilesat.errors import TilesatError
from tilesat.model.instance import load_instance, parse_instance
from tilesat.certify.oracle import TooHard, board_maps, brute_force_tilings, orbit_count
from tilesat.model.placements import generate_placements
from tilesat.model.symmetry import symmetry_group

from test_burnside import symmetric_instances
from test_property import _args

ROOT = Path(__file__).resolve().parent.parent
P6x10 = ROOT / "instances" / "pentomino-6x10.txt"
P5x12 = ROOT / "instances" / "pentomino-5x12.txt"
P4x15 = ROOT / "instances" / "pentomino-4x15.txt"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def tilesat(*args, **kw):
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, text=True,
                          env=ENV, **kw)


def one_error_line(r, *words):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for w in words:
        assert w in lines[0], lines[0]


# --- units partition the tilings --------------------------------------------

def _unit_fixed(instance, placements, group, unit):
    """The tilings of the unit each of its symmetries fixes, in this process (native engine)."""
    syms = [group[i] for i in unit.syms] if group else [None]
    fixed = [0] * len(syms)
    for chosen in enumerator.tilings(instance, placements, forced=unit.forced or None):
        assert set(unit.forced) <= set(chosen.tolist())
        for j, g in enumerate(syms):
            fixed[j] += g is None or g.is_identity or g.fixes(chosen)
    return fixed


@settings(max_examples=80)
@given(symmetric_instances(max_side=5), st.integers(1, 40), st.booleans())
def test_units_at_any_depth_add_up_to_the_oracle(instance, target, up_to_symmetry):
    """Whatever the depth of the split (cube-and-conquer, repeated until
    ``target`` units), the units' weighted counts add up to the oracle's
    tilings; up to symmetry, per-unit Burnside gives the oracle's classes."""
    try:
        truth = brute_force_tilings(*_args(instance), node_limit=60_000)
    except TooHard:
        reject()
    if len(truth) > 1500:
        reject()
    placements = generate_placements(instance)
    group = symmetry_group(placements)
    units = plan_units(placements, group if up_to_symmetry else None, split=True, target=target,
                       orbits=None if up_to_symmetry else group)
    raw, classes = 0, Fraction(0)
    for unit in units:
        fixed = _unit_fixed(instance, placements, group if up_to_symmetry else None, unit)
        raw += unit.weight * fixed[0]
        classes += Fraction(sum(fixed), len(fixed))
    assert raw == len(truth)
    if up_to_symmetry:
        if all(len(u.syms) == len(group) for u in units):  # Burnside over the whole group
            classes = Fraction(sum(sum(_unit_fixed(instance, placements, group, u)) for u in units), len(group))
        assert classes == orbit_count(truth, board_maps(*_args(instance)))
    if max((len(u.forced) for u in units), default=0) > 1:
        event("units with several forced placements")
    if dlx_problem(instance) is None:  # dancing links with the same forced placements
        assert sum(u.weight * sum(1 for _ in covers(placements, u.forced or None)) for u in units
                   if not up_to_symmetry) == (0 if up_to_symmetry else len(truth))


def test_refine_reaches_its_target_and_plans_the_same_units_twice():
    inst = load_instance(P6x10)
    placements = generate_placements(inst)
    group = symmetry_group(placements)
    first = plan_units(placements, None, split=True, target=200, orbits=group)
    again = plan_units(placements, None, split=True, target=200, orbits=group)
    assert len(first) >= 200 and first == again
    assert sum(u.weight for u in first if len(u.forced) == 1) <= len(placements)


# --- counts resumed from a checkpoint ------------------------------------------

def _keep_records(path: Path, keep: int, torn: bool = False) -> None:
    """The checkpoint as if the run had died after ``keep`` units (and, with
    ``torn``, in the middle of writing the next record)."""
    lines = path.read_text().splitlines(keepends=True)
    text = "".join(lines[: 1 + keep])
    if torn and len(lines) > keep + 1:
        text += lines[keep + 1][: len(lines[keep + 1]) // 2]
    path.write_text(text)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_resumed_count_is_exact(tmp_path, jobs):
    inst = load_instance(P5x12)
    ckpt = tmp_path / "c.json"
    whole = count_tilings(inst, up_to_symmetry=True, checkpoint=ckpt, jobs=jobs)
    assert (whole.count, whole.up_to_symmetry, whole.exact) == (4040, 1010, True)
    assert len(ckpt.read_text().splitlines()) == 1 + whole.units
    _keep_records(ckpt, whole.units // 3, torn=True)
    again = count_tilings(inst, up_to_symmetry=True, checkpoint=ckpt, jobs=jobs)
    assert (again.count, again.up_to_symmetry, again.exact) == (4040, 1010, True)
    assert again.resumed == whole.units // 3 and again.units == whole.units
    assert len(ckpt.read_text().splitlines()) == 1 + whole.units  # the torn line went, each unit once
    done = count_tilings(inst, up_to_symmetry=True, checkpoint=ckpt, jobs=3 - jobs)  # other --jobs: same plan
    assert (done.count, done.up_to_symmetry, done.resumed) == (4040, 1010, whole.units)


@pytest.mark.slow
def test_sigint_then_resume_gives_the_exact_count(tmp_path):
    ckpt = tmp_path / "c.json"
    proc = subprocess.Popen([sys.executable, "-m", "tilesat", "count", str(P6x10), "--checkpoint", str(ckpt)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up and proc.poll() is None:
        if ckpt.exists() and len(ckpt.read_text().splitlines()) >= 3:  # two units done
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    t = time.monotonic()
    out, err = proc.communicate(timeout=30)
    if proc.returncode == 0:
        pytest.skip("the count finished before the interrupt (a very fast machine)")
    assert proc.returncode == 130 and time.monotonic() - t < 3, (proc.returncode, err)
    assert "at least" in out and "interrupted" in out
    lower = int(out.split("at least ")[1].split(" ")[0].replace(",", ""))
    assert 0 < lower < 9356
    r = tilesat("count", P6x10, "--checkpoint", ckpt, "--json")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert (result["count"], result["exact"]) == (9356, True) and result["resumed_units"] >= 2


# --- refused -----------------------------------------------------------------------

def test_foreign_and_damaged_checkpoints_are_refused(tmp_path):
    inst, other = load_instance(P4x15), load_instance(P5x12)
    ckpt = tmp_path / "c.json"
    assert count_tilings(inst, checkpoint=ckpt).count == 1472

    def refused(match, instance=inst, path=ckpt, **kw):
        with pytest.raises(CheckpointError, match=match):
            count_tilings(instance, checkpoint=path, **kw)

    refused("another instance", other)
    refused("another method", method="dlx")
    refused("--up-to-symmetry", up_to_symmetry=True)
    lines = ckpt.read_text().splitlines(keepends=True)
    flipped = lines[2].replace('"counts":[', '"counts":[1')  # a changed count: the CRC no longer matches
    assert flipped != lines[2]
    (tmp_path / "d.json").write_text("".join(lines[:2] + [flipped] + lines[3:]))
    refused("damaged at line 3", path=tmp_path / "d.json")
    (tmp_path / "e.json").write_text("hello\n")
    refused("not a tilesat checkpoint", path=tmp_path / "e.json")
    (tmp_path / "f.json").write_bytes(b"\xff\xfe\x00garbage")
    refused("damaged", path=tmp_path / "f.json")
    with pytest.raises(TilesatError, match="--limit"):
        count_tilings(inst, checkpoint=ckpt, limit=3)
    # the command line: one line, exit 2, before any work
    one_error_line(tilesat("count", P5x12, "--checkpoint", ckpt), "another instance")
    one_error_line(tilesat("list", P4x15, "--out", tmp_path / "t.jsonl", "--checkpoint", ckpt), "tilesat count")


def test_a_record_that_does_not_match_the_plan_is_refused(tmp_path):
    inst = parse_instance("pieces: L3\n" + "......\n" * 4)
    ckpt = tmp_path / "c.json"
    count_tilings(inst, checkpoint=ckpt)
    lines = ckpt.read_text().splitlines()
    book = Checkpoint(ckpt, "count", {}).open()
    record = dict(book.records[0], forced=[999])  # a unit the plan does not have
    from tilesat.running.checkpoint import _line

    ckpt.write_text("\n".join(lines[:1]) + "\n" + _line(record))
    with pytest.raises(CheckpointError, match="does not match the plan"):
        count_tilings(inst, checkpoint=ckpt)


# --- list --out --checkpoint ------------------------------------------------------

@pytest.mark.slow
def test_a_resumed_listing_writes_each_tiling_once(tmp_path):
    out, ckpt = tmp_path / "t.jsonl", tmp_path / "c.json"
    r = tilesat("list", P4x15, "--out", out, "--checkpoint", ckpt)
    assert r.returncode == 0, r.stderr
    every = out.read_text().splitlines()
    assert len(every) == len(set(every)) == 1472  # 368 classes x 4
    # as if it had died in the middle of a unit: some units recorded, and tilings
    # of the next one written but not recorded (a partial last line too)
    book = Checkpoint(ckpt, "list", {}).open()
    keep = len(book.records) // 2
    offset = book.records[keep - 1]["offset"]
    _keep_records(ckpt, keep)
    with open(out, "r+b") as f:
        f.truncate(offset + 150)
    r = tilesat("list", P4x15, "--out", out, "--checkpoint", ckpt)
    assert r.returncode == 0, r.stderr
    again = out.read_text().splitlines()
    assert sorted(again) == sorted(every) and len(again) == len(set(again))
    assert "before resuming" in r.stderr
    # a new listing over an existing file needs --force; a finished one is not written again
    one_error_line(tilesat("list", P4x15, "--out", out, "--checkpoint", tmp_path / "new.json"), "--force")
    r = tilesat("list", P4x15, "--out", out, "--checkpoint", ckpt)
    assert r.returncode == 0 and out.read_text().splitlines() == again
    one_error_line(tilesat("list", P4x15, "--checkpoint", ckpt), "--out")
    one_error_line(tilesat("list", P4x15, "--out", tmp_path / "other.jsonl", "--checkpoint", ckpt), "out")


@pytest.mark.parametrize("method", ["blocking", pytest.param("ganak", marks=pytest.mark.slow), "native", "dlx"])
def test_every_unit_counting_method_adds_up_over_deep_units(method):
    """Units with several forced placements (required literals for the SAT
    methods, placements put down first for the enumerators) partition the
    tilings whichever method counts them: the 12 pentominoes in 3x20 (2
    classes, 8 tilings), raw and up to symmetry, unit by unit against the
    native enumeration."""
    from tilesat.engines.base import Context
    from tilesat.engines.registry import get_engine
    from tilesat.questions.count import _classes
    from tilesat.sat.options import SatOptions

    inst = load_instance(ROOT / "instances" / "pentomino-3x20.txt")
    placements = generate_placements(inst)
    group = symmetry_group(placements)
    for up_to_symmetry in (False, True):
        g = group if up_to_symmetry else None
        units = plan_units(placements, g, split=True, target=12, orbits=None if up_to_symmetry else group)
        assert len(units) >= 12 and max(len(u.forced) for u in units) >= 2
        ctx = Context(inst, get_engine(method), SatOptions("pairwise", "cadical195", "seqcounter"), g, placements)
        if method in ("ganak", "blocking"):  # seconds per unit here: the deepest units with tilings only
            deep = sorted((u for u in units if _unit_fixed(inst, placements, g, u)[0]), key=lambda u: -len(u.forced))
            assert len(deep[0].forced) >= 2
            for u in deep[:2]:
                assert ctx.run(u) == _unit_fixed(inst, placements, g, u)
            continue
        fixed = [ctx.run(u) for u in units]
        assert fixed == [_unit_fixed(inst, placements, g, u) for u in units]
        assert sum(u.weight * f[0] for u, f in zip(units, fixed)) == 8
        if up_to_symmetry:
            assert _classes(units, fixed, len(group), False) == 2

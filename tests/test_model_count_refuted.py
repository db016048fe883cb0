"""A count never pays a model counter for a formula a short SAT call refutes
(issue 32): Burnside asks ganak for the tilings each symmetry fixes, and on
the 3x3x3 lozenge hexagon the half turn fixes none (ganak took 23-33 s to
count that zero; CaDiCaL refutes it in 20 conflicts)."""

from pathlib import Path

from tilesat import generate_placements, load_instance
from tilesat.engines.base import Context
from tilesat.engines.model_count import GANAK, refuted
from tilesat.model.symmetry import symmetry_group
from tilesat.questions.count import count_tilings
from tilesat.sat.options import SatOptions

LOZENGE = Path(__file__).resolve().parent.parent / "instances" / "lozenge-hexagon-3x3x3.txt"


def test_refuted_says_unsatisfiable_only_when_it_is():
    assert refuted([[1, 2], [-1], [-2]])
    assert not refuted([[1, 2], [-1]])
    assert not refuted([])


class Counted(Exception):
    pass


def test_a_symmetry_fixing_no_tiling_never_reaches_ganak(monkeypatch):
    import pyganak

    def counter(*args, **kwargs):
        raise Counted

    monkeypatch.setattr(pyganak, "Counter", counter)
    inst = load_instance(LOZENGE)
    placements = generate_placements(inst)
    group = symmetry_group(placements)
    ctx = Context(inst, GANAK, SatOptions(), group, placements)
    fixed = {g.name: None for g in group}
    for g in group:
        try:
            fixed[g.name] = GANAK._count(ctx, None, g)  # in this process: the patched counter is seen
        except Counted:
            fixed[g.name] = "ganak"
    assert fixed["identity"] == "ganak"  # 980 tilings: the counter's work
    zeros = [name for name, n in fixed.items() if n == 0]
    assert zeros and all(fixed[name] in (0, "ganak") for name in fixed)


def test_lozenge_classes_by_ganak_agree_with_dancing_links():
    inst = load_instance(LOZENGE)
    by_ganak = count_tilings(inst, "ganak", up_to_symmetry=True)
    by_dlx = count_tilings(inst, "dlx", up_to_symmetry=True)
    assert (by_ganak.count, by_ganak.up_to_symmetry) == (by_dlx.count, by_dlx.up_to_symmetry) == (980, 113)

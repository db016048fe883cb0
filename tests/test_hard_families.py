"""The many-family benchmark's boards (scripts/hard_families.py), made small: each
family's board has the verdict it claims (the brute-force oracle decides), a seed
makes the same board again, and the tuning and report seeds differ.
(Random blocked cells: no verdict is claimed; the benchmark compares the tools'.)"""

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_property import oracle

from tilesat.certify.colourings import colouring_certificate
from tilesat.model.placements import generate_placements

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from hard_families import FAMILIES, REPORT_SEEDS, TUNING_SEEDS, count_range  # noqa: E402

SMALL = 8  # the oracle decides 8x8 boards of every family in well under a second


def test_tuning_and_report_seeds_differ():
    assert TUNING_SEEDS and REPORT_SEEDS and not set(TUNING_SEEDS) & set(REPORT_SEEDS)
    assert len(REPORT_SEEDS) >= 10  # the issue asks for 10 or more boards per family
    assert {f.order for f in FAMILIES.values()} >= {"row", "random", "spiral", "bfs", "clusters", "blocked",
                                                    "blocked-balanced", "designed"}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_small_board_of_each_family_has_the_verdict_it_claims(name):
    family = replace(FAMILIES[name], size=SMALL)
    for seed in TUNING_SEEDS[:2]:
        instance, expected = family.board(seed)
        again, _ = family.board(seed)
        assert np.array_equal(instance.board.open, again.board.open) and instance.rules == again.rules
        if expected:  # packings and designed puzzles; random blocked cells leave it open
            truth = oracle(instance, cap=2)
            assert truth and (expected == "tileable" or len(truth) == 1), (name, seed)
        if family.order == "blocked-balanced":
            assert colouring_certificate(instance, generate_placements(instance)) is None
        if family.order != "designed":
            assert instance.board.area % np.gcd.reduce([r.piece.size for r in instance.rules]) == 0
    other, _ = family.board(TUNING_SEEDS[0] + 1000)
    assert not np.array_equal(other.board.open, family.board(TUNING_SEEDS[0])[0].board.open)


def test_count_ranges():
    assert count_range("+-2", 5) == (3, 7) and count_range("+-2", 1) == (0, 3)
    assert count_range("loose", 5) == (1, 12) and count_range("loose", 0) == (0, 2)

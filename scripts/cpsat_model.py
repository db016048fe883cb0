"""The CP-SAT model the benchmarks compare tilesat with: the exact-cover model
of the published L-Panel solver (a Boolean per placement, exactly one per
open cell, the piece-count rules).  Shared by bench_peers.py, bench_hard.py
and bench_certificates.py so that every table measures the same model."""

from __future__ import annotations


def exact_cover_model(instance, placements):
    """``(model, x)``: a CpModel and its Boolean per placement."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"p{i}") for i in range(len(placements))]
    indptr, ids = placements.by_cell()
    for cell in instance.board.open_cells.tolist():
        model.AddExactlyOne([x[i] for i in ids[indptr[cell]: indptr[cell + 1]].tolist()])
    for k, rule in enumerate(instance.rules):
        mine = [x[i] for i in placements.of_rule(k).tolist()]
        if rule.min == rule.max == 1:
            model.AddExactlyOne(mine)
        elif rule.bounded:
            model.Add(sum(mine) >= rule.min)
            if rule.max != float("inf"):
                model.Add(sum(mine) <= int(rule.max))
    return model, x

"""info and pieces: what an instance or the built-in pieces look like, no search."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer
from rich.table import Table

from ..certify.certificate import lp_gate
from ..certify.checks import area_check, placement_check, region_check
from ..certify.schedule import LpRace
from ..engines.registry import engines
from ..sat.encodings import ENCODINGS
from ..errors import TilesatError, did_you_mean
from ..sat.formula import DEFAULT_CARD, compile_formula, resolve_encoding
from ..model.grids import GRIDS, get_grid
from ..model.pieces import (all_builtin_names, builtin_names, builtin_piece, grid_builtin_names, grid_builtin_piece, grid_piece_set,
                      grid_sets)
from ..showing.render import pieces_sheet
from ..model.placements import generate_placements
from ..questions.solve import choose_search_method
from ..sat.symbreak import board_map_symmetries, lex_leader_clauses
from .root import app
from .common import CardOpt, FileArg, JsonOpt, PiecesOpt, WrapOpt, _load, _out, friendly


@app.command("info")
@friendly
def info_cmd(
    file: FileArg,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
):
    """Cells, pieces, placements, formula sizes per encoding, quick impossibility checks."""
    instance = _load(file, pieces, wrap)
    board = instance.board
    placements = generate_placements(instance)
    per_rule = [int((placements.rule == k).sum()) for k in range(len(instance.rules))]
    checks = {
        "area": area_check(instance),
        "regions": region_check(instance),
        "placements": placement_check(placements),
    }
    sizes = {}
    for name in ENCODINGS:
        try:
            f = compile_formula(placements, name, card)
        except TilesatError as e:  # this encoding would not fit in memory (tilesat.model.footprint); the others may
            sizes[name] = {"variables": None, "clauses": None, "literals": None, "refused": str(e)}
            continue
        sizes[name] = {"variables": f.nvars, "clauses": f.nclauses, "literals": f.nliterals}
    data = {
        "board": {"rows": board.rows, "cols": board.cols, "wrap": board.wrap, "open": board.area,
                  "blocked": board.ncells - board.area},
        "pieces": [
            {"piece": r.name, "size": r.piece.size, "orient": r.orient, "count": r.count_text(),
             "orientations": len(r.piece.orientations(r.orient)), "placements": n}
            for r, n in zip(instance.rules, per_rule)
        ],
        "placements": len(placements),
        "candidates_per_cell": round(placements.candidates_per_cell(), 2),
        "auto_encoding": resolve_encoding("auto", placements),
        "search_method": choose_search_method(instance)[0],
        "encodings": sizes,
        "card": card,
        "checks": checks,
        "certificate_check": dict(zip(("runs", "why"), lp_gate(placements))),
        "count_certificate_check": _count_check(instance, placements),
        "symmetry_breaking": _breaking(placements),
    }
    if as_json:
        print(json.dumps(data))
        return
    out = _out()
    out.print(
        f"board: {board.rows} x {board.cols}, wrap {board.wrap}, {board.area} open cells, "
        f"{data['board']['blocked']} blocked", markup=False,
    )
    t = Table("piece", "size", "orientations", "count", "placements", title="pieces", title_justify="left")
    for p in data["pieces"]:
        t.add_row(p["piece"], str(p["size"]), f"{p['orientations']} ({p['orient']})", p["count"], str(p["placements"]))
    out.print(t)
    out.print(f"placements: {len(placements)}, {data['candidates_per_cell']} per open cell on average: "
              f"--encoding auto picks {data['auto_encoding']}; check-unique's --method auto picks {data['search_method']}",
              markup=False)
    t = Table("encoding", "variables", "clauses", "literals", title=f"formula (counts with {card})", title_justify="left")
    for name, s in sizes.items():
        if s["variables"] is None:
            t.add_row(name, "too large", "for the", "memory limit")
        else:
            t.add_row(name, str(s["variables"]), str(s["clauses"]), str(s["literals"]))
    out.print(t)
    for name, reason in checks.items():
        out.print(f"check {name}: {'ok' if reason is None else 'IMPOSSIBLE: ' + reason}", markup=False)
    gate = data["certificate_check"]
    out.print(f"certificate check (LP) before a search: {'runs' if gate['runs'] else 'skipped'} ({gate['why']})",
              markup=False)
    gate = data["count_certificate_check"]
    out.print(f"certificate check (LP) beside count and list: {'runs' if gate['runs'] else 'skipped'} ({gate['why']})",
              markup=False)
    sb = data["symmetry_breaking"]
    if sb is None:
        out.print(f"--break-symmetry: not shown (more than {INFO_BREAKING_UP_TO:,} placements)", markup=False)
    elif not sb["symmetries"]:
        out.print("--break-symmetry: nothing to break (the group is the identity alone)", markup=False)
    else:
        out.print(f"--break-symmetry: lex-leader clauses for {', '.join(sb['symmetries'])} "
                  f"({sb['clauses']:,} clauses)", markup=False)


#: info finds the symmetries to break (vectorised, a few maps) up to this many placements.
INFO_BREAKING_UP_TO = 1_000_000


def _breaking(placements) -> dict | None:
    """What --break-symmetry would break: the group's order, the symmetries, the clauses."""
    if len(placements) > INFO_BREAKING_UP_TO:
        return None
    chosen = board_map_symmetries(placements)
    clauses, _ = lex_leader_clauses([g.placements for g in chosen], len(placements))
    return {"symmetries": [g.name for g in chosen], "clauses": len(clauses)}


def _count_check(instance, placements) -> dict:
    """Whether count's and list's certificate check runs (by default) and why."""
    race = LpRace(instance, placements, True, "count")
    why = race.report["why"]
    if race.runs:
        why += f"; not with count --method {' or '.join(e.name for e in engines('count').values() if e.lp_beside())}, which answer 0 as fast"
    return {"runs": race.runs, "why": why}


@app.command("pieces")
@friendly
def pieces_cmd(
    name: Annotated[Optional[str], typer.Argument(help="A set (pentominoes, hexiamonds, soma, ...) or a piece name; all when omitted.")] = None,
    grid: Annotated[str, typer.Option("--grid", help=f"The grid: {', '.join(GRIDS)}.")] = "square",
    shapes: Annotated[bool, typer.Option("--shapes", help="One line per piece: name, size and its 'shape:' text, instead of pictures.")] = False,
):
    """Draw built-in pieces as pictures (the 'fixed' orientation, as drawn)."""
    lattice = get_grid(grid).name
    sets = grid_sets(lattice)
    if name is None:
        items = ([builtin_piece(n) for n in builtin_names()] if lattice == "square"
                 else [grid_builtin_piece(n, lattice) for n in grid_builtin_names(lattice)])
    elif name.lower() in sets:
        items = list(grid_piece_set(lattice, name.lower()))
    else:
        try:
            items = [grid_builtin_piece(name, lattice)]
        except KeyError:
            raise TilesatError(f"unknown piece or set {name!r} on the {lattice} grid{did_you_mean(name, all_builtin_names(lattice))}; sets are {', '.join(sets)}") from None
    out = _out()
    if shapes:
        for p in items:
            out.print(f"{p.name:8} {p.size}  {p.drawing()}", markup=False)
        return
    out.print(pieces_sheet(items, out.width, colour=out.is_terminal))

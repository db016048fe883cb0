"""Showing an explanation: text, one JSON document, SVG and PNG.

Text marks one character per cell (the instance file's layout on the grids
other than the square): ``#`` black, ``.`` settled (the same tile in every
tiling), a letter for each ambiguous region; the repaired board marks its
clue tiles ``*`` (cells to block ``x``, to open ``o``); a board with no
tiling marks its failing cells ``X``.

Pictures put panels side by side: the settled tiles in grey with each region
in its own colour and letter, then the board after the first repair (its
one tiling, clue tiles dotted); for a board with no tiling, the failing
cells in red, and the certificate's weights beside them when there is one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import drawsvg as draw
import numpy as np
from rich.text import Text

from ..errors import TilesatError
from ..model.instance import Instance
from ..showing.pictures import BLOCKED, PALETTE, _border_masks, _rgb, tiling_raster, tiling_svg, weights_raster, weights_svg
from ..showing.render import colour_tiles, rich_tiling, side_by_side, weight_rows
from ..model.tiling import Tile, Tiling
from .analysis import Explanation, Suggestion

SETTLED = "#dcdcdc"
FAILING = "#d62728"


# -- text ----------------------------------------------------------------------------------

def cell_rows(instance: Instance, labels: dict) -> list[str]:
    """The board as text rows: ``#`` black, each labelled cell its label, other open cells ``.``."""
    board = instance.board
    if not board.is_square:
        return board.lattice.format_layout(board.open, labels)
    return ["".join("#" if not board.open[r, c] else labels.get((r, c), ".") for c in range(board.cols))
            for r in range(board.rows)]


def region_labels(e: Explanation) -> dict:
    labels = {}
    for region in e.regions:
        mark = region.label if len(region.label) == 1 else "?"
        for cell in e.cells(region.cells):
            labels[cell] = mark
    return labels


def repair_labels(s: Suggestion) -> dict:
    mark = {"clues": "*", "block": "x", "open": "o"}[s.kind]
    cells = [c for t in s.tiles for c in t.cells] if s.kind == "clues" else s.cells
    return {c: mark for c in cells}


def headline(e: Explanation) -> str:
    area = e.instance.board.area
    if e.verdict == "none":
        why = e.reason or "the solver proved it"
        return f"none: no tiling exists ({why})"
    settled = settled_cells(e)
    if e.verdict == "unknown" and not e.tilings:
        return f"unknown: {_stopped(e)} before a tiling was found or ruled out"
    if e.verdict == "unique":
        return f"unique: every one of the {area:,} open cells is settled (one tiling)"
    if not e.backbone_complete:
        verdict = ("multiple, partial" if e.verdict == "multiple"
                   else "unknown: one tiling found, whether there is another is not known; partial")
        return (f"{verdict}: {_stopped(e)} while finding the settled cells; {settled:,} of {area:,} open cells "
                f"proven settled so far, {len(e.undecided):,} tile{'s' if len(e.undecided) != 1 else ''} of the "
                "first tiling undecided (the letters: cells not proven settled)")
    n = len(e.regions)
    return (f"multiple: {n} ambiguous region{'s' if n != 1 else ''}; {settled:,} of {area:,} open cells are settled "
            "(covered alike by every tiling)")


def settled_cells(e: Explanation) -> int:
    """Open cells covered by a tile proven to be in every tiling."""
    return sum(len(t.cells) for t in e.settled)


def _stopped(e: Explanation) -> str:
    if e.stopped == "interrupted":
        return "interrupted"
    limit = e.stats.get("timeout")
    return f"the time limit of {limit:g} s passed" if limit else "the time limit passed"


def region_lines(e: Explanation) -> list[str]:
    if not e.regions or not e.backbone_complete:
        return []
    lines = []
    if e.independent:
        lines.append("regions (independent: each is filled on its own, the board's tilings are their products):")
    else:
        lines.append(f"regions (not independent: the counts of {', '.join(e.linking)} link them; counted together):")
    for r in e.regions:
        ways = "" if r.ways is None else f", {r.ways:,}{'' if r.exact else '+'} way{'s' if r.ways != 1 else ''}"
        lines.append(f"  {r.label}: {r.cells.size} cells{ways}")
    if e.count is not None:
        if e.independent and len(e.regions) > 1 and all(r.ways is not None for r in e.regions):
            product = " x ".join(f"{r.ways:,}" for r in e.regions[:8]) + (" x ..." if len(e.regions) > 8 else "")
            lines.append(f"tilings of the board: {product} = {e.count:,}{'' if e.count_exact else ' (at least)'}")
        else:
            lines.append(f"tilings of the board: {e.count:,}{'' if e.count_exact else ' (at least)'}")
    return lines


def describe(s: Suggestion) -> str:
    label = "minimum" if s.minimum else ("best found" + (f"; at least {s.lower_bound}" if s.lower_bound else ""))
    if s.kind == "clues":
        what = "; ".join(f"{t.piece} on {_cells(t.cells)}" for t in s.tiles)
        return f"give {s.size} clue tile{'s' if s.size != 1 else ''} ({label}): {what}"
    verb = "block" if s.kind == "block" else "open"
    return f"{verb} {s.size} cell{'s' if s.size != 1 else ''}{'' if s.kind == 'open' else f' ({label})'}: {_cells(s.cells)}"


def _cells(cells) -> str:
    return " ".join("(" + ",".join(map(str, c)) + ")" for c in cells)


def report_lines(e: Explanation) -> list[str]:
    """The whole explanation as plain text lines."""
    inst = e.instance
    lines = [headline(e)]
    if e.verdict == "none":
        f = e.failing
        if f is not None and f.cells.size:
            how = ("minimal: without any one of them the others can all be covered" if f.minimal
                   else "near-minimal: the time ran out while shrinking it")
            counts = " with the piece counts" if f.counts else ""
            lines.append(f"where it fails: these {f.cells.size} cells cannot all be covered at once{counts} ({how})")
            blocks = [cell_rows(inst, {c: "X" for c in e.cells(f.cells)})]
            titles = ["failing cells (X)"]
            if e.certificate is not None and inst.board.cols <= 40:
                blocks.append(weight_rows(inst, e.certificate.weights))
                titles.append("certificate: cell weights")
            lines.append(side_by_side(blocks, titles))
        elif f is not None and f.counts:
            lines.append("where it fails: the piece counts alone cannot be met")
        elif f is None and e.stats.get("failing_region"):
            lines.append(f"where it fails: {e.stats['failing_region']} (the reason above says why)")
    elif e.verdict == "unique":
        from ..showing.render import plain_rows

        lines += plain_rows(inst, e.tilings[0])
        lines += opening_lines(e)
    elif e.regions or (e.tilings and not e.backbone_complete):
        lines += cell_rows(inst, region_labels(e))
        lines += region_lines(e)
        lines += repair_lines(e)
    if e.stopped and e.verdict != "unknown":
        lines.append(f"stopped: {_stopped(e)}; what is shown is what was found before")
    return lines


def repair_lines(e: Explanation) -> list[str]:
    if not e.backbone_complete:
        return []
    if not e.repairs:
        return [] if e.stopped is None else ["repairs: none found before the stop"]
    lines = ["repairs (each checked by check-unique: the edited board has exactly one tiling):"]
    clue_cells = {tuple(sorted(c for t in s.tiles for c in t.cells)): s for s in e.repairs if s.kind == "clues"}
    shown = [s for s in e.repairs if not (s.kind == "block" and tuple(s.cells) in clue_cells)]
    first_clues = next((s for s in shown if s.kind == "clues"), None)
    for i, s in enumerate(shown, 1):
        line = f"  {i}. {describe(s)}"
        if s.kind == "clues" and first_clues is not None and s is not first_clues and s.size == first_clues.size:
            new, old = sorted(set(s.tiles) - set(first_clues.tiles)), sorted(set(first_clues.tiles) - set(s.tiles))
            line = (f"  {i}. as {shown.index(first_clues) + 1}, with "
                    + "; ".join(f"{t.piece} on {_cells(t.cells)}" for t in new) + " instead of "
                    + "; ".join(f"{t.piece} on {_cells(t.cells)}" for t in old))
        black = [b for b in e.repairs if b.kind == "block" and s.kind == "clues"
                 and tuple(b.cells) == tuple(sorted(c for t in s.tiles for c in t.cells))]
        if black:  # the same tiles blacked out: a board of its own, checked too
            n = black[0].size
            line += (f"; or black out {'its' if s.size == 1 else 'their'} {n} cell{'s' if n != 1 else ''} "
                     f"({'minimum' if black[0].minimum else 'best found'})")
        lines.append(line)
    first = e.repairs[0]
    lines.append(side_by_side([cell_rows(e.instance, region_labels(e)), cell_rows(e.instance, repair_labels(first))],
                              ["before (regions)", f"after repair 1 ({'*' if first.kind == 'clues' else 'x'})"]))
    return lines


def opening_lines(e: Explanation) -> list[str]:
    lines = []
    if e.openings:
        lines.append("black cells that could be opened, the board staying unique (each checked by check-unique):")
        for i, s in enumerate(e.openings, 1):
            lines.append(f"  {i}. {describe(s)}")
    if e.openings_note:
        lines.append(f"({e.openings_note}{'' if e.openings else '; none keeps the board unique'})")
    return lines


def rich_report(e: Explanation):
    """The report for a terminal: the boards in colour, the rest as text."""
    inst = e.instance
    if e.verdict == "unique" and inst.board.is_square:
        out = [Text(headline(e)), rich_tiling(inst, e.tilings[0])]
        out += [Text(line) for line in opening_lines(e)]
        return out
    if e.verdict in ("multiple", "unknown") and e.regions and inst.board.is_square:
        out = [Text(headline(e)), rich_regions(e)]
        out += [Text(line) for line in region_lines(e) + repair_lines(e)]
        if e.stopped:
            out.append(Text(f"stopped: {_stopped(e)}; what is shown is what was found before"))
        return out
    return [Text("\n".join(report_lines(e)))]


def rich_regions(e: Explanation) -> Text:
    """Settled tiles in their colours (dimmed), region cells as their letters on white."""
    inst = e.instance
    board = inst.board
    settled = Tiling(tuple(e.settled))
    owner = settled.owner()
    from ..showing.render import PALETTE as COLOURS

    colours = colour_tiles(inst, settled, len(COLOURS))
    labels = region_labels(e)
    text = Text()
    for r in range(board.rows):
        for c in range(board.cols):
            if not board.open[r, c]:
                text.append("  ", style="on grey15")
            elif (r, c) in labels:
                text.append(labels[(r, c)] + " ", style="bold black on white")
            else:
                text.append("  ", style=f"on {COLOURS[colours[owner[(r, c)]]]}" if (r, c) in owner else "")
        if r < board.rows - 1:
            text.append("\n")
    return text


# -- JSON ----------------------------------------------------------------------------------

def to_json(e: Explanation) -> str:
    tiles = lambda ts: [{"piece": t.piece, "cells": [list(c) for c in t.cells]} for t in ts]  # noqa: E731
    f = e.failing
    data = {
        "verdict": e.verdict,
        "stopped": e.stopped,
        "tilings": [t.to_json() for t in e.tilings],
        "open_cells": e.instance.board.area,
        "backbone": {"complete": e.backbone_complete, "tiles": tiles(e.settled), "undecided": tiles(e.undecided)},
        "settled_cells": settled_cells(e) if e.tilings else None,
        "regions": [{"label": r.label, "cells": [list(c) for c in e.cells(r.cells)], "ways": r.ways,
                     "exact": r.exact, "how": r.how or None} for r in e.regions],
        "independent": e.independent if e.regions else None,
        "linking": e.linking,
        "count": None if e.count is None else {"tilings": e.count, "exact": e.count_exact},
        "repairs": [s.to_json() for s in e.repairs],
        "repairs_complete": e.repairs_complete,
        "openings": [s.to_json() for s in e.openings],
        "openings_note": e.openings_note,
        "failing_region": None if f is None else {"cells": [list(c) for c in e.cells(f.cells)], "counts": f.counts,
                                                  "minimal": f.minimal, "stopped": f.stopped},
        "reason": e.reason,
        "certificate": e.certificate.to_json() if e.certificate is not None else None,
        "stats": e.stats,
    }
    return json.dumps(data)


# -- pictures ------------------------------------------------------------------------------

@dataclass
class Panel:
    """A square board drawn as: ``owner`` (rows, cols) ints, a grey tile i >= 0, coloured
    group k as -(k + 2), nothing -1; each group's colour and the letter written in its
    cells ("" none); ``marked`` cells get a dot."""

    instance: Instance
    owner: np.ndarray
    colours: list[str]
    letters: list[str]
    marked: set = field(default_factory=set)


def regions_panel(e: Explanation) -> Panel:
    """The settled tiles in grey, each region in its colour with its letter."""
    board = e.instance.board
    owner = np.full(board.ncells, -1, dtype=np.int64)
    for i, t in enumerate(e.settled):
        owner[[board.index(c) for c in t.cells]] = i
    for k, r in enumerate(e.regions):
        owner[r.cells] = -(k + 2)
    return Panel(e.instance, owner.reshape(board.open.shape), [PALETTE[k % len(PALETTE)] for k in range(len(e.regions))],
                 [r.label if len(r.label) == 1 else "" for r in e.regions])


def repaired_panel(e: Explanation, s: Suggestion) -> Panel:
    """The board after a repair: the settled tiles in grey, the tiles that were ambiguous
    in colour, the clue tiles dotted."""
    inst = s.drawn_on(e.instance)
    board = inst.board
    settled = set(e.settled)
    owner = np.full(board.ncells, -1, dtype=np.int64)
    fresh = [t for t in s.tiling.tiles if t not in settled]
    for i, t in enumerate(s.tiling.tiles):
        owner[[board.index(c) for c in t.cells]] = i
    for k, t in enumerate(fresh):
        owner[[board.index(c) for c in t.cells]] = -(k + 2)
    owner = owner.reshape(board.open.shape)
    colours = colour_tiles(inst, Tiling(tuple(fresh)), len(PALETTE))
    return Panel(inst, owner, [PALETTE[c] for c in colours], [""] * len(fresh), set(repair_labels(s)))


def panel_svg(panel: Panel, cell: float = 24) -> draw.Drawing:
    board = panel.instance.board
    owner = panel.owner
    R, C = board.rows, board.cols
    d = draw.Drawing(C * cell + 8, R * cell + 8)
    g = draw.Group(transform="translate(4,4)", **{"class": "explain"})

    def squares(cells, **kw):
        p = draw.Path(**kw)
        for r, c in cells:
            p.M(c * cell, r * cell).h(cell).v(cell).h(-cell).Z()
        return p

    g.append(squares(list(zip(*np.nonzero(owner >= 0))), fill=SETTLED, stroke="none", **{"class": "settled"}))
    for k, colour in enumerate(panel.colours):
        cells = list(zip(*np.nonzero(owner == -(k + 2))))
        g.append(squares(cells, fill=colour, stroke="none", **{"class": "group", "data-label": panel.letters[k]}))
    g.append(squares(list(zip(*np.nonzero(~board.open))), fill=BLOCKED, stroke="none", **{"class": "blocked"}))
    grid = draw.Path(stroke="#00000040", stroke_width=max(cell / 24, 0.3), fill="none", **{"class": "grid"})
    for r in range(1, R):
        grid.M(0, r * cell).h(C * cell)
    for c in range(1, C):
        grid.M(c * cell, 0).v(R * cell)
    g.append(grid)
    right, down = _border_masks(panel.instance, np.where(board.open, owner, -1))
    borders = draw.Path(stroke="#000", stroke_width=max(cell / 8, 1), stroke_linecap="square", fill="none",
                        **{"class": "borders"})
    for r, c in zip(*np.nonzero(right)):
        borders.M((c + 1) * cell, r * cell).v(cell)
    for r, c in zip(*np.nonzero(down)):
        borders.M(c * cell, (r + 1) * cell).h(cell)
    for r in np.flatnonzero(board.open[:, 0]):
        borders.M(0, r * cell).v(cell)
    for c in np.flatnonzero(board.open[0, :]):
        borders.M(c * cell, 0).h(cell)
    g.append(borders)
    if cell >= 10:
        for k, letter in enumerate(panel.letters):
            for rr, cc in zip(*np.nonzero(owner == -(k + 2))) if letter else ():
                g.append(draw.Text(letter, cell * 0.5, (cc + 0.5) * cell, (rr + 0.5) * cell, text_anchor="middle",
                                   dominant_baseline="central", font_family="sans-serif", **{"class": "label"}))
    if panel.marked:
        dots = draw.Path(fill="#000", **{"class": "marked"})
        rad = cell / 6
        for r, c in sorted(panel.marked):
            x, y = (c + 0.5) * cell, (r + 0.5) * cell
            dots.M(x - rad, y).a(rad, rad, 0, 1, 0, 2 * rad, 0).a(rad, rad, 0, 1, 0, -2 * rad, 0).Z()
        g.append(dots)
    d.append(g)
    return d


def failing_svg(e: Explanation, cell: float = 24) -> draw.Drawing:
    inst = e.instance
    board = inst.board
    R, C = board.rows, board.cols
    d = draw.Drawing(C * cell + 8, R * cell + 8)
    g = draw.Group(transform="translate(4,4)", **{"class": "failing"})
    cells = set(e.cells(e.failing.cells)) if e.failing is not None else set()
    for r in range(R):
        for c in range(C):
            fill = BLOCKED if not board.open[r, c] else (FAILING if (r, c) in cells else "#fff")
            g.append(draw.Rectangle(c * cell, r * cell, cell, cell, fill=fill, stroke="#00000040",
                                    stroke_width=max(cell / 24, 0.3), **({"class": "fails"} if (r, c) in cells else {})))
    d.append(g)
    return d


def _side_by_side_svg(panels: list[draw.Drawing], titles: list[str], cell: float) -> draw.Drawing:
    gap, head = 2 * cell, cell
    # a panel is as wide as its title at least (about 0.55 em a character)
    widths = [max(p.width, len(t) * cell * 0.6 * 0.55 + 8) for p, t in zip(panels, titles)]
    height = max(p.height for p in panels) + head
    d = draw.Drawing(sum(widths) + gap * (len(panels) - 1), height)
    x = 0.0
    for panel, title, width in zip(panels, titles, widths):
        d.append(draw.Text(title, cell * 0.6, x + 4, head * 0.7, font_family="sans-serif", **{"class": "title"}))
        g = draw.Group(transform=f"translate({x:g},{head:g})")
        g.extend(panel.elements)
        d.append(g)
        x += width + gap
    return d


def explanation_svg(e: Explanation, cell: float = 24) -> draw.Drawing:
    inst = e.instance
    if not inst.board.is_square:
        return _grid_svg(e, cell)
    if e.verdict == "none":
        panels, titles = [failing_svg(e, cell)], ["cells that cannot all be covered"]
        if e.certificate is not None:
            panels.append(weights_svg(inst, e.certificate.weights, cell))
            titles.append("certificate: cell weights")
        return _side_by_side_svg(panels, titles, cell)
    if e.verdict == "unique":
        marked = {c for s in e.openings for c in s.cells}
        return tiling_svg(inst, e.tilings[:1], marked or None, cell)
    panels, titles = [panel_svg(regions_panel(e), cell)], ["settled (grey) and ambiguous regions"]
    if e.repairs and e.repairs[0].tiling is not None:
        first = e.repairs[0]
        panels.append(panel_svg(repaired_panel(e, first), cell))
        titles.append(f"after repair 1 ({first.kind}, dotted): one tiling")
    return _side_by_side_svg(panels, titles, cell)


def _grid_svg(e: Explanation, cell: float) -> draw.Drawing:
    """Other grids: the settled tiles and each region as one shape, region cells dotted."""
    inst = e.instance
    if e.verdict == "none":
        cells = set(e.cells(e.failing.cells)) if e.failing is not None else set()
        return tiling_svg(inst, [Tiling(())], cells, cell)
    if e.verdict == "unique":
        return tiling_svg(inst, e.tilings[:1], None, cell)
    shapes = list(e.settled) + [Tile(f"region {r.label}", tuple(e.cells(r.cells))) for r in e.regions]
    return tiling_svg(inst, [Tiling(tuple(shapes))], {c for r in e.regions for c in e.cells(r.cells)}, cell)


def panel_raster(panel: Panel, cell: int) -> np.ndarray:
    board = panel.instance.board
    owner = panel.owner
    colours = np.array([_rgb(SETTLED), _rgb(BLOCKED), (255, 255, 255)] + [_rgb(c) for c in panel.colours],
                       dtype=np.uint8)
    pick = np.where(owner >= 0, 0, np.where(owner <= -2, 1 - owner, 2))
    pick = np.where(board.open, pick, 1)
    img = np.repeat(np.repeat(colours[pick], cell, axis=0), cell, axis=1)
    _ink_borders(panel.instance, img, np.where(board.open, owner, -1), cell)
    if panel.marked and cell >= 4:
        q = max(cell // 4, 1)
        for r, c in panel.marked:
            y, x = r * cell + cell // 2, c * cell + cell // 2
            img[y - q // 2 : y - q // 2 + q, x - q // 2 : x - q // 2 + q] = 0
    return img


def _ink_borders(instance, img: np.ndarray, owner: np.ndarray, cell: int) -> None:
    line = max(cell // 8, 1)
    if cell >= 6:
        img[cell - 1 :: cell, :, :] = (img[cell - 1 :: cell, :, :] * 0.8).astype(np.uint8)
        img[:, cell - 1 :: cell, :] = (img[:, cell - 1 :: cell, :] * 0.8).astype(np.uint8)
    right, down = _border_masks(instance, owner)
    R, C = owner.shape
    xmod = np.arange(C * cell) % cell
    ymod = np.arange(R * cell) % cell

    def pix(mask):
        return np.repeat(np.repeat(mask, cell, axis=0), cell, axis=1)

    ink = (pix(right) & (xmod >= cell - line)[None, :]) | (pix(down) & (ymod >= cell - line)[:, None])
    img[ink] = 0


def failing_raster(e: Explanation, cell: int) -> np.ndarray:
    board = e.instance.board
    img = np.full((board.rows, board.cols, 3), 255, dtype=np.uint8)
    img[~board.open] = _rgb(BLOCKED)
    if e.failing is not None:
        for r, c in e.cells(e.failing.cells):
            img[r, c] = _rgb(FAILING)
    img = np.repeat(np.repeat(img, cell, axis=0), cell, axis=1)
    if cell >= 6:
        img[cell - 1 :: cell, :, :] = (img[cell - 1 :: cell, :, :] * 0.8).astype(np.uint8)
        img[:, cell - 1 :: cell, :] = (img[:, cell - 1 :: cell, :] * 0.8).astype(np.uint8)
    return img


def explanation_raster(e: Explanation) -> np.ndarray:
    inst = e.instance
    board = inst.board
    if not board.is_square:
        raise TilesatError(f"explain draws a {board.grid} board as SVG only; use --svg")
    cell = int(np.clip(1200 // max(board.rows, board.cols), 2, 24))
    if e.verdict == "none":
        panels = [failing_raster(e, cell)]
        if e.certificate is not None:
            panels.append(weights_raster(inst, e.certificate.weights, cell))
    elif e.verdict == "unique":
        marked = {c for s in e.openings for c in s.cells}
        panels = [tiling_raster(inst, e.tilings[:1], marked or None, cell)]
    else:
        panels = [panel_raster(regions_panel(e), cell)]
        if e.repairs and e.repairs[0].tiling is not None:
            panels.append(panel_raster(repaired_panel(e, e.repairs[0]), cell))
    gap = 2 * cell
    h = max(p.shape[0] for p in panels)
    canvas = np.full((h, sum(p.shape[1] for p in panels) + gap * (len(panels) - 1), 3), 255, dtype=np.uint8)
    x = 0
    for p in panels:
        canvas[: p.shape[0], x : x + p.shape[1]] = p
        x += p.shape[1] + gap
    return canvas


def save_explanation_pictures(e: Explanation, paths) -> None:
    for path in paths:
        if path is None:
            continue
        name = str(path)
        try:
            if name.lower().endswith(".svg"):
                explanation_svg(e).save_svg(name)
                continue
            import matplotlib.image

            matplotlib.image.imsave(name, explanation_raster(e))
        except OSError as err:
            raise TilesatError(f"cannot write {path}: {err.strerror or err}") from None

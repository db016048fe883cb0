"""export: the instance's CNF in DIMACS, written, and the line that says what was written."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import TilesatError
from ..model.instance import Instance
from ..model.placements import generate_placements
from ..model.tiling import Tiling
from ..sat.dimacs import blocking_clause, open_text, placement_map, write_dimacs
from ..sat.encodings import DEFAULT_ENCODING
from ..sat.formula import DEFAULT_CARD, compile_formula


@dataclass(frozen=True)
class ExportRequest:
    """Where the CNF goes (.cnf, .cnf.gz, .cnf.xz), how it is encoded, a tiling to forbid (``block``:
    "is there another?"), the variable map as JSON apart (``map_file``; else 'c placement' lines),
    and the instance's name for the file's header."""

    output: Path
    encoding: str = DEFAULT_ENCODING
    card: str = DEFAULT_CARD
    block: Tiling | None = None
    map_file: Path | None = None
    source: str = ""


def export_formula(instance: Instance, request: ExportRequest) -> str:
    """Write the CNF (and the map); returns the line that says what was written."""
    placements = generate_placements(instance)
    formula = compile_formula(placements, request.encoding, request.card)
    extra = [] if request.block is None else [blocking_clause(placements, request.block)]
    output, map_file = request.output, request.map_file
    try:
        with open_text(output, "w") as f:
            n = write_dimacs(formula, f, source=request.source, extra_clauses=extra, placement_comments=map_file is None)
        if map_file is not None:
            Path(map_file).write_text(json.dumps(placement_map(placements)) + "\n")
    except OSError as e:
        raise TilesatError(f"cannot write {e.filename or output}: {e.strerror or e}") from None
    how = (" (encoding native expanded to CNF: at-most-one pairwise, piece counts " + request.card + ")"
           if formula.native else "")
    return f"wrote {output}: {formula.cnf().nvars} variables ({len(placements)} placements), {n} clauses{how}"

"""In a request's process: the command's request objects built from the
request's checked options, as the command line builds them from its own, and
the same library function asked; the document printed as ``--json`` prints it.

Run in the request's directory (:mod:`.worker`): the instance is
``instance.txt``, the pictures go to ``tiling.svg``/``.png``/``.pdf``, the
CNF to ``formula.cnf``.  Bad input is one ``error: ...`` line on stderr and
exit status 2, as the command line says it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..engines.base import Approx
from ..errors import TilesatError
from ..explain import explain
from ..explain.show import to_json
from ..making.generate import PuzzleSpec
from ..model.instance import Instance, load_instance
from ..questions.count import CountRequest, count
from ..certify.schedule import certificate_mode
from ..questions.solve import FindRequest
from ..reports.export import ExportRequest, export_formula
from ..reports.found import Look, look
from ..reports.generate import GenerateRequest, generate
from ..running.control import Deadline, process_start, time_limit
from ..running.memory import set_memory_limit
from ..sat.options import SatOptions
from ..showing.printing import Drawings

if TYPE_CHECKING:  # the worker forks the process that imports this module
    from .worker import Call

INSTANCE = "instance.txt"
#: The studio's grids: the page edits these (cube boards: the command line).
EDITED_GRIDS = ("square", "triangle", "hex")
#: What a request's process exits with: as the command line's.
EXIT_ANSWERED, EXIT_USAGE = 0, 2


def answer(call: Call, max_cells: int | None = None) -> int:
    """Answer ``call`` on stdout (its document) or stderr (an error's line); returns the exit status."""
    try:
        set_memory_limit(call.memory, "--max-memory")
        instance = _within_limits(call, max_cells)
        with time_limit(Deadline(None if call.command == "export" else call.limit, start=process_start())) as limit:
            document = ANSWERS[call.command](call, lambda: instance or _load(call), limit)
    except TilesatError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("error: out of memory: the instance is too large for this machine", file=sys.stderr)
        return EXIT_USAGE
    if document is not None:
        sys.stdout.write(document + "\n")
    return EXIT_ANSWERED


def _load(call: Call) -> Instance:
    return load_instance(Path(INSTANCE), pieces=call.options.get("pieces"), wrap=call.options.get("wrap"))


def _within_limits(call: Call, max_cells: int | None) -> Instance | None:
    """The studio's board limits, checked before the command runs (a TilesatError says which);
    the instance, or None when it does not load (the command then says why, in its turn)."""
    if call.command == "generate":
        return None
    try:
        instance = _load(call)
    except (TilesatError, ValueError):
        return None
    if instance.board.grid not in EDITED_GRIDS:
        raise TilesatError(f"the studio edits square, triangle and hex boards; this one is on the {instance.board.grid} "
                           "grid (use the tilesat command line)")
    if max_cells is not None and (cells := instance.board.ncells) > max_cells:
        raise TilesatError(f"the board has {cells:,} cells; the studio takes at most {max_cells:,} (tilesat serve --max-cells)")
    return instance


def _sat(call: Call) -> SatOptions:
    """The SAT options first, as the command line builds them: a bad name is the first error."""
    return SatOptions(**{name: call.options[name] for name in ("encoding", "solver", "card") if name in call.options},
                      timeout=call.limit)


def _found(call: Call, load: Callable[[], Instance], limit: Deadline) -> str:
    sat = _sat(call)
    find = FindRequest(call.options.get("method", "auto"), certificate_mode(call.options.get("certificate")))
    found = look(load(), Look(call.command, find, 0 if call.command == "check-unique" else None), sat)
    kinds = {kind: Path(f"tiling.{kind}") if kind in call.pictures else None for kind in ("svg", "png", "pdf")}
    found.draw(Drawings(kinds["svg"], kinds["png"], kinds["pdf"]), Path(INSTANCE).stem)
    return json.dumps(found.document())


def _count(call: Call, load: Callable[[], Instance], limit: Deadline) -> str:
    sat = _sat(call)
    o = call.options
    approx = Approx(**{name: o[name] for name in ("epsilon", "delta") if name in o})
    request = CountRequest(o.get("method", "auto"), o.get("up_to_symmetry", False), o.get("limit"), approx=approx)
    return json.dumps(count(load(), request, sat).to_json())


def _generate(call: Call, load: Callable[[], Instance], limit: Deadline) -> str:
    o = call.options
    spec = PuzzleSpec(**{name: o[name] for name in ("seed", "blocked", "difficulty") if name in o})
    return json.dumps(generate(GenerateRequest(o["size"], o.get("pieces", "L4"), spec), limit.seconds).document())


def _export(call: Call, load: Callable[[], Instance], limit: Deadline) -> None:
    request = ExportRequest(Path("formula.cnf"), **{name: call.options[name] for name in ("encoding", "card")
                                                     if name in call.options}, source=INSTANCE)
    print(export_formula(load(), request), file=sys.stderr)  # the answer's message; the CNF is the file


def _explain(call: Call, load: Callable[[], Instance], limit: Deadline) -> str:
    return to_json(explain(load(), timeout=limit.seconds, **{name: call.options[name] for name in ("repairs",)
                                                             if name in call.options}))


#: Each command the studio answers, and what answers it.
ANSWERS = {"check-unique": _found, "solve": _found, "count": _count, "generate": _generate, "export": _export,
           "explain": _explain}

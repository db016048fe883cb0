"""solve and check-unique: the search, the grade of a unique board, the
pictures, and the JSON document."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..making.grade import Grade, grade, ungradable
from ..model.instance import Instance
from ..model.tiling import differing_cells
from ..questions.solve import FindRequest, Result, answer_solve, answer_unique
from ..running.control import TimedOut
from ..sat.options import SatOptions
from ..showing.pictures import save_certificate_pictures
from ..showing.printing import Drawings, save_drawings

#: The two questions, by the verdicts' command names.
QUESTIONS = {"solve": answer_solve, "check-unique": answer_unique}


@dataclass(frozen=True)
class Look:
    """What solve or check-unique asks: the question, how to look for tilings,
    and (check-unique) whether to grade a unique board, with how many
    deductions in words (``explained``: 0 none, None no grade)."""

    question: str = "check-unique"
    find: FindRequest = field(default_factory=FindRequest)
    explained: int | None = None


@dataclass
class Found:
    """A search's answer, with the grade of a unique board when asked."""

    instance: Instance
    result: Result
    graded: Grade | None = None
    explain: bool = False

    def document(self) -> dict:
        """What ``--json`` prints: the result's JSON, with the grade when there is one."""
        data = self.result.to_json()
        if self.graded is not None:
            data["grade"] = {**self.graded.to_json(), **({"steps": self.graded.steps} if self.explain else {})}
        return data

    def draw(self, drawings: Drawings, title: str) -> list[Path]:
        """The pictures asked for: the tilings (two: their differing cells marked), or a
        certificate's weights when there is no tiling; returns the paths left unwritten."""
        result, instance = self.result, self.instance
        if not result.tilings and result.certificate is not None and drawings.draw in (None, "solution"):
            save_certificate_pictures(instance, result.certificate.weights, [drawings.svg, drawings.png])
            drawings = replace(drawings, svg=None, png=None)
        marked = differing_cells(*result.tilings) if len(result.tilings) == 2 else None
        notes = [self.graded.sentence()] if self.graded is not None else []
        return save_drawings(instance, result.tilings, drawings, marked, title, notes)


def look(instance: Instance, request: Look, options: SatOptions, progress: Callable | None = None) -> Found:
    """Ask ``request.question`` of the instance (within the caller's time limit), then
    grade a unique board when asked: past the time limit the verdict stands, ungraded."""
    result = QUESTIONS[request.question](instance, request.find, options, progress)
    found = Found(instance, result, explain=bool(request.explained))
    # in the command, not in the library's check_unique, whose callers (benchmarks, generate) need no grade
    if request.explained is not None and result.verdict == "unique" and (why := ungradable(instance)) is not None:
        result.stats["grade"] = f"not graded: {why}"
    elif request.explained is not None and result.verdict == "unique":
        if progress is not None:
            progress("grading: propagation, then probing")
        try:
            found.graded = grade(instance, explain=request.explained)
        except TimedOut:
            result.stats["grade"] = "the time limit passed while grading"
    return found

"""Encodings and solvers side by side: every instance x encoding x solver.

Each run goes into a child process (forked, so it starts at once with
everything imported): the only way to stop a PySAT solver at a timeout is
to kill its process (CaDiCaL ignores interrupts from a timer), and a fresh
process keeps one run's memory out of the next one's time.  The child
builds the formula (placements + CNF: "build"), then loads and solves it
("solve"), verifying every tiling, and sends back sizes, times and the
verdict.  Every run of one instance must give the same verdict (or count);
a disagreement is a bug in an encoding or a solver.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from ..running.control import Child, ChildError, TimedOut, check_timeout, time_limit
from ..sat.encodings import ENCODINGS, check_encoding
from ..errors import TilesatError
from ..sat.formula import DEFAULT_CARD, check_card_name
from ..model.instance import Instance
from ..engines.sat import TilingSearch
from ..sat.options import SatOptions
from ..sat.solvers import EXTERNAL_PREFIX, check_solver_name

TASKS = ("solve", "unique", "count")


@dataclass
class Run:
    """One instance x encoding x solver, over ``repeat`` runs."""

    instance: str
    encoding: str
    solver: str
    status: str = "ok"  # ok, timeout or error
    verdict: str | None = None  # solved/none, unique/multiple/none, or the count
    variables: int | None = None
    clauses: int | None = None
    literals: int | None = None
    build: list[float] = field(default_factory=list)
    solve: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def build_median(self) -> float | None:
        return statistics.median(self.build) if self.build else None

    @property
    def solve_median(self) -> float | None:
        return statistics.median(self.solve) if self.solve else None

    @property
    def total(self) -> float | None:
        if self.status != "ok":
            return None
        return self.build_median + self.solve_median

    @property
    def label(self) -> str:
        return f"{self.encoding}+{self.solver}"

    def to_json(self) -> dict:
        data = asdict(self)
        data.update(build_median=self.build_median, solve_median=self.solve_median, total=self.total,
                    solve_min=min(self.solve, default=None), solve_max=max(self.solve, default=None))
        return data


@dataclass
class Entry:
    """One instance of the matrix: a question on it and, when known, its expected answer.

    ``at_least`` (a packing family's member): "a packing of at least this many
    pieces?", answered solved/none whatever the task.  ``expected``: the
    metadata's ``{"answer": "SAT"|"UNSAT", "tilings": N|None}``."""

    name: str
    instance: Instance
    at_least: int | None = None
    expected: dict | None = None


def expected_verdicts(entry: Entry, task: str) -> set[str] | None:
    """The verdicts a correct run may give (None: nothing known to check)."""
    exp = entry.expected or {}
    answer, tilings = exp.get("answer"), exp.get("tilings")
    if entry.at_least is not None or task == "solve":
        return {"SAT": {"solved"}, "UNSAT": {"none"}}.get(answer)
    if task == "count":
        return {str(tilings)} if tilings is not None else ({"0"} if answer == "UNSAT" else None)
    if tilings is not None:
        return {"none" if tilings == 0 else "unique" if tilings == 1 else "multiple"}
    if exp.get("multiple"):
        return {"multiple"}
    return {"SAT": {"unique", "multiple"}, "UNSAT": {"none"}}.get(answer)


def _one_run(instance: Instance, encoding: str, solver: str, card: str, task: str,
             at_least: int | None = None) -> dict:
    """Build and solve once (in the child); every tiling is verified by TilingSearch."""
    if at_least is not None:
        return _one_packing_run(instance, encoding, solver, card, at_least)
    with TilingSearch(instance, SatOptions(encoding, solver, card)) as search:
        f = search.formula
        t0 = time.perf_counter()
        wanted = {"solve": 1, "unique": 2, "count": None}[task]
        found = 0
        while (wanted is None or found < wanted) and search.next() is not None:
            found += 1
        seconds = time.perf_counter() - t0
    if task == "solve":
        verdict = "solved" if found else "none"
    elif task == "unique":
        verdict = {0: "none", 1: "unique", 2: "multiple"}[found]
    else:
        verdict = str(found)
    return {"verdict": verdict, "build": search.compile_seconds, "solve": seconds,
            "variables": f.nvars if f else None, "clauses": f.nclauses if f else None,
            "literals": f.nliterals if f else None}


def _one_packing_run(instance: Instance, encoding: str, solver: str, card: str, at_least: int) -> dict:
    """"A packing of at least ``at_least`` pieces?": the packing formula plus
    that bound (:func:`tilesat.making.families.member_formula`); a packing found is verified."""
    from .families import member_formula
    from ..questions.pack import _decode
    from ..sat.solvers import make_solver

    t0 = time.perf_counter()
    formula, extra = member_formula(instance, at_least, encoding, card)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    with make_solver(solver) as s:
        s.add_formula(formula, lambda done: None)
        for clause in extra:
            s.add_clause(clause)
        found = [] not in extra and s.solve()
        if found:
            packing = _decode(formula, s.model())  # verified: no overlaps, legal tiles
            if len(packing) < at_least:
                raise TilesatError(f"the solver's packing has {len(packing)} pieces, fewer than the {at_least} asked")
    nvars = max([formula.nvars] + [abs(lit) for clause in extra for lit in clause])
    return {"verdict": "solved" if found else "none", "build": build, "solve": time.perf_counter() - t0,
            "variables": nvars, "clauses": formula.nclauses + len(extra),
            "literals": formula.nliterals + sum(map(len, extra))}


def _child(conn, instance, encoding, solver, card, task, at_least=None):
    conn.send(("ok", _one_run(instance, encoding, solver, card, task, at_least)))


def run_isolated(instance: Instance, encoding: str, solver: str, card: str, task: str,
                 timeout: float | None, at_least: int | None = None) -> tuple[str, dict | str | None]:
    """One run in a forked child (:class:`tilesat.running.control.Child`): ("ok",
    stats), ("error", message) or ("timeout", None).  Ctrl-C kills the child
    and goes on up."""
    try:
        with time_limit(timeout), Child(_child, instance, encoding, solver, card, task, at_least) as child:
            return child.recv()
    except TimedOut:
        return "timeout", None
    except ChildError as e:
        return "error", str(e)


@dataclass
class Comparison:
    task: str
    runs: list[Run]
    interrupted: bool = False  # Ctrl-C: ``runs`` holds the cells finished before it
    entries: list[Entry] = field(default_factory=list)
    timeout: float | None = None

    def expected_names(self) -> set[str]:
        """The instances with an answer to check."""
        return {e.name for e in self.entries if expected_verdicts(e, self.task) is not None}

    def wrong_answers(self) -> list[str]:
        """One sentence per finished run whose verdict is not the expected one (metadata's)."""
        out = []
        known = {e.name: e for e in self.entries}
        for r in self.runs:
            entry = known.get(r.instance)
            allowed = expected_verdicts(entry, self.task) if entry is not None else None
            if r.status == "ok" and allowed is not None and r.verdict not in allowed:
                why = (entry.expected or {}).get("how", "")
                out.append(f"{r.instance}: {r.label} says {r.verdict}, expected {' or '.join(sorted(allowed))}"
                           + (f" (known: {why})" if why else ""))
        return out

    def by_instance(self) -> dict[str, list[Run]]:
        out: dict[str, list[Run]] = {}
        for r in self.runs:
            out.setdefault(r.instance, []).append(r)
        return out

    def best(self, instance: str) -> Run | None:
        done = [r for r in self.by_instance()[instance] if r.total is not None]
        return min(done, key=lambda r: r.total) if done else None

    def disagreements(self) -> list[str]:
        """One sentence per bug found: verdicts that differ, or runs that failed."""
        out = []
        for name, runs in self.by_instance().items():
            verdicts: dict[str, list[str]] = {}
            for r in runs:
                if r.status == "ok":
                    verdicts.setdefault(r.verdict, []).append(r.label)
                elif r.status == "error":
                    out.append(f"{name}: {r.label} failed: {r.error}")
            if len(verdicts) > 1:
                says = "; ".join(f"{', '.join(labels)} say {v}" for v, labels in verdicts.items())
                out.append(f"{name}: the answers differ: {says}")
        return out


def parse_list(text: str, known, what: str, check=None) -> list[str]:
    """A comma-separated option (``all`` = every known name), each name checked."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(known)
    if not names:
        raise TilesatError(f"--{what}: give at least one name")
    return [check(n) if check else n for n in names]


def compare(
    instances: list[tuple[str, Instance] | Entry],
    encodings: list[str],
    solvers: list[str],
    task: str = "unique",
    repeat: int = 1,
    timeout: float | None = None,
    card: str = DEFAULT_CARD,
    progress: Callable[[str, int, int], None] | None = None,
) -> Comparison:
    """Run the matrix; ``progress(label, done, total)`` after each run."""
    if task not in TASKS:
        raise TilesatError(f"unknown task {task!r}; use {', '.join(TASKS)}")
    if repeat < 1:
        raise TilesatError("--repeat must be at least 1")
    timeout = check_timeout(timeout)
    for e in encodings:
        check_encoding(e)
    if any(s.startswith(EXTERNAL_PREFIX) for s in solvers):  # before looking the command up
        raise TilesatError("compare runs PySAT solvers; compare external ones with export and your own timing")
    solvers = [check_solver_name(s) for s in solvers]
    check_card_name(card)
    report = progress or (lambda label, done, total: None)
    entries = [e if isinstance(e, Entry) else Entry(*e) for e in instances]
    matrix = _Matrix(entries, encodings, solvers, task, repeat, timeout, card)
    runs: list[Run] = []
    try:
        _fill(runs, matrix, report)
    except KeyboardInterrupt:
        return Comparison(task, runs, interrupted=True, entries=entries, timeout=timeout)
    report("done", matrix.total, matrix.total)
    return Comparison(task, runs, entries=entries, timeout=timeout)


@dataclass
class _Matrix:
    """The runs compare makes: every entry by every encoding and solver, ``repeat`` times."""

    entries: list[Entry]
    encodings: list[str]
    solvers: list[str]
    task: str
    repeat: int
    timeout: float | None
    card: str

    @property
    def total(self) -> int:
        return len(self.entries) * len(self.encodings) * len(self.solvers) * self.repeat


def _fill(runs: list[Run], matrix: _Matrix, report: Callable[[str, int, int], None]) -> None:
    """Append one finished :class:`Run` per cell of the matrix to ``runs``."""
    done, total, repeat = 0, matrix.total, matrix.repeat
    for entry in matrix.entries:
        name, instance = entry.name, entry.instance
        for encoding in matrix.encodings:
            for solver in matrix.solvers:
                run = Run(name, encoding, solver)
                for _ in range(repeat):
                    report(f"{name}: {encoding} + {solver}", done, total)
                    status, data = run_isolated(instance, encoding, solver, matrix.card, matrix.task, matrix.timeout,
                                                entry.at_least)
                    done += 1
                    if status != "ok":
                        run.status, run.error = status, data
                        done += repeat - len(run.solve) - 1  # the remaining repeats are skipped
                        break
                    if run.verdict is not None and data["verdict"] != run.verdict:
                        run.status = "error"
                        run.error = f"repeats disagree: {run.verdict} then {data['verdict']}"
                        break
                    run.verdict = data["verdict"]
                    run.variables, run.clauses, run.literals = data["variables"], data["clauses"], data["literals"]
                    run.build.append(data["build"])
                    run.solve.append(data["solve"])
                runs.append(run)


def plot(comparison: Comparison, path) -> None:
    """Solve time per encoding and solver, one panel per instance (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = comparison.by_instance()
    fig, axes = plt.subplots(len(groups), 1, figsize=(max(6, 1.2 * len(ENCODINGS) + 2), 3.2 * len(groups)),
                             squeeze=False)
    for ax, (name, runs) in zip(axes[:, 0], groups.items()):
        encodings = list(dict.fromkeys(r.encoding for r in runs))
        solvers = list(dict.fromkeys(r.solver for r in runs))
        width = 0.8 / len(solvers)
        for j, solver in enumerate(solvers):
            xs, ys, marks = [], [], []
            for i, enc in enumerate(encodings):
                r = next(r for r in runs if r.encoding == enc and r.solver == solver)
                xs.append(i + j * width)
                ys.append(r.total if r.total is not None else 0)
                marks.append(r.status)
            bars = ax.bar(xs, ys, width, label=solver)
            for bar, status in zip(bars, marks):
                if status != "ok":
                    ax.annotate(status, (bar.get_x() + bar.get_width() / 2, 0), ha="center", va="bottom",
                                rotation=90, fontsize=8, color="red", xycoords=("data", "axes fraction"))
        ax.set_xticks([i + width * (len(solvers) - 1) / 2 for i in range(len(encodings))], encodings)
        ax.set_ylabel("build + solve s (median)")
        if any(r.total for r in runs):
            ax.set_yscale("log")
        ax.set_title(f"{name} ({comparison.task})")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def load_directory(directory, warn: Callable[[str], None] | None = None) -> list[Entry]:
    """The instances of a directory, by name: every metadata file ``*.json``
    with an ``instance`` (what ``export-family`` writes; its DIMACS is then
    recompiled per encoding from that instance), and every instance file
    ``*.txt`` (its ``; expect: unique|multiple|none`` comment, if any, is
    the expected answer).  A ``*.cnf`` without metadata cannot be recompiled
    with other encodings: ``warn`` hears that it is left out."""
    import json
    from pathlib import Path

    from ..model.instance import load_instance, parse_instance

    warn = warn or (lambda message: None)
    root = Path(directory)
    if not root.is_dir():
        raise TilesatError(f"{root}: not a directory")
    entries, covered = [], set()
    for path in sorted(root.glob("*.json")):
        try:
            meta = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise TilesatError(f"{path}: cannot read its JSON: {e}") from None
        if not isinstance(meta, dict) or "instance" not in meta:
            continue  # an index or another file: not an instance's metadata
        try:
            instance = parse_instance(meta["instance"], source=str(path))
            at_least = meta.get("at_least")
            if meta.get("question", "tile") not in ("tile", "pack") or (at_least is not None and not isinstance(at_least, int)):
                raise TilesatError("unknown question")
            expected = meta.get("expected")
            if expected is not None and (not isinstance(expected, dict) or expected.get("answer") not in ("SAT", "UNSAT", None)):
                raise TilesatError("'expected' must be {\"answer\": \"SAT\"|\"UNSAT\", \"tilings\": N}")
        except TilesatError as e:
            raise TilesatError(f"{path}: bad metadata: {e}") from None
        entries.append(Entry(str(meta.get("name", path.stem)), instance, at_least if meta.get("question") == "pack" else None,
                             expected))
        covered.add(meta.get("cnf") or f"{path.stem}.cnf")
    for path in sorted(root.glob("*.txt")):
        instance = load_instance(path)
        entries.append(Entry(path.name, instance, None, _expect_comment(path)))
    for path in sorted(p for ext in ("*.cnf", "*.cnf.gz", "*.cnf.xz") for p in root.glob(ext)):
        if path.name not in covered:
            warn(f"{path}: left out (a DIMACS file without metadata cannot be recompiled per encoding)")
    if not entries:
        raise TilesatError(f"{root}: no instances (instance files *.txt or export-family metadata *.json)")
    return entries


def _expect_comment(path) -> dict | None:
    """The ``; expect: …`` comment of an instance file as an expected answer."""
    import re

    m = re.search(r"^;\s*expect:\s*(unique|multiple|none)\b", path.read_text(errors="replace"), re.M)
    if not m:
        return None
    word = m.group(1)
    return {"answer": "UNSAT" if word == "none" else "SAT", "tilings": {"none": 0, "unique": 1}.get(word),
            "how": f"the file's 'expect: {word}' comment", **({"multiple": True} if word == "multiple" else {})}


def cactus(comparison: Comparison, path) -> None:
    """The cactus plot: for each encoding + solver, the number of instances
    solved (a finished run, build + solve) within each time, on a log time axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(r.label for r in comparison.runs))
    ninstances = len(comparison.by_instance())
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label in labels:
        times = sorted(r.total for r in comparison.runs if r.label == label and r.total is not None)
        xs = [t for t in times for _ in (0, 1)]  # a step up at each instance's time
        ys = [y for i in range(len(times)) for y in (i, i + 1)]
        ax.plot(xs, ys, label=f"{label} ({len(times)})", drawstyle="default", linewidth=1.5)
    ax.set_xscale("log")
    if comparison.timeout:
        ax.axvline(comparison.timeout, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("build + solve seconds" + (f" (limit {comparison.timeout:g} s, dashed)" if comparison.timeout else ""))
    ax.set_ylabel("instances solved")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(0, ninstances + 0.5)
    ax.set_title(f"{ninstances} instances, task {comparison.task}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

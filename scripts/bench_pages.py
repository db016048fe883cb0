"""Render the benchmark pages of the docs from their data: every table in
``docs/benchmarks/data/PAGE/*.json`` (the format of ``scripts/bench_table.py``,
what the bench scripts write with ``--json OUT``) onto ``docs/benchmarks/PAGE.md``,
each with its command, machine, load and date, plus an index page.

    python scripts/bench_pages.py            # write the pages
    python scripts/bench_pages.py --check    # exit 1 if a page is not what its data renders

The hard-families page opens with where each family stands (the newest report run of each);
the README carries the same table between its ``FAMILIES_BEGIN``/``FAMILIES_END`` marks, and
this script writes it there too.  tests/test_docs.py checks that the pages are up to date.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_table import load, validate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGES_DIR = ROOT / "docs" / "benchmarks"
DATA = PAGES_DIR / "data"

#: page slug, title, what the page is about (the tables come from data/SLUG/, in file-name order)
PAGES = [
    ("hard-boards", "Hard boards: the sweep, the portfolio, CP-SAT",
     "check-unique on random-packing boards (`scripts/make_hard_boards.py`), where one CDCL run's "
     "time is a lottery: the sweep against one CDCL run, tilesat against OR-Tools CP-SAT, how the "
     "portfolio's members and the open-board defaults were chosen, and the Polyomino Tiler's "
     "heuristics measured one by one. The guide's [Hard boards](../guide/hard-boards.md) says how "
     "the sweep and `--jobs` work."),
    ("hard-families", "Hard boards of every shape: tilesat against CP-SAT by family",
     "check-unique on 15 families of boards made differently (`scripts/hard_families.py`: packings in "
     "row-major, random, spiral and breadth-first order, clustered holes, random blocked cells, designed "
     "puzzles; L4, L3, T4, P5, mixed sets, pentominoes with counts; 40x40 to 100x100), one row per family, "
     "tilesat `--jobs 1` against OR-Tools CP-SAT with 1 worker on the report set, and the tuning-set "
     "measurement behind `auto`'s choice; last, the held-out families, whose report boards nothing was tuned on "
     "(`--held-out`: other pieces, orders and sizes), a check of what was. The target (every family: median ratio at most 0.5, worst board "
     "at most 1.0) is not reached on every family: the notes under the first tables say where, by how much "
     "and what was tried. The rows for `--jobs 8` against 8 workers are not measured: this machine has 2 "
     "shared cores, and numbers from 2 cores are not 8-worker numbers. The guide's "
     "[Hard boards](../guide/hard-boards.md) says how the look-ahead, the colourings and the repairing sweep work."),
    ("peers", "Against the tools people use today",
     "tilesat's defaults against OR-Tools CP-SAT (the exact-cover model of the published L-Panel "
     "solver) and the `xcover` package (dancing links), in one process, everything from the instance "
     "to the verified answer inside the timing."),
    ("encodings", "Encodings and solvers",
     "How the exactly-one encodings and the default choices compare: `compare` matrices, "
     "`--encoding auto`'s threshold, native cardinality constraints, and what compiling and loading "
     "a big board costs. The encodings themselves are in the [reference](../reference/encodings/index.md)."),
    ("counting", "Counting",
     "The counting engines against `xcover` listing every exact cover, and how far each engine reaches."),
    ("cluster", "Counts on several processes and a Dask cluster",
     "Units, `--jobs` and `--cluster dask` on one 2-core machine: the overheads, and a multi-minute "
     "count interrupted and resumed."),
    ("records", "Record counts and the enumerator's speed",
     "The published counts of the 18 one-sided pentominoes (5x18, 6x15, 9x10, up to symmetry) with a "
     "checkpoint that is the count's whole state (`scripts/bench_records.py`), parallel efficiency by "
     "workers (`scripts/bench_cluster.py --scaling`), and the native enumerator's start-up and speed "
     "as whole processes. The guide's [Counting at scale](../guide/counting-at-scale.md) says how "
     "units balance themselves. Rows for 4, 8 and 16 workers wait for a 16-core machine."),
    ("grids", "Other grids",
     "Counting up to symmetry on triangle, hex and cube boards against `xcover` listing every tiling."),
    ("packing", "Packing and symmetry breaking",
     "Proved maximum packings of pentominoes, and what lex-leader symmetry breaking "
     "(`--break-symmetry`) does to solve, pack and count times."),
    ("certificates", "Certificates of \"no tiling\"",
     "The LP certificate against plain CDCL and CP-SAT on mutilated boards, and what the certificate "
     "check costs a count that has tilings."),
    ("making", "Making puzzles",
     "How long `tilesat generate` takes, by size, pieces and difficulty."),
    ("explain", "Explaining a board",
     "`tilesat explain` on an author's draft (a generated puzzle with black groups reopened): the "
     "backbone algorithms against the naive way (one solver call per tile), and the whole explanation "
     "with its repair. The guide's [Explaining a board](../guide/explain.md) says how it works."),
    ("burrtools", "BurrTools files: tilesat against burrTxt",
     "Every cube-grid problem of public BurrTools files counted by BurrTools' own command-line solver "
     "`burrTxt` and by tilesat (`scripts/bench_burrtools.py`), whole processes side by side, counts "
     "compared. The guide's [BurrTools files](../guide/burrtools.md) says how tilesat counts them."),
    ("auto", "What --method auto picks",
     "Every file in `instances/` (`check-unique`) and every counting example of the docs (`count`, "
     "plainly and `--up-to-symmetry`), run with each method that can take it, as whole commands: "
     "`auto` must pick a method within 2x of the fastest on every row (`tests/test_auto_choice.py` "
     "asks the rules of `tilesat.engines.auto` again and checks it against these tables; "
     "`python scripts/bench_auto_methods.py --only TEXT` measures rows again)."),
    ("tools", "Other figures",
     "The studio's overhead per request, Golomb's construction at 4096x4096, the fuzzer's rate, "
     "the run controller's cost, and a benchmark family through `compare`."),
]


def load_all() -> list[tuple[Path, dict]]:
    tables = []
    for slug, _, _ in PAGES:
        for path in sorted((DATA / slug).glob("*.json")):
            tables.append((path, load(path)))
    unplaced = {p.parent.name for p in DATA.glob("*/*.json")} - {slug for slug, _, _ in PAGES}
    if unplaced:
        raise ValueError(f"data folders without a page in bench_pages.PAGES: {sorted(unplaced)}")
    return tables


def _cell(value) -> str:
    text = str(value)
    return text.replace("|", "\\|").replace("\\\\|", "\\|").replace("\n", " ")


def render_table(table: dict, path: Path) -> str:
    validate(table, path)
    out = [f"## {table['title']}", ""]
    date = table["date"] + (f" (commit `{table['commit']}`)" if table.get("commit") else "")
    out += [f"- **command**: `{table['command']}`" if not table["command"].startswith("not stated")
            else f"- **command**: {table['command']}",
            f"- **machine**: {table['machine']}",
            f"- **load**: {table['load']}",
            f"- **date**: {date}",
            f"- **data**: [`{path.relative_to(PAGES_DIR).as_posix()}`]({path.relative_to(PAGES_DIR).as_posix()})",
            ""]
    out.append("| " + " | ".join(_cell(c) for c in table["columns"]) + " |")
    out.append("|" + "---|" * len(table["columns"]))
    for row in table["rows"]:
        out.append("| " + " | ".join(_cell(c) for c in row) + " |")
    if table["notes"]:
        out.append("")
        out += [f"- {note}" for note in table["notes"]]
    return "\n".join(out) + "\n"


#: what issue 29 asks of every family, against CP-SAT with as many workers
TARGET_MEDIAN, TARGET_WORST = 0.5, 1.0
FAMILIES_BEGIN = "<!-- FAMILIES_BEGIN: written by scripts/bench_pages.py from docs/benchmarks/data/hard-families/ -->"
FAMILIES_END = "<!-- FAMILIES_END -->"


def timeouts(cell: dict) -> tuple[int, int]:
    """The boards on which tilesat and CP-SAT ran past the limit (the table's time-outs column)."""
    ours, theirs = str(cell.get("time-outs (tilesat / CP-SAT 1 worker)", "0 / 0")).split("/")
    return int(ours), int(theirs)


def tilesat_timeouts(cell: dict) -> int:
    """The boards on which tilesat ran past the limit."""
    return timeouts(cell)[0]


def target_met(cell: dict) -> bool:
    """Median ratio at most TARGET_MEDIAN, worst board at most TARGET_WORST, and every board answered
    by tilesat: a board both tools ran past the limit on has ratio 1.0, a bound, not an answer."""
    return (float(cell["median ratio"]) <= TARGET_MEDIAN and float(cell["worst ratio"]) <= TARGET_WORST
            and not tilesat_timeouts(cell))


def family_runs(tables: list[tuple[Path, dict]]) -> dict[str, tuple[Path, dict, list]]:
    """Each family's newest report run: the last by-family table (in file order) with a row for it."""
    newest: dict[str, tuple[Path, dict, list]] = {}
    for path, table in tables:
        if (path.parent.name != "hard-families" or not table["title"].startswith("check-unique by family")
                or "family" not in table["columns"]):
            continue
        for row in table["rows"]:
            newest[row[table["columns"].index("family")]] = (path, table, row)
    return newest


def _load_range(load: str) -> str:
    """'load average 4.59 at the start, 4.50 at the end' as '4.6-4.5' (the text itself if not so)."""
    figures = re.findall(r"\d+(?:\.\d+)?", load)
    return "-".join(f"{float(f):.1f}" for f in figures[:2]) if figures else load


def family_summary(tables: list[tuple[Path, dict]], link_prefix: str) -> str:
    """Where each family stands against the target, one row each, with the run it comes from."""
    columns = ["family", "boards", "limit (s)", "tilesat median (s)", "CP-SAT median (s)", "median ratio",
               "worst ratio", "target", "measured"]
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    met = []
    for family, (path, table, row) in family_runs(tables).items():
        cell = dict(zip(table["columns"], row))
        limit = re.search(r"--timeout (\d+)", table["command"])
        ok = target_met(cell)
        met.append(ok)
        verdict = "met" if ok else ("NOT met: neither tool answered" if timeouts(cell) == (cell["boards"],) * 2
                                    else "NOT met")
        out.append("| " + " | ".join(_cell(v) for v in (
            family, cell["boards"], limit.group(1) if limit else "?", cell["tilesat median (s)"],
            cell["CP-SAT 1 worker median (s)"], cell["median ratio"], cell["worst ratio"], verdict,
            f"[{table['date']}, load {_load_range(table['load'])}]"
            f"({link_prefix}{path.relative_to(PAGES_DIR).as_posix()})")) + " |")
    machines = sorted({t["machine"] for _, t, _ in family_runs(tables).values()})
    out += ["", f"tilesat `--jobs 1` against CP-SAT 1 worker, check-unique on the report set "
            f"(`python scripts/bench_families.py`), on {' and on '.join(machines)}"
            f"{' (each row links its run, which says where)' if len(machines) > 1 else ''}; the target (median ratio at most "
            f"{TARGET_MEDIAN}, worst board at most {TARGET_WORST}) is met on {sum(met)} of {len(met)} families. "
            "`--jobs 8` against CP-SAT 8 workers: not measured (no machine with 8 free cores was lent; "
            "`--workers 8` measures it)."]
    out[-1] += held_out_summary(tables, link_prefix)
    return "\n".join(out) + "\n"


def held_out_summary(tables: list[tuple[Path, dict]], link_prefix: str) -> str:
    """A sentence on the newest run of the held-out families (never tuned on), if any."""
    runs = [(p, t) for p, t in tables if p.parent.name == "hard-families" and t["title"].startswith("held-out families")]
    if not runs:
        return ""
    path, table = runs[-1]
    rows = [dict(zip(table["columns"], row)) for row in table["rows"]]
    met = [r for r in rows if target_met(r)]
    slower = [r for r in rows if float(r["worst ratio"]) > TARGET_WORST]
    unanswered = [r for r in rows if tilesat_timeouts(r) and float(r["worst ratio"]) <= TARGET_WORST]
    boards = sorted({r["boards"] for r in rows})
    words = (f"On {len(rows)} held-out families, whose report boards nothing was tuned on (`--held-out`, "
             f"{'/'.join(str(b) for b in boards)} boards each, [{table['date']}]({link_prefix}"
             f"{path.relative_to(PAGES_DIR).as_posix()})): the target is met on {len(met)}")
    if slower:
        words += ("; tilesat is slower than CP-SAT on some board of " + ", ".join(
            f"{r['family']} (median {float(r['median ratio']):.2f}, worst {float(r['worst ratio']):.2f})" for r in slower))
    if unanswered:
        words += ("; tilesat ran past the limit on some board of " + ", ".join(
            f"{r['family']} ({tilesat_timeouts(r)} of {r['boards']}, CP-SAT too: ratio 1.0, a bound)" for r in unanswered))
    return " " + words + "."


def readme_with_summary(readme: str, tables: list[tuple[Path, dict]]) -> str:
    """The README with its copy of the families' table brought up to date."""
    head, mark, rest = readme.partition(FAMILIES_BEGIN)
    if not mark:
        return readme
    _, end, tail = rest.partition(FAMILIES_END)
    if not end:
        raise ValueError(f"README.md: {FAMILIES_BEGIN!r} without {FAMILIES_END!r}")
    return head + FAMILIES_BEGIN + "\n" + family_summary(tables, "docs/benchmarks/") + FAMILIES_END + tail


#: How many of a page's table titles its line in the index lists.
INDEX_TITLES = 4

GENERATED = "<!-- generated by scripts/bench_pages.py from docs/benchmarks/data/: edit the data, not this page -->"


def render_all() -> dict[Path, str]:
    tables = load_all()
    pages: dict[Path, str] = {}
    index = [GENERATED, "", "# Benchmarks", "",
             "Every figure in these pages carries the command that measures it again, the machine, its "
             "load and the date. Each table is a JSON file under `docs/benchmarks/data/PAGE/` in the "
             "format of `scripts/bench_table.py` (title, command, machine, load, date, the code's commit, "
             "columns, rows, notes); the bench scripts write it with `--json OUT`, and "
             "`python scripts/bench_pages.py` renders the pages (the docs' test fails when a page is "
             "not what its data renders). \"not stated\" marks what was not written down when the "
             "figure was taken; the figures from before these pages existed record, as their commit, "
             "the one that first published them.", "",
             "All figures are from a shared 2-core machine unless a table says otherwise: compare "
             "figures within one table, not across tables.", ""]
    for slug, title, intro in PAGES:
        mine = [(p, t) for p, t in tables if p.parent.name == slug]
        body = [GENERATED, "", f"# {title}", "", intro, ""]
        if slug == "hard-families":
            body += ["## Where each family stands (the newest report run of each)", "",
                     family_summary(tables, "")]
        for path, table in mine:
            body += [render_table(table, path)]
        pages[PAGES_DIR / f"{slug}.md"] = "\n".join(body)
        titles = [t["title"] for _, t in mine]
        if len(titles) > INDEX_TITLES:  # a page that grew by runs: a line to read, not every table's title
            titles = titles[:INDEX_TITLES] + [f"and {len(titles) - INDEX_TITLES} more tables"]
        index.append(f"- [{title}]({slug}.md): " + "; ".join(titles))
    pages[PAGES_DIR / "index.md"] = "\n".join(index) + "\n"
    readme = ROOT / "README.md"
    pages[readme] = readme_with_summary(readme.read_text(), tables)
    return pages


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only say whether the pages are up to date")
    args = ap.parse_args(argv)
    stale = []
    for path, text in render_all().items():
        if not path.exists() or path.read_text() != text:
            stale.append(path)
            if not args.check:
                path.write_text(text)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

"""The documentation: the site builds, its examples still run, its benchmark pages match their data.

- ``mkdocs build --strict`` (mkdocs.yml at the root): a broken link or anchor between pages, a
  missing snippet (``encodings/*.md`` are included, not copied) or a docstring mkdocstrings
  cannot render fails.
- Every ```` ```console ```` block of the README and of ``docs/`` is a transcript and is run:
  its ``$ `` lines, in one bash process, in a scratch directory that holds the repository's
  ``instances/``, ``examples/`` and ``encodings/`` (so the paths read as from the repository
  root, and nothing an example writes lands in the work tree) and an empty ``docs/``.  What
  each command prints on stdout must match the lines under it; ``…`` matches anything within a
  line, and a line that is only ``…`` any number of lines (times, long JSON).  A command
  continues onto the next line after a trailing backslash.
- Every ```` ```python ```` block is run the same way and must not fail.
- Every ``tilesat …`` command line in any code block (``sh``, ``text`` and ``console``) must
  parse: a command that exists, options it has, no arguments left over.  That covers the
  examples too long to run here (a count on a cluster, a benchmark on 60x60 boards).
- ``docs/benchmarks/*.md`` are what ``scripts/bench_pages.py`` renders from
  ``docs/benchmarks/data/``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from repo_scripts import import_script

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCRATCH_LINKS = ("instances", "examples", "encodings")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
                   re.S | re.M)
WILDCARD = "…"


def documents() -> list[Path]:
    return [ROOT / "README.md"] + sorted(p for p in DOCS.rglob("*.md"))


def code_blocks(path: Path):
    """(language, first line number of the body, body lines) of each fenced block."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        indent = len(m["indent"])
        body = [line[indent:] if line[:indent].strip() == "" else line for line in m["body"].splitlines()]
        yield m["lang"], text.count("\n", 0, m.start("body")) + 1, body


def transcript(body: list[str]) -> list[tuple[str, list[str]]]:
    """The (command, expected output lines) pairs of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = iter(body)
    for line in lines:
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + "\n" + next(lines)
            steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"output before the first '$ ' line: {line!r}")
    return steps


def console_blocks() -> list[tuple[str, list[str]]]:
    return [(f"{path.relative_to(ROOT)}:{line}", body)
            for path in documents() for lang, line, body in code_blocks(path) if lang == "console"]


def pattern(expected: list[str]) -> re.Pattern:
    """``…`` alone on a line: any lines; within a line: anything on that line."""
    parts = []
    for line in _trim(expected):
        if line.strip() == WILDCARD:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*?".join(re.escape(piece) for piece in line.split(WILDCARD)) + "\n")
    return re.compile("".join(parts))


def _trim(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def scratch(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name in SCRATCH_LINKS:
        (directory / name).symlink_to(ROOT / name)
    (directory / "docs").mkdir()
    return directory


def run_transcript(where: str, body: list[str], directory: Path) -> str | None:
    """None when every command printed what the block shows, else what differs."""
    steps = transcript(body)
    # each command's output is told from the next by a separator bash prints between them
    script = "".join(f"printf '\\036%d\\036' {i}\n{command}\n" for i, (command, _) in enumerate(steps))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "100", "NO_COLOR": "1"}
    try:
        run = subprocess.run(["bash", "-c", script], cwd=scratch(directory), env=env, capture_output=True,
                             text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return f"{where}: still running after 300 s"
    outputs = re.split(r"\x1e\d+\x1e", run.stdout)[1:]
    if len(outputs) != len(steps):
        return f"{where}: the transcript stopped early\n{run.stdout}\n{run.stderr[-2000:]}"
    for (command, expected), got in zip(steps, outputs):
        got = "".join(line.rstrip() + "\n" for line in _trim(got.splitlines()))
        if pattern(expected).fullmatch(got) is None:
            return (f"{where}\n$ {command}\n--- shown:\n" + "\n".join(expected)
                    + f"\n--- printed:\n{got}--- stderr:\n{run.stderr[-2000:]}")
    return None


@pytest.mark.slow
def test_every_transcript_prints_what_it_shows(tmp_path):
    blocks = {}  # the same example on two pages runs once
    for where, body in console_blocks():
        blocks.setdefault("\n".join(body), []).append(where)
    blocks = [(" and ".join(wheres), body.splitlines()) for body, wheres in blocks.items()]
    assert len(blocks) >= 20, "the console blocks of the docs were not found"
    # each block is a bash process of its own in a directory of its own: they run side by side
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(lambda item: run_transcript(*item[1], tmp_path / f"block{item[0]}"),
                                         enumerate(blocks)) if f]
    assert not failures, f"{len(failures)} of {len(blocks)} transcripts differ:\n\n" + "\n\n".join(failures)


def python_blocks() -> list:
    return [pytest.param("\n".join(body), id=f"{path.relative_to(ROOT)}:{line}")
            for path in documents() for lang, line, body in code_blocks(path) if lang == "python"]


@pytest.mark.slow
@pytest.mark.parametrize("code", python_blocks())
def test_python_example(code, tmp_path):
    run = subprocess.run([sys.executable, "-c", code], cwd=scratch(tmp_path), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]


# --- every tilesat command line parses ---------------------------------------------------------


def command_lines():
    """Each ``tilesat …`` invocation in a code block: (where, its arguments).  In ``sh`` blocks
    every line is a command; in ``console`` and ``text`` blocks the ``$ `` lines are."""
    for path in documents():
        for lang, first, body in code_blocks(path):
            if lang not in ("sh", "bash", "console", "text"):
                continue
            for offset, line in enumerate(body):
                if lang in ("console", "text"):
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                while line.endswith("\\") and offset + 1 < len(body):
                    offset += 1
                    line = line[:-1] + " " + body[offset]
                if not re.search(r"(^|[;&|]|\bdo)\s*tilesat\s", line):
                    continue
                lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
                lexer.whitespace_split = True
                lexer.commenters = "#"
                tokens = list(lexer)
                while "tilesat" in tokens:
                    tokens = tokens[tokens.index("tilesat") + 1:]
                    args = []
                    for i, token in enumerate(tokens):
                        redirect = token.isdigit() and i + 1 < len(tokens) and tokens[i + 1][0] in "<>"
                        if redirect or set(token) <= set(";&|<>()"):
                            break
                        args.append(token)
                    yield f"{path.relative_to(ROOT)}:{first + offset}", args


def test_every_command_shown_parses():
    import typer

    from tilesat.cli import app

    group = typer.main.get_command(app)
    context = type(group.make_context("tilesat", ["solve"], resilient_parsing=True))
    seen = 0
    problems = []
    for where, args in command_lines():
        seen += 1
        root = context(group, info_name="tilesat")
        while args and args[0].startswith("--max-memory"):
            args = args[1:] if "=" in args[0] else args[2:]
        if not args or args[0] in ("--help", "--version"):
            continue
        command = group.get_command(root, args[0])
        if command is None:
            problems.append(f"{where}: no command {args[0]!r}")
            continue
        try:
            _, left, _ = command.make_parser(context(command, info_name=args[0], parent=root)).parse_args(args[1:])
        except Exception as e:  # the parser's own usage errors
            problems.append(f"{where}: tilesat {' '.join(args)}: {e}")
            continue
        if left:
            problems.append(f"{where}: tilesat {' '.join(args)}: arguments left over: {left}")
    assert seen > 50, "the command lines of the docs were not found"
    assert not problems, "\n".join(problems)


# --- every tilesat.name the docs mention exists -------------------------------------------------


def dotted_names():
    for path in documents() + sorted((ROOT / "encodings").glob("*.md")):
        for m in re.finditer(r"`(tilesat(?:\.\w+)+)", path.read_text()):
            yield f"{path.relative_to(ROOT)}", m[1]


def test_every_module_and_name_the_docs_mention_exists():
    import importlib

    missing = []
    for where, name in dotted_names():
        parts = name.split(".")
        for i in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            try:
                for attr in parts[i:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                missing.append(f"{where}: {name}")
            break
    assert not missing, "the docs name what the code no longer has:\n" + "\n".join(sorted(set(missing)))


# --- the site ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    assert (tmp_path / "site" / "index.html").exists()


def test_every_package_has_an_api_page():
    packages = {p.parent.name for p in (ROOT / "src" / "tilesat").glob("*/__init__.py")}
    pages = {p.stem for p in (DOCS / "api").glob("*.md")} - {"index"}
    assert packages == pages, f"packages without a page: {sorted(packages - pages)}, pages without a package: " \
                              f"{sorted(pages - packages)} (docs/api/PACKAGE.md, and mkdocs.yml's nav)"


def test_the_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 220, "the README is the front page: reference and tutorials go to docs/"
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme) + re.findall(r'(?:src|href)="([^"#]+)"', readme)
    for target in targets:
        if "://" not in target:
            assert (ROOT / target).exists(), f"the README links to {target}, which does not exist"
    assert "pytest" in re.search(r"```sh\n(.*?)```", readme, re.S)[1], "the Quickstart's test command"


def test_nothing_points_outside_the_repository():
    for path in documents():
        text = path.read_text()
        assert "MEASUREMENTS.md" not in text, f"{path}: cites a file that is not in the repository"
        assert "../shared" not in text and "/work/" not in text, f"{path}: a path of one machine"


# --- benchmark pages -----------------------------------------------------------------------------


def test_benchmark_data_is_well_formed():
    bench_pages = import_script("bench_pages")
    tables = bench_pages.load_all()
    assert len(tables) >= 20
    for path, table in tables:
        bench_pages.validate(table, path)  # raises, naming the file and what is wrong


def test_benchmark_pages_are_rendered_from_their_data():
    bench_pages = import_script("bench_pages")
    rendered = bench_pages.render_all()
    stale = [str(path.relative_to(ROOT)) for path, text in rendered.items()
             if not path.exists() or path.read_text() != text]
    assert not stale, f"run: python scripts/bench_pages.py (stale or missing: {', '.join(stale)})"
    on_disk = {p for p in (DOCS / "benchmarks").glob("*.md")}
    pages = {p for p in rendered if p.parent == DOCS / "benchmarks"}
    assert on_disk == pages, f"pages no data renders: {sorted(map(str, on_disk - pages))}"


@pytest.mark.parametrize("median, worst, timeouts, met", [
    ("0.4", "0.9", "0 / 0", True), ("0.6", "0.9", "0 / 0", False), ("0.4", "1.2", "0 / 1", False),
    ("0.39", "1.0", "1 / 2", False), ("0.1", "1.0", "0 / 3", True)])
def test_a_family_meets_the_target_only_where_tilesat_answered_every_board(median, worst, timeouts, met):
    # a board both tools ran past the limit on has ratio 1.0: a bound, not an answer (held-out
    # L4-clusters-80 once read "met" so); CP-SAT's time-outs alone leave bounds in tilesat's favour
    bench_pages = import_script("bench_pages")
    cell = {"median ratio": median, "worst ratio": worst, "time-outs (tilesat / CP-SAT 1 worker)": timeouts}
    assert bench_pages.target_met(cell) == met


def test_the_readme_carries_each_familys_newest_run():
    bench_pages = import_script("bench_pages")
    readme = (ROOT / "README.md").read_text()
    assert bench_pages.FAMILIES_BEGIN in readme and bench_pages.FAMILIES_END in readme
    newest = bench_pages.family_runs(bench_pages.load_all())
    assert len(newest) == 15, sorted(newest)
    table = readme.split(bench_pages.FAMILIES_BEGIN)[1].split(bench_pages.FAMILIES_END)[0]
    for family, (path, _, row) in newest.items():
        line = next(line for line in table.splitlines() if line.startswith(f"| {family} |"))
        assert path.name in line and f"| {row[1]} |" in line, (family, line)


def test_the_readme_names_each_held_out_family_tilesat_loses_on():
    bench_pages = import_script("bench_pages")
    tables = bench_pages.load_all()
    held = [t for p, t in tables if t["title"].startswith("held-out families")]
    assert held, "no run of scripts/bench_families.py --held-out on the hard-families page"
    newest = held[-1]
    assert not set(bench_pages.family_runs(tables)) & {row[0] for row in newest["rows"]}  # apart from the 15
    block = (ROOT / "README.md").read_text().split(bench_pages.FAMILIES_BEGIN)[1].split(bench_pages.FAMILIES_END)[0]
    worst = newest["columns"].index("worst ratio")
    for row in newest["rows"]:
        assert (f"{row[0]} (median" in block) == (float(row[worst]) > bench_pages.TARGET_WORST), row


def test_every_field_of_the_sweeps_stats_is_in_the_json_reference():
    # stats.sweep's fields (SweepStats.to_json, each set) are each named in the JSON reference
    from dataclasses import fields

    from tilesat.engines.sweep import SweepStats

    stats = SweepStats()
    for f in fields(stats):
        value = getattr(stats, f.name)
        setattr(stats, f.name, ["x"] if isinstance(value, list) else {"x": 1} if isinstance(value, dict)
                else "x" if value is None else value + 1)
    reference = (DOCS / "reference" / "json.md").read_text(encoding="utf-8")
    missing = [key for key in [*stats.to_json(), "found_by"] if f"`{key}`" not in reference]
    assert not missing, f"docs/reference/json.md does not name stats.sweep's {missing}"

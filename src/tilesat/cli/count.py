"""count and list: every tiling, counted or listed one by one."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..running.control import TimedOut
from ..engines.auto import method_help
from ..engines.base import Approx
from ..questions.count import CountRequest, ListRequest, count, list_tilings
from ..certify.schedule import certificate_mode
from ..sat.options import SatOptions
from ..errors import TilesatError, plural
from ..showing.words import count_text
from ..model.tiling import Tiling
from .groups import SAT, SOURCE, Group, Show, Source, outputs, with_groups
from .root import app
from .common import (EXIT_TIMEOUT, JsonOpt, Unshown, answered, check_outputs, _err, _out, friendly, in_colour, interrupted_exit,
                     print_line, run_limit, stderr_is_terminal)


CertificateOpt = Annotated[Optional[bool], typer.Option(
    "--certificate/--no-certificate", show_default=False,
    help="Look for a weighted colouring proving 'no tiling' (linear programming) before anything else "
         "(--certificate), or never (--no-certificate). By default: where it may pay (see info), in a child "
         "beside the count, which it stops when it proves the answer is 0.")]


CheckpointOpt = Annotated[Optional[Path], typer.Option(
    "--checkpoint", help="Record each finished unit of work in this file (flushed to disk as it ends); run the "
                         "same command again with it to skip the finished units. Refused if made for another "
                         "instance or method.")]


def _count_request(v: dict) -> CountRequest:
    split = v["checkpoint"] is not None or v["cluster"] is not None
    if v["break_symmetry"]:
        check_break_symmetry(v["up_to_symmetry"], v["method"], v["limit"], v["jobs"], split)
    return CountRequest("lexleader" if v["break_symmetry"] else v["method"], v["up_to_symmetry"], v["limit"], v["jobs"],
                        Approx(v["epsilon"], v["delta"]), certificate_mode(v["certificate"]), v["checkpoint"],
                        v["cluster"], v["address"])


BurrtoolsOpt = Annotated[bool, typer.Option(
    "--burrtools-count", help="A BurrTools file (FILE.xmpuzzle[:PROBLEM]): count its assemblies as BurrTools does "
                              "(rotations of the result once; mirror images once where every piece has its mirror "
                              "partner; copies of a shape interchangeable; variable voxels and colours included). "
                              "Without it a BurrTools problem counts as a tilesat instance: every assembly apart.")]
KeepMirrorsOpt = Annotated[bool, typer.Option(
    "--keep-mirrors", help="With --burrtools-count (implied): mirror images count apart, as BurrTools' 'keep mirror "
                           "solutions'.")]


#: count's options: how to count.
COUNT = Group({
    "method": (Annotated[str, typer.Option("--method", help=method_help("count"))], "auto"),
    "up_to_symmetry": (Annotated[bool, typer.Option("--up-to-symmetry", help="Also count classes under the board's rotations, reflections (and wrap shifts), by Burnside's lemma.")], False),
    "limit": (Annotated[Optional[int], typer.Option("--limit", min=1, help="Stop after N tilings and report 'at least N'.")], None),
    "jobs": (Annotated[int, typer.Option("--jobs", "-j", min=1, help="Split the work into independent cubes run in N processes.")], 1),
    "epsilon": (Annotated[float, typer.Option("--epsilon", help="approx: the estimate is within a factor (1 + epsilon) ...")], 0.8),
    "delta": (Annotated[float, typer.Option("--delta", help="approx: ... with probability at least 1 - delta.")], 0.2),
    "certificate": (CertificateOpt, None),
    "checkpoint": (CheckpointOpt, None),
    "cluster": (Annotated[Optional[str], typer.Option("--cluster", help="dask: run the units as tasks on a Dask cluster (a local one of --jobs workers, or the scheduler at --address). Needs the 'cluster' extra.")], None),
    "address": (Annotated[Optional[str], typer.Option("--address", help="With --cluster dask: a running scheduler (tcp://HOST:PORT) instead of a local cluster.")], None),
    "break_symmetry": (Annotated[bool, typer.Option("--break-symmetry", help="With --up-to-symmetry: lex-leader clauses for every symmetry leave one tiling per class, which blocking clauses enumerate; the raw count is the sum of the classes' sizes.")], False),
}, _count_request)


@app.command("count")
@friendly
@with_groups
def count_cmd(source: Source = SOURCE, request: CountRequest = COUNT, sat: SatOptions = SAT, as_json: JsonOpt = False,
              burrtools: BurrtoolsOpt = False, keep_mirrors: KeepMirrorsOpt = False):
    """Count the tilings (exactly, or an estimate with --method approx). Ctrl-C (exit 130) or --timeout (exit 124) prints the count so far as a lower bound."""
    if burrtools or keep_mirrors:
        from .burrtools import burrtools_count, check_burrtools_count

        check_burrtools_count(source, request, sat, COUNT.build({k: d for k, (_, d) in COUNT.options.items()}))
        burrtools_count(source, sat.timeout, keep_mirrors, as_json)
        return
    instance = source.load()
    progress = _count_progress(_err()) if not as_json and stderr_is_terminal() else Unshown()
    t0 = time.perf_counter()
    with progress, run_limit(sat.timeout):
        task = progress.add_task("counting", total=None, tilings=0, rate=0.0, expected="", left="")

        def report(tilings, done, total, forecast=None):
            elapsed = max(time.perf_counter() - t0, 1e-9)
            expected, left = "", ""
            if forecast is not None:  # Knuth's estimates of the units left (tilesat.questions.balance)
                expected = f" of ~{forecast['tilings']:,.0f}" if forecast.get("tilings") else ""
                left = f"~{_duration(forecast['seconds_left'])} left (estimated)"
            elif done and total:
                left = f"{_duration(elapsed / done * (total - done))} left"
            progress.update(task, tilings=tilings, completed=done, total=total, rate=tilings / elapsed,
                            expected=expected, left=left)

        result = count(instance, request, sat, report)
    if not result.interrupted:
        answered()  # a Ctrl-C from here neither cuts the count short nor says there was none
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        print_line(count_text(result))
        if result.certificate is not None:
            from .search import _show_certificate  # (and what it draws with)

            _show_certificate(instance, result.certificate)
    if result.interrupted:
        raise interrupted_exit()
    if result.timed_out:
        raise typer.Exit(EXIT_TIMEOUT)


def _count_progress(err):
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(SpinnerColumn(), TextColumn("counting: {task.fields[tilings]:,} tilings{task.fields[expected]}"),
                    TextColumn("{task.fields[rate]:,.0f}/s"), TextColumn("units {task.completed}/{task.total}"),
                    TimeElapsedColumn(), TextColumn("{task.fields[left]}"), console=err, transient=True)


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def check_break_symmetry(up_to_symmetry: bool, method: str, limit, jobs: int, split: bool = False) -> None:
    """count --break-symmetry: only where the count stays exact (see tilesat.sat.symbreak)."""
    if not up_to_symmetry:
        raise TilesatError("--break-symmetry counts one tiling per symmetry class: give --up-to-symmetry too")
    if method not in ("auto", "blocking"):
        raise TilesatError(f"--break-symmetry adds clauses that --method blocking enumerates; --method {method} does not use them")
    if limit is not None or jobs > 1 or split:
        raise TilesatError("--break-symmetry counts in one process, to the end: it cannot go with --limit, --jobs, "
                           "--checkpoint or --cluster")


def _list_request(v: dict) -> ListRequest:
    return ListRequest(v["method"], v["limit"], certificate_mode(v["certificate"]), v["checkpoint"])


#: list's options: how to list.
LIST = Group({
    "limit": (Annotated[Optional[int], typer.Option("--limit", min=1, help="List at most N tilings.")], None),
    "method": (Annotated[str, typer.Option("--method", help=method_help("list"))], "auto"),
    "certificate": (CertificateOpt, None),
    "checkpoint": (Annotated[Optional[Path], typer.Option(
        "--checkpoint", help="With --out: list unit by unit, recording each unit here once its tilings are "
                             "written; run the same command again to resume (nothing is written twice).")], None),
}, _list_request)


@app.command("list")
@friendly
@with_groups
def list_cmd(
    source: Source = SOURCE,
    request: ListRequest = LIST,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the tilings here instead of printing them, each as it is found: .csv (a row per cell: tiling, tile, piece, row, column), .tsv (a grid of tile numbers per tiling, for a spreadsheet), .txt (the letters of the piped output), else JSON (a tiling per line).")] = None,
    options: SatOptions = SAT,
    pictures: Show = outputs("svg", "png", "cell_size", "force"),
):
    """List tilings one by one (each verified); --svg/--png draw them side by side. Exit 130 on Ctrl-C, 124 at --timeout (what was listed stands)."""
    from ..showing.render import plain_rows, rich_tiling  # (rich: count prints one plain line)
    from ..showing.tiling_files import TilingWriter, tiling_format

    instance = source.load()
    if request.checkpoint is not None:
        _list_with_checkpoint(instance, request, options, out, pictures)
        return
    pictures.check(**{"--out": out})
    with run_limit(options.timeout):  # the whole listing, writing included
        tilings = list_tilings(instance, request, options)
        console = _out()
        found: list[Tiling] = []
        sink = writer = None
        timed_out = False
        try:
            if out is not None:
                sink = open(out, "w", newline="")
                writer = TilingWriter(instance, sink, tiling_format(out))
            try:
                for tiling in tilings:
                    found.append(tiling)
                    if writer is not None:
                        writer.write(tiling)
                        sink.flush()  # each tiling is complete as soon as it is found
                    else:
                        console.print(f"tiling {len(found)}", markup=False)
                        console.print(rich_tiling(instance, tiling) if in_colour(console) else "\n".join(plain_rows(instance, tiling)), markup=False)
                        console.print()
            except KeyboardInterrupt:
                _err().print(f"interrupted after {plural(len(found), 'tiling')}", markup=False)
                raise interrupted_exit() from None
            except TimedOut:
                timed_out = True
            finally:
                tilings.close()
        except OSError as e:
            if out is None:
                raise  # standard output: friendly says it (a closed pipe ends quietly, 141)
            raise TilesatError(f"cannot write {out}: {e.strerror or e}") from None
        finally:
            if sink is not None:
                with contextlib.suppress(OSError):  # a failed write is reported above; close() would retry it
                    sink.close()
    complete = tilings.complete and not timed_out
    if found:
        from ..showing.pictures import save_pictures  # list's --svg/--png (count draws nothing)

        titles = [f"tiling {k}" for k in range(1, len(found) + 1)] if len(found) > 1 else None
        save_pictures(instance, found, pictures.pictures, cell=pictures.cell, titles=titles)
    what = "all" if complete else "the first"
    why = f": no tiling exists ({tilings.reason})" if complete and not found and tilings.reason else ""
    _err().print(f"listed {what} {plural(len(found), 'tiling')}" + (f" to {out}" if out else "") + why
                 + (f" (time limit of {options.timeout:g} s reached)" if timed_out else ""), markup=False)
    if timed_out:
        raise typer.Exit(EXIT_TIMEOUT)


def _list_with_checkpoint(instance, request: ListRequest, options: SatOptions, out: Optional[Path],
                          pictures: Show) -> None:
    """list --out FILE --checkpoint C: unit by unit, each unit's tilings written
    and pushed to the disk before its record; a resume cuts the file back to
    the end of the last recorded unit (a unit cut short is listed again)."""
    from ..running.checkpoint import Checkpoint
    from ..questions.count import CHECKPOINT_UNITS, UnitListing, choose_list_method
    from ..model.instance import instance_digest
    from ..showing.tiling_files import tiling_format

    if out is None:
        raise TilesatError("--checkpoint needs --out FILE: the tilings are written there, unit by unit")
    if tiling_format(out) != "json":
        raise TilesatError(f"--checkpoint lists to JSON lines (a tiling per line, cut back by lines on resume): "
                           f"--out {out} asks for {tiling_format(out).upper()}; use a name ending in .jsonl")
    checkpoint, method = request.checkpoint, request.method
    if request.limit is not None or pictures.svg or pictures.png:
        raise TilesatError("--checkpoint lists every tiling to --out: it cannot go with --limit, --svg or --png")
    if method == "auto":
        method, _ = choose_list_method(instance, options)  # what a checkpoint records: the method that ran
    identity = {"instance": instance_digest(instance), "method": method,
                "out": os.path.realpath(out)}
    book = Checkpoint(checkpoint, "list", identity).open()
    if not book.exists:
        check_outputs({"--out": out}, pictures.force)
    elif not out.exists():
        raise TilesatError(f"checkpoint {checkpoint}: {out} is gone; delete the checkpoint to list again from the start")
    err = _err()
    listed = before = 0
    timed_out = False
    with run_limit(options.timeout):
        listing = UnitListing(instance, method, options=options, target=book.param("split", CHECKPOINT_UNITS))
        previous = book.begin(listing.units, listing.plan(), {"split": listing.target})
        end = max((r.get("offset", 0) for r in previous.values()), default=0)
        before = listed = sum(r.get("tilings", 0) for r in previous.values())
        try:
            sink = open(out, "r+b" if book.header and previous else "wb")
            if end > os.fstat(sink.fileno()).st_size:
                raise TilesatError(f"checkpoint {checkpoint}: {out} is shorter than the tilings it recorded; "
                                   "delete both to list again")
            sink.truncate(end)  # a unit cut short is listed again, from its start
            sink.seek(end)
        except OSError as e:
            book.close()
            raise TilesatError(f"cannot write {out}: {e.strerror or e}") from None
        try:
            n = 0
            for i, tiling in listing.stream([i for i in range(len(listing.units)) if i not in previous]):
                if tiling is not None:
                    sink.write((json.dumps(tiling.to_json()) + "\n").encode())
                    n += 1
                    continue
                sink.flush()
                os.fsync(sink.fileno())  # the unit's tilings on the disk before the record that says so
                listed += n
                book.add(i, listing.units[i], tilings=n, offset=sink.tell())
                n = 0
        except KeyboardInterrupt:
            err.print(f"interrupted after {plural(listed, 'tiling')} ({before} listed before); the same command resumes",
                      markup=False)
            raise interrupted_exit() from None
        except TimedOut:
            timed_out = True
        except OSError as e:
            raise TilesatError(f"cannot write {out}: {e.strerror or e}") from None
        finally:
            with contextlib.suppress(OSError):
                sink.close()
            book.close()
    what = "the first" if timed_out else "all"
    why = f": no tiling exists ({listing.reason})" if listing.reason and not listed else ""
    again = f", {before} of them before resuming" if before else ""
    _err().print(f"listed {what} {plural(listed, 'tiling')} to {out}{again}{why}"
                 + (f" (time limit of {options.timeout:g} s reached; the same command resumes)" if timed_out else ""),
                 markup=False)
    if timed_out:
        raise typer.Exit(EXIT_TIMEOUT)

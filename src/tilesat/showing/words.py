"""Answers in words, without rich: what a count prints (the command line's
plain output, the notebook's)."""

from __future__ import annotations

from ..errors import plural
from ..model.symmetry import describe_symmetries


def count_text(r) -> str:
    """A count in a sentence: how many tilings (and classes), by which method and why, how long."""
    if r.exact:
        amount = plural(r.count, "tiling")
    elif r.estimate and not (r.interrupted or r.timed_out):
        amount = (f"about {plural(r.count, 'tiling')} (ApproxMC estimate: within a factor {1 + r.estimate['epsilon']:g} "
                  f"of the true count with probability at least {1 - r.estimate['delta']:g})")
    else:
        stopped = "interrupted" if r.interrupted else ("time limit reached" if r.timed_out else "stopped at --limit")
        if r.uncounted:
            stopped += f"; what {plural(r.uncounted, 'unit')} running then had found is not included"
        amount = f"at least {plural(r.count, 'tiling')} ({stopped})"
    if r.group is not None and r.up_to_symmetry is not None:
        about = "" if r.exact else "about "
        amount += f", {about}{r.up_to_symmetry:,} up to symmetry ({describe_symmetries(r.group, r.grid)})"
    why = f"; {r.reason}" if r.reason else ""
    split = f", {plural(r.units, 'unit')} in {r.jobs} processes" if r.jobs > 1 else ""
    if r.cluster:
        split = f", {plural(r.units, 'unit')} on a Dask cluster of {plural(r.jobs, 'worker')}"
    if r.splits:
        split += f" ({r.splits} split where they stood)"
    if r.resumed:
        split += f" ({r.resumed} finished before, from the checkpoint)"
    return f"count: {amount}, by {r.method} ({r.why}){split}, {r.seconds:.3f} s{why}"

"""The compiled exact cover engine against a brute force, on random covers:
fixed and optional cells, shapes with count ranges, maxHoles; units, listing,
deadlines."""

import threading
import time

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from tilesat.engines.xcc import count, count_unit, make_cover, solutions, units


def brute(fixed, options, lo, hi, max_holes=-1):
    """Every set of options (tried in or out, one by one) that is an assembly."""
    found = []

    def walk(i, covered, used, chosen):
        if i == len(options):
            holes = sum(1 for c, f in enumerate(fixed) if not f and c not in covered)
            if (all(c in covered for c, f in enumerate(fixed) if f) and all(a <= u <= b for a, u, b in zip(lo, used, hi))
                    and (max_holes < 0 or holes <= max_holes)):
                found.append(tuple(chosen))
            return
        walk(i + 1, covered, used, chosen)
        s, cells, _ = options[i]
        if used[s] < hi[s] and not covered & set(cells):
            used[s] += 1
            walk(i + 1, covered | set(cells), used, chosen + [i])
            used[s] -= 1

    walk(0, set(), [0] * len(lo), [])
    return found


@st.composite
def covers(draw):
    n = draw(st.integers(1, 8))
    shapes = draw(st.integers(1, 3))
    fixed = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    raw = draw(st.lists(st.tuples(st.integers(0, shapes - 1), st.sets(st.integers(0, n - 1), min_size=1, max_size=3)),
                        max_size=12))
    options = sorted({(s, tuple(sorted(c))) for s, c in raw})
    lo = draw(st.lists(st.integers(0, 2), min_size=shapes, max_size=shapes))
    hi = [a + draw(st.integers(0, 2)) for a in lo]
    return fixed, [(s, list(c), None) for s, c in options], lo, hi, draw(st.sampled_from([-1, -1, 0, 1, 2]))


@given(covers())
# a piece branched on (no fixed cells): copies in another order are the same assembly
@example(([False, False, False], [(0, [0], None), (0, [1], None), (0, [2], None)], [2], [2], -1))
def test_count_equals_brute_force(case):
    fixed, options, lo, hi, max_holes = case
    cover = make_cover(fixed, options, lo, hi, max_holes)
    want = brute(fixed, options, lo, hi, max_holes)
    result = count(cover)
    assert result.exact and result.count == result.found == len(want)
    # the search's ways (lists or sparse sets, counts per level or counted back) count the same
    for lists in (0, 1):
        for snap_items in (0, 4096):
            assert count_unit(cover, search=cover.search(snap_items, lists)).count == len(want)
    # listing gives the same assemblies (option numbers, sorted)
    assert sorted(solutions(cover, batch=3)) == sorted(want)


@given(covers(), st.integers(1, 20))
# a search run before must not renumber a unit's branches (the sparse sets' order changes as they are used)
@example(([False, False], [(0, [0], None), (0, [1], None)], [1], [2], -1), 2)
def test_units_add_up(case, want_units):
    fixed, options, lo, hi, max_holes = case
    cover = make_cover(fixed, options, lo, hi, max_holes)
    search = cover.search()
    parts = units(cover, want_units, search)
    assert sum(count_unit(cover, path, search=search).count for path in parts) == count(cover).count
    assert len(set(parts)) == len(parts)


def many_covers():
    """A cover with many assemblies: 2 x n dominoes and monominoes, any number of each."""
    n = 40
    options = []
    for c in range(n):
        options.append((0, [2 * c, 2 * c + 1], None))  # a vertical domino
        if c + 1 < n:
            options.append((0, [2 * c, 2 * c + 2], None))  # horizontal ones
            options.append((0, [2 * c + 1, 2 * c + 3], None))
        options.append((1, [2 * c], None))
        options.append((1, [2 * c + 1], None))
    return make_cover([1] * (2 * n), options, [0, 0], [100, 100])


def test_deadline_stops_with_a_lower_bound():
    cover = many_covers()
    t = time.perf_counter()
    result = count_unit(cover, (), deadline=time.monotonic() + 0.2)
    assert time.perf_counter() - t < 1.5
    assert result.stopped == "timeout" and not result.exact and result.count > 0


def test_progress_comes_between_slices_and_the_count_is_the_same():
    cover = many_covers()
    seen = []
    result = count_unit(cover, (), deadline=time.monotonic() + 0.45, progress=seen.append)
    assert result.stopped == "timeout" and len(seen) >= 2  # slices of 0.1 s
    assert seen == sorted(seen) and 0 < seen[-1] <= result.count
    small = make_cover([1] * 12, [(0, [c, c + 1], None) for c in range(11)] + [(1, [c], None) for c in range(12)],
                       [0, 0], [100, 100])
    assert count_unit(small, (), progress=seen.append).count == count(small).count == 233  # Fibonacci: 1x12 strips


def test_stop_from_another_thread():
    cover = many_covers()
    search = cover.search()
    search.reset(np.zeros(0, np.int32))
    threading.Timer(0.2, search.stop).start()
    t = time.perf_counter()
    assert search.run() == "stopped"
    assert time.perf_counter() - t < 1.5 and search.count > 0
    # and it resumes where it stopped: the rest of the count follows
    before = search.count
    assert search.run(0, time.monotonic() + 0.2) in ("timeout", "done")
    assert search.count > before


def test_the_engine_stops_at_the_timeout_with_a_lower_bound():
    from pathlib import Path

    from tilesat.model.instance import load_instance
    from tilesat.questions.count import count_tilings

    instance = load_instance(Path(__file__).parent.parent / "instances" / "long-counts" / "pentomino-one-sided-5x18.txt")
    t = time.perf_counter()
    result = count_tilings(instance, "xcc", timeout=0.5, jobs=2)  # 686,628 tilings: far past 0.5 s
    assert time.perf_counter() - t < 3
    assert not result.exact and result.method == "xcc" and result.count < 686_628

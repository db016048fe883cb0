"""The studio's cost per request on the 6x6 L-Panel: check-unique through the
API (a fork of the warm forkserver per request) against the same command run
in-process (warm) and as a new process (what a shell loop pays).

Run from the repository: python scripts/bench_studio.py [N]   (medians of N runs, default 20)
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tilesat.studio.answers import INSTANCE, answer
from tilesat.studio.server import running
from tilesat.studio.worker import Call

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "instances" / "lpanel-6x6.txt"


def median_of(n, run) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def in_process():
    """What a request's process runs (tilesat.studio.answers), here in this process, warm."""
    with contextlib.redirect_stdout(io.StringIO()):
        answer(Call("check-unique", {}, limit=30.0))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    text = FILE.read_text()
    here = os.getcwd()
    folder = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    shutil.copy(FILE, folder / INSTANCE)
    os.chdir(folder)  # where a request's process answers: instance.txt
    try:
        in_process()  # the first run imports what the command needs
        warm = median_of(n, in_process)
    finally:
        os.chdir(here)
        shutil.rmtree(folder, ignore_errors=True)
    fresh = median_of(max(3, n // 4), lambda: subprocess.run([sys.executable, "-m", "tilesat", "check-unique", "--json", str(FILE)],
                                                            capture_output=True, check=False))
    with running() as url, httpx.Client() as client:
        ask = lambda: client.post(f"{url}/api/check-unique", json={"instance": text}, timeout=60).raise_for_status()  # noqa: E731
        ask()
        api = median_of(n, ask)
        noop = median_of(n, lambda: client.post(f"{url}/api/check-unique", json={"instance": text, "options": {"bad": 1}},
                                                timeout=60))
    print(f"6x6 L-Panel check-unique, medians of {n}:")
    print(f"  in-process (warm, as a request's process answers): {warm * 1000:7.1f} ms")
    print(f"  API request:                                {api * 1000:7.1f} ms   (overhead {1000 * (api - warm):.1f} ms: fork, files, HTTP)")
    print(f"  API request refused (400):                  {noop * 1000:7.1f} ms   (HTTP alone)")
    print(f"  new process (tilesat ...):                  {fresh * 1000:7.1f} ms")


if __name__ == "__main__":
    main()

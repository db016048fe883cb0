"""The studio's cost per request on the 6x6 L-Panel: check-unique through the
API (a fork of the warm forkserver per request) against the same command run
in-process (warm) and as a new process (what a shell loop pays).

Run from the repository: python scripts/bench_studio.py [N]   (medians of N runs, default 20)
"""

from __future__ import annotations

import contextlib
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tilesat.cli import common
from tilesat.studio.worker import cli_command
from tilesat.studio.server import running

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
    common.STARTED = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli_command().main(args=["check-unique", "--json", "--timeout", "30", str(FILE)], prog_name="tilesat")
        except SystemExit:
            pass


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    text = FILE.read_text()
    in_process()  # the first run imports what the command needs
    warm = median_of(n, in_process)
    fresh = median_of(max(3, n // 4), lambda: subprocess.run([sys.executable, "-m", "tilesat", "check-unique", "--json", str(FILE)],
                                                            capture_output=True, check=False))
    with running() as url, httpx.Client() as client:
        ask = lambda: client.post(f"{url}/api/check-unique", json={"instance": text}, timeout=60).raise_for_status()  # noqa: E731
        ask()
        api = median_of(n, ask)
        noop = median_of(n, lambda: client.post(f"{url}/api/check-unique", json={"instance": text, "options": {"bad": 1}},
                                                timeout=60))
    print(f"6x6 L-Panel check-unique, medians of {n}:")
    print(f"  in-process (warm, click command built once):        {warm * 1000:7.1f} ms")
    print(f"  API request:                                {api * 1000:7.1f} ms   (overhead {1000 * (api - warm):.1f} ms: fork, files, HTTP)")
    print(f"  API request refused (400):                  {noop * 1000:7.1f} ms   (HTTP alone)")
    print(f"  new process (tilesat ...):                  {fresh * 1000:7.1f} ms")


if __name__ == "__main__":
    main()

"""count --cluster dask (issue 19): a local Dask cluster of 2 workers gives
the serial counts (pentomino rectangles, up to symmetry too), survives a
worker killed in the middle, stops at once on SIGINT and resumes from its
checkpoint with the exact total; without Dask, one line says what to install.

Each test starts a local cluster (seconds): they are marked slow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
import psutil  # noqa: E402 - a dependency of distributed

from tilesat.questions.count import count_tilings  # noqa: E402
from tilesat.model.instance import load_instance  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def instance(name):
    return load_instance(ROOT / "instances" / name)


@pytest.mark.slow
@pytest.mark.parametrize("name, raw, classes", [("pentomino-6x10.txt", 9356, 2339),
                                                ("pentomino-5x12.txt", 4040, 1010)])
def test_a_local_cluster_counts_what_the_serial_run_counts(name, raw, classes):
    """Known answers (Haselgrove; Fletcher) and the serial run, with and without symmetry."""
    inst = instance(name)
    serial = count_tilings(inst, up_to_symmetry=True)
    assert (serial.count, serial.up_to_symmetry) == (raw, classes)
    on_dask = count_tilings(inst, up_to_symmetry=True, cluster="dask", jobs=2)
    assert (on_dask.count, on_dask.up_to_symmetry, on_dask.exact) == (raw, classes, True)
    assert on_dask.cluster == "dask" and on_dask.jobs == 2 and on_dask.units >= 40  # 20 per worker
    if name == "pentomino-5x12.txt":  # raw counts: orbit units weighted by their size
        plain = count_tilings(inst, cluster="dask", jobs=2, method="dlx")
        assert (plain.count, plain.exact, plain.method) == (raw, True, "dlx")


def _dask_workers() -> list[psutil.Process]:
    """This process's Dask worker processes (spawned by the local cluster's nannies)."""
    return [p for p in psutil.Process().children(recursive=True)
            if "spawn_main" in " ".join(p.cmdline())]


@pytest.fixture(autouse=True)
def no_worker_outlives_its_count():
    """A count's local cluster leaves no worker process behind (a nanny that
    restarted a killed worker once left two alive until the test run ended)."""
    yield
    left = [p for p in _dask_workers() if p.status() != psutil.STATUS_ZOMBIE]
    assert not left, f"Dask workers still running after the count: {left}"


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_still_gives_the_exact_count():
    inst = instance("pentomino-6x10.txt")
    killed = []

    def progress(tilings, done, total):
        if done >= 3 and not killed:  # some units done, others running
            workers = _dask_workers()
            if workers:
                workers[0].kill()
                killed.append(workers[0].pid)

    result = count_tilings(inst, up_to_symmetry=True, cluster="dask", jobs=2, progress=progress)
    assert killed, "no worker to kill"
    assert (result.count, result.up_to_symmetry, result.exact) == (9356, 2339, True)
    assert not psutil.pid_exists(killed[0]) or psutil.Process(killed[0]).status() == psutil.STATUS_ZOMBIE


@pytest.mark.slow
def test_sigint_stops_the_cluster_and_a_resume_gives_the_exact_count(tmp_path):
    ckpt = tmp_path / "c.json"
    args = [sys.executable, "-m", "tilesat", "count", str(ROOT / "instances" / "pentomino-6x10.txt"),
            "--cluster", "dask", "--jobs", "2", "--checkpoint", str(ckpt), "--up-to-symmetry"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    give_up = time.monotonic() + 180
    while time.monotonic() < give_up and proc.poll() is None:
        if ckpt.exists() and len(ckpt.read_text().splitlines()) >= 4:  # three units done
            break
        time.sleep(0.02)
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGINT)
    t = time.monotonic()
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the count finished before the interrupt (a very fast machine)")
    assert proc.returncode == 130, err
    assert time.monotonic() - t < 3, "the cluster took too long to stop"
    assert "interrupted" in out and "Traceback" not in err, err
    time.sleep(1)
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE], "workers left behind"
    done_before = len(ckpt.read_text().splitlines()) - 1
    r = subprocess.run(args + ["--json"], capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert (result["count"], result["up_to_symmetry"], result["exact"]) == (9356, 2339, True)
    assert result["resumed_units"] == done_before >= 3


def test_without_dask_one_line_says_what_to_install(tmp_path):
    code = ("import sys; sys.modules['distributed'] = None\n"  # as if it were not installed
            "from tilesat.cli import main; sys.argv = ['tilesat', 'count', sys.argv[1], '--cluster', 'dask']\n"
            "main()")
    r = subprocess.run([sys.executable, "-c", code, str(ROOT / "instances" / "pentomino-4x15.txt")],
                       capture_output=True, text=True, env=ENV)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ('error: --cluster dask needs the \'cluster\' extra: pip install "tilesat[cluster]"')


def test_cluster_options_are_checked_before_any_work():
    inst = instance("pentomino-4x15.txt")
    from tilesat.errors import TilesatError

    with pytest.raises(TilesatError, match="available: dask"):
        count_tilings(inst, cluster="ray")
    with pytest.raises(TilesatError, match="--address needs --cluster dask"):
        count_tilings(inst, address="tcp://127.0.0.1:8786")
    with pytest.raises(TilesatError, match="--limit"):
        count_tilings(inst, cluster="dask", limit=3)

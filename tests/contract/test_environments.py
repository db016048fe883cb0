"""What differs between a user's shell and a test's pipes: stderr a terminal
(progress bars and colours there) while stdout is piped, and a new machine
(matplotlib with no configuration or font cache yet)."""

import os
import subprocess
import threading

from .process import INSTANCES, user_environment, check_streams, document, tilesat, tilesat_command, verdict, Run


def _stderr_on_a_terminal(*args) -> tuple[Run, bytes]:
    """``tilesat ARGS 2>/dev/tty | ...``: stderr a pseudo-terminal, stdout a pipe."""
    master, slave = os.openpty()
    proc = subprocess.Popen(tilesat_command() + [str(a) for a in args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, env=user_environment({"TERM": "xterm-256color"}))
    os.close(slave)
    shown = []

    def read_terminal():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the last writer closed it
                return
            if not data:
                return
            shown.append(data)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    out, _ = proc.communicate(timeout=120)
    reader.join(5)
    os.close(master)
    return Run([str(a) for a in args], proc.returncode, out, b"", 0.0), b"".join(shown)


def test_progress_on_a_terminal_leaves_the_piped_document_alone():
    run, terminal = _stderr_on_a_terminal("check-unique", INSTANCES / "lpanel-gen-40x40.txt")
    check_streams(run)  # stdout: no colour or cursor code, nothing foreign
    lines = verdict(run, r"unique: exactly one tiling$", status=0)
    assert len(lines[1]) == 40 and lines[-1].startswith("grade: ")
    assert b"Traceback" not in terminal


def test_count_progress_on_a_terminal_and_json_on_the_pipe():
    run, terminal = _stderr_on_a_terminal("count", INSTANCES / "pentomino-3x20.txt", "--method", "dlx", "--json")
    check_streams(run)
    assert document(run, ("count", "exact"), status=0)["count"] == 8
    assert b"Traceback" not in terminal


def test_pictures_on_a_new_machine(tmp_path):
    """matplotlib with an empty configuration directory (no font cache yet) says nothing."""
    svg, png = tmp_path / "t.svg", tmp_path / "t.png"
    run = tilesat("check-unique", INSTANCES / "lpanel-4x8-multiple.txt", "--svg", svg, "--png", png,
                  env={"MPLCONFIGDIR": str(tmp_path / "mpl"), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    verdict(run, r"multiple: ", status=1)
    assert run.err == "" and svg.read_bytes().startswith(b"<?xml") and png.read_bytes()[:4] == b"\x89PNG"

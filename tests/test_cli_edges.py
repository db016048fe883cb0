"""The command line at its edges: unwritable outputs, failing or closed stdout,
usage errors.  Each ends in one line on stderr and a documented exit status,
never a traceback."""

import os
import string
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesat.cli import app
from tilesat.cli.common import check_outputs
from tilesat.errors import TilesatError

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
SMALL = INSTANCES / "lpanel-6x6.txt"
runner = CliRunner()


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


def one_error_line(result) -> str:
    """The run failed with exit 2 and said why in one line."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


# --- output paths, checked before any work --------------------------------------------------------


@pytest.mark.parametrize("option, name, wanted", [
    ("--png", "out", ".png"), ("--svg", "out", ".svg"), ("--png", "out.svg", ".png"), ("--svg", "out.png", ".svg"),
])
def test_picture_without_its_ending_is_refused_and_nothing_written(tmp_path, option, name, wanted):
    line = one_error_line(run("solve", SMALL, option, tmp_path / name))
    assert f"must end in {wanted}" in line
    assert list(tmp_path.iterdir()) == []


def test_plot_says_which_endings_it_accepts(tmp_path):
    line = one_error_line(run("compare", SMALL, "--plot", tmp_path / "times.jpg"))
    assert "must end in .png, .svg or .pdf" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["solve", SMALL, "--svg", "{dir}"],
    ["solve", SMALL, "--png", "{dir}"],
    ["generate", "--size", "6x6", "--out", "{dir}"],
    ["tromino", "2", "--out", "{dir}"],
    ["list", SMALL, "--out", "{dir}"],
    ["export", SMALL, "--output", "{dir}"],
])
def test_output_onto_a_directory_is_refused_even_with_force(tmp_path, args):
    target = tmp_path / "pictures.svg" if "--svg" in args else tmp_path / "pictures.png"
    target.mkdir()
    line = one_error_line(run(*[str(target) if a == "{dir}" else a for a in args], "--force"))
    assert "is a directory" in line


@pytest.mark.parametrize("args", [
    ["generate", "--size", "6x6", "--out", "missing/x.txt"],
    ["tromino", "2", "--out", "missing/x.txt"],
    ["solve", SMALL, "--png", "missing/x.png"],
])
def test_output_into_a_missing_directory_is_refused(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    assert "no such directory: missing" in one_error_line(run(*args))
    assert list(tmp_path.iterdir()) == []


def test_generate_into_a_missing_directory_fails_before_the_search(tmp_path, monkeypatch):
    import tilesat.reports.generate as generate  # what generate's command asks

    def no_search(*args, **kwargs):
        raise AssertionError("the generator ran although the output could not be written")

    monkeypatch.setattr(generate, "generate_puzzle", no_search)
    one_error_line(run("generate", "--size", "6x6", "--out", tmp_path / "missing" / "x.txt"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_output_into_a_read_only_directory_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert "permission denied" in one_error_line(run("generate", "--size", "6x6", "--out", locked / "x.txt"))


def test_a_file_name_too_long_is_one_line(tmp_path):
    line = one_error_line(run("solve", SMALL, "--svg", tmp_path / ("a" * 300 + ".svg")))
    assert "too long" in line.lower()


def test_two_outputs_onto_one_file_are_refused(tmp_path):
    line = one_error_line(run("list", SMALL, "--out", tmp_path / "a.png", "--png", tmp_path / "a.png"))
    assert "--out writes the same file" in line


def test_existing_output_is_kept_without_force(tmp_path):
    out = tmp_path / "board.txt"
    out.write_text("precious\n")
    assert "pass --force" in one_error_line(run("generate", "--size", "6x6", "--out", out))
    assert out.read_text() == "precious\n"
    assert run("generate", "--size", "6x6", "--out", out, "--force").exit_code == 0
    assert "expect: unique" in out.read_text()


@needs_dev_full
@pytest.mark.parametrize("args", [
    ["generate", "--size", "6x6", "--out", "{full}"],
    ["tromino", "3", "--out", "{full}"],
    ["solve", SMALL, "--svg", "{full}.svg"],
    ["check-unique", SMALL, "--png", "{full}.png"],
    ["list", SMALL, "--limit", "2", "--out", "{full}"],
])
def test_a_full_disk_after_the_work_is_one_line(tmp_path, args):
    # a name with the right ending that writes to /dev/full
    for suffix in ("", ".svg", ".png"):
        (tmp_path / f"full{suffix}").symlink_to("/dev/full")
    full = str(tmp_path / "full")
    line = one_error_line(run(*[a.replace("{full}", full) if isinstance(a, str) else a for a in args], "--force"))
    assert "cannot write" in line and "No space left on device" in line


@given(st.text(alphabet=string.ascii_letters + "./\\-_ \x01é", max_size=40),
       st.sampled_from(["--svg", "--png", "--plot", "--out"]), st.booleans())
def test_check_outputs_only_ever_raises_one_line_errors(name, option, force):
    # whatever the name, the checker answers with TilesatError or lets it through
    # with an ending that fits and a directory to write in
    base = Path(tempfile.gettempdir()) / "tilesat-check-outputs"
    (base / "sub").mkdir(parents=True, exist_ok=True)
    path = base / name
    try:
        check_outputs({option: path}, force)
    except TilesatError as e:
        assert "\n" not in str(e)
        return
    if option in ("--svg", "--png"):
        assert path.name.lower().endswith(option.replace("--", "."))
    assert path.parent.is_dir() and not path.is_dir()
    assert force or not os.path.lexists(path)


# --- the process: stdout failing or closed, usage errors, help ------------------------------------


def tilesat(*args, **kwargs) -> subprocess.CompletedProcess:
    """The real command, as a user runs it (exit statuses and pipes are the point)."""
    return subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kwargs)


def assert_one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@needs_dev_full
@pytest.mark.parametrize("args", [
    ["pieces"],
    ["check-unique", SMALL],
    ["check-unique", SMALL, "--json"],
    ["tromino", "3"],
    ["--help"],
])
def test_stdout_on_a_full_disk_is_one_line(args):
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "tilesat", *map(str, args)], stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=120)
    assert res.returncode == 2
    assert "No space left on device" in assert_one_error_line(res.stderr)


def run_into_closed_pipe(*args, read_lines: int = 0) -> subprocess.CompletedProcess:
    """Run tilesat with stdout a pipe that the reader closes after ``read_lines`` lines."""
    proc = subprocess.Popen([sys.executable, "-m", "tilesat", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    for _ in range(read_lines):
        assert proc.stdout.readline()
    proc.stdout.close()  # as `| head -N` does once it has its lines
    stderr = proc.stderr.read()
    return subprocess.CompletedProcess(proc.args, proc.wait(timeout=120), None, stderr)


@pytest.mark.parametrize("args", [
    ["check-unique", INSTANCES / "lpanel-12x12.txt"],  # unique: exit 0 if it could print, never 1
    ["check-unique", INSTANCES / "lpanel-12x12.txt", "--json"],
    ["pieces"],
    ["info", SMALL],
])
def test_a_closed_pipe_ends_quietly_with_141(args):
    res = run_into_closed_pipe(*args)
    assert res.returncode == 141, res.stderr
    assert res.stderr == ""


def test_head_after_one_line_ends_quietly_with_141():
    # 2^9 rows of 2^9 numbers: far more than a pipe holds, so the writer meets the closed pipe
    res = run_into_closed_pipe("tromino", "9", read_lines=1)
    assert res.returncode == 141, res.stderr
    assert "Traceback" not in res.stderr and "Broken pipe" not in res.stderr


def test_head_in_a_shell_pipeline():
    out = subprocess.run(["bash", "-c", f'"{sys.executable}" -m tilesat tromino 9 | head -1 >/dev/null; '
                                        'echo "${PIPESTATUS[0]}"'], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "141", out.stderr
    assert out.stderr == ""


@pytest.mark.parametrize("args, words", [
    (["count", SMALL, "--jobs", "0"], "--jobs"),
    (["count", SMALL, "--limit", "abc"], "--limit"),
    (["solve", SMALL, "--frobnicate"], "--frobnicate"),
    (["solve"], "Missing argument"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["tromino"], "Missing argument"),
])
def test_usage_errors_are_one_line(args, words):
    line = one_error_line(run(*args))
    assert words in line and line.endswith(" --help')")  # where to read more


def test_usage_error_from_the_real_command():
    res = tilesat("count", SMALL, "--jobs", "0")
    assert res.returncode == 2 and res.stdout == ""
    assert "--jobs" in assert_one_error_line(res.stderr)


@given(st.sampled_from(["--limit", "--jobs", "--epsilon", "--delta", "--timeout"]),
       st.text(alphabet=string.printable, min_size=1, max_size=12))
def test_any_option_value_gives_one_line_or_runs(option, value):
    # on a missing file: whatever the value, the answer is exactly one line 'error: ...' and exit 2
    res = run("count", "/nonexistent/board.txt", option, value)
    one_error_line(res)


def test_help_still_works_and_shows_flags_plainly():
    commands = ["solve", "check-unique", "count", "list", "pack", "compare", "export", "decode", "verify-proof",
                "generate", "tromino", "info", "pieces"]
    for args in [["--help"]] + [[c, "--help"] for c in commands]:
        res = run(*args)
        assert res.exit_code == 0, (args, res.output)
        assert "Usage" in res.output and "<bool>" not in res.output, (args, res.output)
    assert "--json " in run("solve", "--help").output


def test_no_command_shows_the_help_as_a_usage_error():
    res = run()
    assert res.exit_code == 2 and "Usage" in res.output and "check-unique" in res.output


def test_method_help_names_the_library_methods():
    from tilesat.questions.solve import SEARCH_METHODS

    text = " ".join(run("solve", "--help").output.split())
    assert all(name in text for name in SEARCH_METHODS)


def test_python_dash_m_and_version():
    res = tilesat("--version")
    assert res.returncode == 0 and res.stdout.startswith("tilesat ")

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
    import tilesat.cli.make as make

    def no_search(*args, **kwargs):
        raise AssertionError("the generator ran although the output could not be written")

    monkeypatch.setattr(make, "generate_unique", no_search)
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

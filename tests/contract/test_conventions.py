"""The command line's habits (issue 32), as a user meets them: ``-h``, shell
completion (typer's own), "did you mean" for a misspelt name, counts with
their nouns in the right number, symmetry groups in a few words, a line when
``--proof`` has nothing to prove, and a letter per tile on a terminal that
shows no colour (``NO_COLOR``, ``TERM=dumb``), as in piped output."""

from __future__ import annotations

import os
import pty
import re
import subprocess

import pytest

from tilesat.model.symmetry import describe_symmetries

from .process import INSTANCES, user_environment, document, expect, tilesat, tilesat_command, usage_error, verdict


@pytest.mark.parametrize("args", [["-h"], ["solve", "-h"], ["check-unique", "-h"], ["count", "-h"]])
def test_solve_dash_h_is_help(args):
    run = expect(tilesat(*args), 0)
    assert run.text.lstrip().startswith("Usage: tilesat")
    assert "--help" in run.text and "-h" in run.text
    assert run.text == expect(tilesat(*args[:-1], "--help"), 0).text


def test_check_unique_help_does_not_offer_what_it_refuses(boards):
    text = expect(tilesat("check-unique", "--help"), 0).text
    assert "--break-symmetry" not in text
    line = usage_error(tilesat("check-unique", INSTANCES / "lpanel-6x6.txt", "--break-symmetry"))
    assert "cannot tell 'unique' from 'multiple'" in line  # still refused, and why


def test_solve_shell_completion_is_typers():
    # typer's own completion options, shown in the help
    assert "--install-completion" in expect(tilesat("--help"), 0).text
    # the script for bash (shell detection off, as typer's own tests do, so that the shell is named)
    script = expect(tilesat("--show-completion", "bash", env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}), 0)
    assert "_tilesat_completion" in script.text and "_TILESAT_COMPLETE=complete_bash" in script.text
    # what the shell gets back: commands, options, and the values of a few options
    for words, cword, want in (("tilesat chec", 1, ["check-unique"]),
                               ("tilesat solve x --dr", 3, ["--draw"]),
                               ("tilesat solve x -s cad", 4, ["cadical195"]),
                               ("tilesat solve x --draw ", 4, ["puzzle", "solution", "both"])):
        env = {"COMP_WORDS": words, "COMP_CWORD": str(cword), "_TILESAT_COMPLETE": "complete_bash"}
        got = expect(tilesat(env=env), 0).text.split()
        assert set(want) <= set(got), (words, got)


def test_solve_install_completion_writes_to_the_users_shell_files(tmp_path):
    env = {"HOME": str(tmp_path), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    run = expect(tilesat("--install-completion", "bash", env=env), 0)
    assert "bash completion installed" in run.text
    assert "tilesat" in (tmp_path / ".bashrc").read_text()


@pytest.mark.parametrize("args, suggestion", [
    (["-s", "cadical"], "(did you mean 'cadical195'?)"),
    (["-e", "pairwse"], "(did you mean 'pairwise'?)"),
    (["--card", "totaliser"], "(did you mean 'totalizer'?)"),
    (["--pieces", "L44"], "(did you mean 'L4'?)"),
    (["--pieces", "pentominos:1"], "(did you mean 'pentominoes'?)"),
    (["--draw", "puzle", "--svg", "x.svg"], "(did you mean 'puzzle'?)"),
])
def test_solve_suggests_the_name_meant(args, suggestion, tmp_path):
    line = usage_error(tilesat("solve", INSTANCES / "lpanel-6x6.txt", *args, cwd=tmp_path))
    assert suggestion in line


def test_solve_suggests_grid_and_header_names(tmp_path):
    (tmp_path / "a.txt").write_text("grid: hexx\npieces: I2\n..\n")
    assert "(did you mean 'hex'?)" in usage_error(tilesat("solve", tmp_path / "a.txt"))
    (tmp_path / "b.txt").write_text("piece: I2\n..\n")
    assert "(did you mean 'pieces'?)" in usage_error(tilesat("solve", tmp_path / "b.txt"))


def test_solve_no_suggestion_for_a_name_far_from_all():
    line = usage_error(tilesat("solve", INSTANCES / "lpanel-6x6.txt", "-s", "qqqqqqq"))
    assert "did you mean" not in line


def test_count_says_one_tiling_not_one_tilings(boards, tmp_path):
    line = verdict(tilesat("count", INSTANCES / "lpanel-6x6.txt"), r"count: 1 tiling, ", 0)[0]
    assert "1 tilings" not in line
    run = expect(tilesat("list", INSTANCES / "lpanel-6x6.txt"), 0)
    assert run.err.strip() == "listed all 1 tiling"
    run = expect(tilesat("export-family", "mutilated", "--sizes", "4", "--out", tmp_path / "fam"), 0)
    assert re.search(r"^wrote 1 instance and ", run.err, re.M), run.err


def test_solve_says_one_tile(tmp_path):
    (tmp_path / "one.txt").write_text("pieces: L4\n#.\n#.\n..\n")
    assert verdict(tilesat("solve", tmp_path / "one.txt"), "solved: a tiling with 1 tile$", 0)


@pytest.mark.parametrize("name, words", [
    ("pentomino-6x10.txt", "the 4 symmetries of the rectangle"),
    ("soma-cube.txt", "the 48 symmetries of the cube"),
])
def test_count_names_the_symmetry_group_in_a_few_words(name, words):
    line = verdict(tilesat("count", INSTANCES / name, "--up-to-symmetry"), "count: ", 0)[0]
    assert f"up to symmetry ({words})" in line
    assert "rotation 1" not in line and "group of order" not in line


@pytest.mark.parametrize("names, grid, words", [
    (["identity"], "square", "the identity alone"),
    (["identity", "rotate 180"], "square", "the identity and the half turn"),
    (["identity", "rotate 180", "flip rows", "flip columns", "rotate 90", "rotate 270", "transpose", "anti-transpose"],
     "square", "the 8 symmetries of the square"),
    (["identity", "rotate 180", "transpose", "anti-transpose"], "square",
     "4 symmetries: 2 rotations (the identity among them) and 2 reflections"),
    (["identity", "rotate 180", "rotate 90", "rotate 270"], "square", "4 rotations"),
    (["identity"] + [f"rotation {k}" for k in range(1, 24)] + [f"reflection {k}" for k in range(24, 48)], "cube",
     "the 48 symmetries of the cube"),
    ([f"{p}{s}" for p in ("identity", "rotate 180") for s in ("", " + shift 0,1", " + shift 0,2")], "square",
     "6 symmetries: the identity and the half turn, each with 3 wrap shifts"),
])
def test_count_symmetry_words(names, grid, words):
    assert describe_symmetries(names, grid) == words


def test_check_unique_proof_with_nothing_to_prove(tmp_path):
    run = expect(tilesat("check-unique", INSTANCES / "lpanel-4x8-multiple.txt", "--proof", tmp_path / "p"), 1)
    assert run.err.splitlines() == [f"note: --proof {tmp_path / 'p'}: nothing written: two tilings are their own proof "
                                    "(shown), there is no unsatisfiability to prove"]
    assert not (tmp_path / "p").exists()
    run = expect(tilesat("solve", INSTANCES / "lpanel-6x6.txt", "--proof", tmp_path / "q"), 0)
    assert "nothing written: a tiling is its own proof" in run.err and not (tmp_path / "q").exists()


def _on_a_terminal(args, env) -> bytes:
    """tilesat ARGS with stdout on a pseudo-terminal (stderr a pipe): what the terminal shows."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(tilesat_command() + [str(a) for a in args], stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=subprocess.PIPE, env=user_environment({"COLUMNS": "100", **env}))
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed: the process ended
            break
        if not chunk:
            break
        shown += chunk
    proc.wait(60)
    os.close(master)
    assert proc.returncode == 0, proc.stderr.read()
    return shown


@pytest.mark.parametrize("env", [{"NO_COLOR": "1", "TERM": "xterm-256color"}, {"TERM": "dumb"}])
def test_solve_on_a_colourless_terminal_shows_a_letter_per_tile(env):
    shown = _on_a_terminal(["solve", INSTANCES / "lpanel-6x6.txt"], env)
    lines = shown.decode().replace("\r\n", "\n").split("\n")
    first = lines.index("solved: a tiling with 6 tiles")
    rows = lines[first + 1 : first + 7]
    piped = expect(tilesat("solve", INSTANCES / "lpanel-6x6.txt"), 0).text.splitlines()[1:7]
    assert rows == piped  # the same letters as piped output: one per tile, neighbours differ
    assert len({ch for row in rows for ch in row} - {"#"}) >= 4
    assert "\x1b[4" not in shown.decode()  # no background colours


def test_solve_on_a_colour_terminal_still_draws_colours():
    shown = _on_a_terminal(["solve", INSTANCES / "lpanel-6x6.txt"], {"TERM": "xterm-256color"}).decode()
    assert re.search(r"\x1b\[[0-9;]*4\dm", shown)  # tiles on coloured backgrounds


@pytest.mark.parametrize("pieces, method, encoding, solver", [
    ("I2", "auto", False, False),  # pfaffian: a determinant, no formula
    ("L3", "native", False, False),
    ("L3", "ganak", True, False),  # a model counter: the CNF's encoding, no SAT solver
    ("L3", "blocking", True, True),
])
def test_count_json_names_only_the_sat_options_the_method_uses(tmp_path, pieces, method, encoding, solver):
    (tmp_path / "b.txt").write_text(f"pieces: {pieces}\n" + "......\n" * 4)
    data = document(tilesat("count", tmp_path / "b.txt", "--method", method, "--json"), status=0)
    assert (data["encoding"] is not None, data["solver"] is not None) == (encoding, solver), data
    if solver:
        assert data["solver"] == "cadical195"

"""The engine protocol: one registry, auto's one table of rules, and a plugin
engine (examples/strip_engine.py) that auto picks where its estimate wins."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tilesat import parse_instance
from tilesat.engines import auto, registry
from tilesat.engines.base import QUESTIONS, Engine, Job
from tilesat.errors import TilesatError
from tilesat.questions.count import count_tilings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from strip_engine import STRIP  # noqa: E402


def strip(rows, cols, blocked=()):
    lines = ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]
    return parse_instance("pieces: domino\n" + "\n".join(lines) + "\n")


def fibonacci_tilings(n):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b
    return b


@pytest.fixture
def plugin():
    registry.register(STRIP)
    yield STRIP
    registry.unregister(STRIP.name)


class Rival(Engine):
    """A second plugin with a lower estimate than the strip engine's."""

    name = "rival"
    questions = frozenset({"count"})
    whole = True

    def estimate(self, job):
        return 1e-9

    def count_unit(self, ctx, unit, on_tiling=lambda: None, limit=None):
        return STRIP.count_unit(ctx, unit)


def test_every_engine_answers_known_questions_and_every_question_has_engines():
    for name, engine in registry.engines().items():
        assert engine.name == name and engine.questions and set(engine.questions) <= set(QUESTIONS), name
        assert set(engine.uses) <= {"encoding", "solver", "card"} and engine.summary, name
    for question in QUESTIONS:
        names = registry.method_names(question)
        assert names[0] == "auto" and len(names) > 2
        # the table ends with a rule that always applies: auto always has an answer
        last = [rule for rule in auto.RULES if rule.question == question][-1]
        assert last.when == "otherwise" and last.engine in names


def test_the_registry_says_what_each_built_in_engine_says_of_itself():
    """The method lists and their help come from registry.BUILTIN without importing the engines:
    each engine object must give the same name, questions and summary."""
    import importlib

    for name, entry in registry.BUILTIN.items():
        module, _, attribute = entry.where.partition(":")
        engine = getattr(importlib.import_module(module), attribute)
        assert (engine.name, engine.questions, engine.summary) == (name, entry.questions, entry.summary), name
        assert registry.get_engine(name) is engine
    for question in QUESTIONS:
        assert registry.summaries(question) == {name: e.summary for name, e in registry.engines(question).items()}


def test_the_help_is_the_rules_own_words():
    for question in QUESTIONS:
        text = auto.method_help(question)
        for rule in auto.RULES:
            if rule.question == question:
                assert f"{rule.engine} {rule.when}" in text
        assert all(name in text for name in registry.method_names(question))
    table = auto.rules_markdown()
    assert table.count("\n") == len(auto.RULES) + 1


def test_auto_explains_its_choice_by_the_rule_that_applied():
    engine, why = auto.choose(Job("count", strip(2, 10)))
    assert engine.name == "pfaffian" and why.startswith("dominoes on a planar board")


def test_a_plugin_engine_is_picked_where_its_estimate_wins(plugin):
    instance = strip(2, 10)
    engine, why = auto.choose(Job("count", instance))
    assert engine is STRIP and "estimate" in why and "pfaffian" in why
    result = count_tilings(instance)
    assert (result.method, result.count, result.exact) == ("strip", fibonacci_tilings(10), True)
    assert count_tilings(instance, "pfaffian").count == result.count  # the engines agree
    assert count_tilings(strip(10, 2), "dlx").count == result.count


def test_a_plugin_engine_is_not_picked_where_it_cannot_answer_or_loses(plugin):
    holed = strip(2, 10, blocked={(0, 0), (1, 0)})
    assert auto.choose(Job("count", holed))[0].name == "pfaffian"  # not a whole strip
    assert auto.choose(Job("count", strip(2, 10), up_to_symmetry=True))[0].name != "strip"  # no estimate for classes
    classes = count_tilings(strip(2, 10), up_to_symmetry=True)
    assert classes.method != "strip" and classes.up_to_symmetry == count_tilings(strip(2, 10), "dlx", up_to_symmetry=True).up_to_symmetry
    registry.register(Rival())
    try:
        engine, why = auto.choose(Job("count", strip(2, 10)))
        assert engine.name == "rival" and "beats pfaffian" in why
    finally:
        registry.unregister("rival")
    with pytest.raises(TilesatError, match="--method strip: a whole 2-by-n strip only"):
        count_tilings(holed, "strip")


def test_built_in_names_cannot_be_taken():
    class Impostor(Engine):
        name = "dlx"
        questions = frozenset({"count"})

    with pytest.raises(TilesatError, match="built-in"):
        registry.register(Impostor())


def test_an_installed_engine_is_found_by_its_entry_point(tmp_path):
    # an "installed package": a dist-info directory with an entry point, on sys.path
    info = tmp_path / "strip_engine_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: strip-engine-demo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tilesat.engines]\nstrip = strip_engine:STRIP\n")
    board = tmp_path / "strip.txt"
    board.write_text("pieces: domino\n" + "..........\n" * 2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "examples")])}
    run = subprocess.run([sys.executable, "-m", "tilesat", "count", str(board), "--json"], capture_output=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert (data["method"], data["count"]) == ("strip", 89) and "estimate" in data["why"]
    run = subprocess.run([sys.executable, "-m", "tilesat", "count", "--help"], capture_output=True, text=True,
                         env={**env, "COLUMNS": "400"}, timeout=300)
    assert "strip = domino tilings of a whole 2-by-n strip" in " ".join(run.stdout.split())

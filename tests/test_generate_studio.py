"""The studio's /api/generate: generate --json passed through, difficulty included
(against a real uvicorn, as tests/test_studio.py)."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from typer.testing import CliRunner

from tilesat.cli import app, common
from tilesat.making.grade import grade
from tilesat.model.instance import parse_instance
from tilesat.studio.server import running

DROPPED = ("message", "seconds")  # what differs between two runs: the time taken


@pytest.fixture(scope="module")
def url():
    with running(time_limit=20.0, max_cells=2_500, max_running=2) as address:
        yield address


def _same(data: dict) -> dict:
    return {k: ({**v, "seconds": 0} if k == "grade" else v) for k, v in data.items() if k not in DROPPED}


def test_api_generate_is_the_clis_json_with_the_grade(url, monkeypatch):
    answer = httpx.post(f"{url}/api/generate", json={"options": {"size": "10x10", "seed": 4, "difficulty": "medium"}},
                        timeout=60)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    monkeypatch.setattr(common, "STARTED", time.perf_counter())  # --timeout counts from the command's start, not pytest's (its first run)
    cli = CliRunner().invoke(app, ["generate", "--size", "10x10", "--seed", "4", "--difficulty", "medium",
                                   "--json", "--timeout", "20"])
    assert cli.exit_code == 0, cli.output
    assert _same(data) == _same(json.loads(cli.stdout))
    assert data["grade"]["grade"] == "medium" == grade(parse_instance(data["instance"])).grade
    assert data["message"].startswith("generated a unique 10x10 board")


def test_api_generate_refuses_a_bad_difficulty_in_one_line(url):
    answer = httpx.post(f"{url}/api/generate", json={"options": {"size": "8x8", "difficulty": "brutal"}}, timeout=60)
    assert answer.status_code == 400 and answer.json()["error"].startswith("--difficulty 'brutal'")

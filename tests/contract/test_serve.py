"""tilesat serve as a real process: it says where it listens, answers its JSON API,
and Ctrl-C stops it (exit 130) with nothing left running."""

import json
import os
import re
import select
import socket
import time
import urllib.error
import urllib.request

from .process import finish, start, tilesat, usage_error

BOARD = "pieces: L4\n.##\n...\n...\n.##\n"  # two L-tetrominoes, one way


def _first_line_of_stderr(proc, within: float = 60.0) -> str:
    """Read stderr until its first line, without blocking past ``within`` seconds."""
    data, give_up = b"", time.monotonic() + within
    while b"\n" not in data and time.monotonic() < give_up and proc.poll() is None:
        ready, _, _ = select.select([proc.stderr], [], [], 0.1)
        if ready:
            data += os.read(proc.stderr.fileno(), 4096)
    return data.decode()


def _post(url: str, body: dict, within: float = 60.0):
    """POST JSON; the server may still be starting (it says where it listens first)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    give_up = time.monotonic() + within
    while True:
        try:
            with urllib.request.urlopen(request, timeout=within) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except urllib.error.URLError as e:
            if not isinstance(e.reason, ConnectionRefusedError) or time.monotonic() > give_up:
                raise
            time.sleep(0.1)


def test_serve_answers_json_and_stops_on_ctrl_c():
    started = time.perf_counter()
    proc = start("serve", "--port", "0")
    try:
        said = _first_line_of_stderr(proc)
        m = re.fullmatch(r"tilesat studio at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)\n", said)
        assert m, said
        status, body = _post(m.group(1) + "api/check-unique", {"instance": BOARD, "options": {"encoding": "pairwise"}})
        assert status == 200
        data = json.loads(body)
        assert data["verdict"] == "unique" and len(data["tilings"][0]) == 2
        status, body = _post(m.group(1) + "api/count", {"instance": BOARD, "options": {"method": "nope"}})
        assert status == 400 and json.loads(body)["error"].startswith("unknown count method 'nope'")
    finally:
        proc.send_signal(2)  # SIGINT, as Ctrl-C
    run = finish(proc, ["serve", "--port", "0"], started)  # and nothing of the studio's left running
    assert run.status == 130 and run.out == b"", run.describe()
    assert run.err == "studio stopped\n", run.describe()  # the first line was read above


def test_serve_on_a_taken_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        usage_error(tilesat("serve", "--port", port), f"cannot listen on 127.0.0.1:{port}")

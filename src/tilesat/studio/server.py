"""The studio's web application: the page, and a JSON API that runs the CLI.

Every ``POST /api/<command>`` takes ``{"instance": "<instance file text>",
"options": {...}}``; the options are a whitelist per command (each becomes one
command-line option; nothing names a file, a plugin or an external solver),
and the answer is exactly the JSON ``tilesat <command> --json`` prints.  Bad
input is HTTP 400 ``{"error": "<the CLI's one line, without 'error: '>"}``.
See the README's "The studio" for the whole API.

Limits on what one request may cost: the body (:data:`MAX_BODY`), the board
(``max_cells``), the run's time (``time_limit``: the command's ``--timeout``,
then a kill), count's ``--jobs`` (always 1), and how many commands run at once
(``max_running``; more wait their turn).  A request whose client disconnects
(the page aborts it when the board changes again) has its process killed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import socket
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .worker import Outcome, run_command

STATIC = Path(__file__).parent / "static"

#: Largest request body accepted (an instance file of a 100x100 board is ~10 kB).
MAX_BODY = 1 << 20
#: Defaults of ``tilesat serve``.
TIME_LIMIT, MAX_CELLS, MAX_RUNNING = 30.0, 10_000, 4
#: Seconds the requests in flight get to finish when the server stops; then their runs are killed.
SHUTDOWN_GRACE = 2

_WORD = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # names from the registries: no ':' (plugins, ext: solvers), no '/'
_SIZE = re.compile(r"^(\d{1,5})[xX](\d{1,5})$")


class BadRequest(Exception):
    """A request the studio refuses before running anything (HTTP 400 or 413)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# -- options: a whitelist per command; each kind checks the value and makes the argv words ----------

def _word(flag):
    def make(name, value):
        if not isinstance(value, str) or not _WORD.match(value):
            raise BadRequest(f"option {name!r}: give a name of letters, digits, '-' or '_'")
        return [flag, value]
    return make


def _text(flag, longest=2000):
    def make(name, value):
        if not isinstance(value, str) or not value.strip() or len(value) > longest or "\n" in value or "\0" in value:
            raise BadRequest(f"option {name!r}: give one line of text (at most {longest} characters)")
        return [flag, value]
    return make


def _flag(flag):
    def make(name, value):
        if not isinstance(value, bool):
            raise BadRequest(f"option {name!r}: give true or false")
        return [flag] if value else []
    return make


def _either(yes, no):
    def make(name, value):
        if value is None:
            return []
        if not isinstance(value, bool):
            raise BadRequest(f"option {name!r}: give true, false or null")
        return [yes if value else no]
    return make


def _number(flag, kind, low, high):
    def make(name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
            raise BadRequest(f"option {name!r}: give {'a whole number' if kind is int else 'a number'}")
        if not low <= value <= high:
            raise BadRequest(f"option {name!r}: must be between {low:g} and {high:g}")
        return [flag, str(value)]
    return make


def _size(name, value):
    if not isinstance(value, str) or not _SIZE.match(value.strip()):
        raise BadRequest(f"option {name!r}: use ROWSxCOLS, e.g. 12x12")
    return ["--size", value.strip()]


_SAT = {"encoding": _word("--encoding"), "solver": _word("--solver"), "card": _word("--card")}
_BOARD = {"pieces": _text("--pieces"), "wrap": _word("--wrap")}
_SEARCH = {"method": _word("--method"), **_SAT, **_BOARD, "certificate": _either("--certificate", "--no-certificate")}
OPTIONS = {
    "check-unique": _SEARCH,
    "solve": _SEARCH,
    "count": {"method": _word("--method"), "up_to_symmetry": _flag("--up-to-symmetry"),
              "limit": _number("--limit", int, 1, 10**12), **_SAT, **_BOARD,
              "epsilon": _number("--epsilon", float, 1e-3, 100), "delta": _number("--delta", float, 1e-3, 0.999)},
    "generate": {"size": _size, "pieces": _text("--pieces"), "seed": _number("--seed", int, 0, 2**63 - 1),
                 "blocked": _number("--blocked", int, 0, 10**6), "difficulty": _word("--difficulty")},
    "export": {"encoding": _word("--encoding"), "card": _word("--card"), **_BOARD},
    "explain": {**_BOARD, "repairs": _number("--repairs", int, 0, 10)},
}
#: Options the studio handles itself: the pictures returned with the JSON, the time limit.
PICTURES = {"check-unique": ("svg", "png"), "solve": ("svg", "png")}


def command_line(command: str, options: dict, time_limit: float) -> tuple[list[str], list[str], float]:
    """The argv for ``tilesat`` (file arguments are ``instance.txt`` in the
    request's directory), the output files to collect, and the time limit."""
    if not isinstance(options, dict):
        raise BadRequest("'options' must be an object")
    known = OPTIONS[command]
    pictures = PICTURES.get(command, ())
    argv, outputs = [command], []
    if command not in ("generate",):
        argv.append("instance.txt")
    if command in ("check-unique", "solve", "count", "generate", "explain"):
        argv.append("--json")
    limit = time_limit
    for name, value in options.items():
        if name == "timeout" and command != "export":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value:
                raise BadRequest("option 'timeout': give a number of seconds above 0")
            limit = min(float(value), time_limit)
        elif name in pictures:
            if not isinstance(value, bool):
                raise BadRequest(f"option {name!r}: give true or false")
            if value:
                argv += [f"--{name}", f"tiling.{name}"]
                outputs.append(f"tiling.{name}")
        elif name in known:
            argv += known[name](name, value)
        else:
            extra = ["timeout"] if command != "export" else []
            raise BadRequest(f"unknown option {name!r} for {command}; known: {', '.join(sorted([*known, *pictures, *extra]))}")
    if command == "export":
        argv += ["--output", "formula.cnf"]
        outputs.append("formula.cnf")
    else:
        argv += ["--timeout", f"{limit:g}"]
    return argv, outputs, limit


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _read_body(request: Request) -> dict:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise BadRequest(f"the request is larger than {MAX_BODY:,} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(f"the request is larger than {MAX_BODY:,} bytes", 413)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest('the request body must be an object: {"instance": "...", "options": {...}}')
    return data


def _answer(command: str, outcome: Outcome, limit: float) -> Response:
    if outcome.stopped == "time limit":
        return _error(f"stopped: the command did not end within its time limit of {limit:g} s", 504)
    if outcome.stopped:
        return Response(status_code=499)  # nobody is listening any more
    if outcome.status == 2:
        return _error(outcome.error_line())
    if command == "generate":
        if outcome.status in (0, 124) and outcome.stdout.strip():
            return Response(outcome.stdout, media_type="application/json")  # generate --json, as printed
    elif command == "export":
        if outcome.status == 0 and "formula.cnf" in outcome.files:
            return JSONResponse({"dimacs": outcome.files["formula.cnf"].decode("utf-8"), "message": outcome.stderr.strip()})
    elif outcome.status in (0, 1, 3, 124) and outcome.stdout.strip():
        if not outcome.files:  # byte for byte what the CLI printed
            return Response(outcome.stdout, media_type="application/json")
        data = json.loads(outcome.stdout)
        for name, content in sorted(outcome.files.items()):
            kind = name.rsplit(".", 1)[1]
            data[kind] = content.decode("utf-8") if kind == "svg" else base64.b64encode(content).decode("ascii")
        return JSONResponse(data)
    return _error(f"the command failed: {outcome.error_line()}", 500)


def create_app(time_limit: float = TIME_LIMIT, max_cells: int = MAX_CELLS, max_running: int = MAX_RUNNING,
               max_memory: int | None = None) -> Starlette:
    """The studio as an ASGI application (``tilesat serve`` runs it with uvicorn).
    ``max_memory``: bytes, passed on as each command's ``--max-memory``."""
    slots = asyncio.Semaphore(max_running)
    running = {"now": 0, "done": 0}

    async def api(request: Request) -> Response:
        command = request.path_params["command"]
        if command not in OPTIONS:
            return _error(f"unknown command {command!r}; the API has {', '.join(sorted(OPTIONS))}", 404)
        try:
            data = await _read_body(request)
            unknown = set(data) - {"instance", "options"}
            if unknown:
                raise BadRequest(f"unknown field(s) {', '.join(sorted(unknown))}: give 'instance' and 'options'")
            files = {}
            if command != "generate":
                text = data.get("instance")
                if not isinstance(text, str) or not text.strip():
                    raise BadRequest("'instance' must be the text of an instance file")
                files["instance.txt"] = text
            argv, outputs, limit = command_line(command, data.get("options") or {}, time_limit)
            if max_memory is not None:
                argv = ["--max-memory", str(max_memory)] + argv
            if command == "generate":
                m = _SIZE.match(next((argv[i + 1] for i, a in enumerate(argv) if a == "--size"), "") or "")
                if m is None:
                    raise BadRequest("option 'size' is required, e.g. \"12x12\"")
                if int(m.group(1)) * int(m.group(2)) > max_cells:
                    raise BadRequest(f"--size {m.group(0)}: the studio takes at most {max_cells:,} cells (tilesat serve --max-cells)")
        except BadRequest as e:
            return _error(str(e), e.status)
        async with slots:
            if await request.is_disconnected():
                return Response(status_code=499)
            running["now"] += 1
            try:
                outcome = await run_command(argv, files, outputs, limit, gone=request.is_disconnected,
                                            max_cells=max_cells)
            finally:
                running["now"] -= 1
                running["done"] += 1
        return _answer(command, outcome, limit)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def status(request: Request) -> Response:
        return JSONResponse({"running": running["now"], "finished": running["done"],
                             "limits": {"time_limit": time_limit, "max_cells": max_cells, "max_body": MAX_BODY,
                                        "max_running": max_running, "max_memory": max_memory}})

    async def pieces(request: Request) -> Response:
        return JSONResponse(_pieces())

    routes = [
        Route("/", index),
        Route("/api/status", status),
        Route("/api/pieces", pieces),
        Route("/api/{command}", api, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


def _pieces() -> dict:
    """The built-in pieces the page offers (cells as drawn) and the sets."""
    from ..pieces import SET_SIZES, builtin_names, builtin_piece, piece_set

    return {
        "pieces": {name: sorted(builtin_piece(name).cells) for name in builtin_names()},
        "sets": {name: ([p.name for p in piece_set(name)] if n <= 5 else None) for name, n in SET_SIZES.items()},
    }


@contextlib.contextmanager
def running(host: str = "127.0.0.1", port: int = 0, wrap=None, **limits):
    """The studio served by uvicorn in a thread of this process, for tests and
    scripts: yields its URL; stopped on leaving.  Starts the forkserver first.
    ``wrap``: a function of the ASGI app returning the app to serve (a test's middleware)."""
    import threading

    import uvicorn

    from .worker import start_forkserver

    start_forkserver()
    with socket.socket() as probe:  # a free port, when 0
        probe.bind((host, port))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config((wrap or (lambda a: a))(create_app(**limits)), host=host, port=port, log_level="warning",
                                        timeout_graceful_shutdown=SHUTDOWN_GRACE))
    thread = threading.Thread(target=server.run, name="tilesat-studio", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the studio's server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)

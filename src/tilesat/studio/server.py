"""The studio's web application: the page, and a JSON API that asks the library.

Every ``POST /api/<command>`` takes ``{"instance": "<instance file text>",
"options": {...}}``; the options are a whitelist per command (each becomes one
field of the command's request objects, as its command-line option does;
nothing names a file, a plugin or an external solver),
and the answer is exactly the JSON ``tilesat <command> --json`` prints (the same
request objects and library functions make it: :mod:`tilesat.reports`).  Bad
input is HTTP 400 ``{"error": "<the CLI's one line, without 'error: '>"}``;
every error the studio answers is JSON.  See docs/studio.md for the whole API
and its limits.

Only the studio's own page can drive it (:mod:`.guard`: Host, Origin,
Content-Type, token), and one request costs a bounded amount: its body
(:data:`MAX_BODY`, within :data:`BODY_SECONDS`, JSON at most
:data:`MAX_DEPTH` deep), the board (``max_cells``), the run's time
(``time_limit``: the command's ``--timeout``, then a kill), its memory (each
command's ``--max-memory``: a share of :data:`COMMANDS_MEMORY`), its answer
(:data:`MAX_ANSWER`), count's ``--jobs`` (always 1), and its turn: at most
``max_running`` commands run at once and ``max_waiting`` wait, each at most
:data:`QUEUE_SECONDS`; beyond, 503 with ``Retry-After``.  A request whose
client disconnects (the page aborts it when the board changes again) has its
process killed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import re
import signal
import socket
import threading
import time
from dataclasses import replace
from http import HTTPStatus
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import TilesatError
from ..running.inputs import parse_json
from ..running.memory import GiB, MiB, format_size
from .guard import MAX_CONNECTIONS, MAX_HEADER_BYTES, Guard, StudioProtocol
from .worker import Call, Outcome, run_command

STATIC = Path(__file__).parent / "static"

#: Largest request body accepted (an instance file of a 100x100 board is ~10 kB),
#: the seconds it may take to arrive, and how deep its JSON may nest.
MAX_BODY, BODY_SECONDS, MAX_DEPTH = 1 * MiB, 10.0, 8
#: Largest answer: a formula or a picture beyond it is refused in one line.
MAX_ANSWER = 16 * MiB
#: What the commands running at once may take together (each gets its share
#: as --max-memory unless ``tilesat --max-memory SIZE serve`` says otherwise).
COMMANDS_MEMORY = 1 * GiB
#: Defaults of ``tilesat serve``.
TIME_LIMIT, MAX_CELLS, MAX_RUNNING = 30.0, 10_000, 4
#: Requests waiting for a turn, per command that may run; and how long one waits at most.
MAX_WAITING_PER_RUNNING, QUEUE_SECONDS = 8, 3.0
#: Seconds the requests in flight get to finish when the server stops; then their runs are killed.
SHUTDOWN_GRACE = 2
#: An idle kept-alive connection is closed after this long.
KEEP_ALIVE_SECONDS = 5

_WORD = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # names from the registries: no ':' (plugins, ext: solvers), no '/'
_SIZE = re.compile(r"^(\d{1,5})[xX](\d{1,5})$")


class BadRequest(Exception):
    """A request the studio refuses before running anything (HTTP 400 or 413)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# -- options: a whitelist per command; each kind checks the value and gives it as the library takes it -----

def _word(name, value):
    if not isinstance(value, str) or not _WORD.match(value):
        raise BadRequest(f"option {name!r}: give a name of letters, digits, '-' or '_'")
    return value


def _text(longest=2000):
    def check(name, value):
        if not isinstance(value, str) or not value.strip() or len(value) > longest or "\n" in value or "\0" in value:
            raise BadRequest(f"option {name!r}: give one line of text (at most {longest} characters)")
        return value
    return check


def _flag(name, value):
    if not isinstance(value, bool):
        raise BadRequest(f"option {name!r}: give true or false")
    return value


def _either(name, value):
    """true, false, or null (the command's default)."""
    if value is not None and not isinstance(value, bool):
        raise BadRequest(f"option {name!r}: give true, false or null")
    return value


def _number(kind, low, high):
    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
            raise BadRequest(f"option {name!r}: give {'a whole number' if kind is int else 'a number'}")
        if not low <= value <= high:
            raise BadRequest(f"option {name!r}: must be between {low:g} and {high:g}")
        return value
    return check


def _size(name, value):
    if not isinstance(value, str) or not _SIZE.match(value.strip()):
        raise BadRequest(f"option {name!r}: use ROWSxCOLS, e.g. 12x12")
    return value.strip()


_SAT = {"encoding": _word, "solver": _word, "card": _word}
_BOARD = {"pieces": _text(), "wrap": _word}
_SEARCH = {"method": _word, **_SAT, **_BOARD, "certificate": _either}
OPTIONS = {
    "check-unique": _SEARCH,
    "solve": _SEARCH,
    "count": {"method": _word, "up_to_symmetry": _flag, "limit": _number(int, 1, 10**12), **_SAT, **_BOARD,
              "epsilon": _number(float, 1e-3, 100), "delta": _number(float, 1e-3, 0.999)},
    "generate": {"size": _size, "pieces": _text(), "seed": _number(int, 0, 2**63 - 1),
                 "blocked": _number(int, 0, 10**6), "difficulty": _word},
    "export": {"encoding": _word, "card": _word, **_BOARD},
    "explain": {**_BOARD, "repairs": _number(int, 0, 10)},
}
#: Options the studio handles itself: the pictures returned with the JSON, the time limit.
PICTURES = {"check-unique": ("svg", "png", "pdf"), "solve": ("svg", "png", "pdf")}


def checked_call(command: str, options: dict, time_limit: float) -> Call:
    """The request as the library will be asked it (:class:`~.worker.Call`): the
    options checked (null ones left to the command's default), the pictures asked
    for, and the time limit (the request's ``timeout``, at most ``time_limit``)."""
    if not isinstance(options, dict):
        raise BadRequest("'options' must be an object")
    known = OPTIONS[command]
    pictures = PICTURES.get(command, ())
    values, drawn = {}, []
    limit = time_limit
    for name, value in options.items():
        if name == "timeout" and command != "export":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value:
                raise BadRequest("option 'timeout': give a number of seconds above 0")
            limit = min(float(value), time_limit)
        elif name in pictures:
            if _flag(name, value):
                drawn.append(name)
        elif name in known:
            values[name] = known[name](name, value)
        else:
            extra = ["timeout"] if command != "export" else []
            raise BadRequest(f"unknown option {name!r} for {command}; known: {', '.join(sorted([*known, *pictures, *extra]))}")
    return Call(command, {k: v for k, v in values.items() if v is not None}, tuple(drawn), limit)


def _error(message: str, status: int = 400, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class Gone(Exception):
    """The client left before its request was read whole: nobody to answer."""


async def _read_body(request: Request) -> dict:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise BadRequest(f"the request is larger than {MAX_BODY:,} bytes", 413)
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise BadRequest(f"the request is larger than {MAX_BODY:,} bytes", 413)
    except TimeoutError:
        raise BadRequest(f"the request's body did not arrive within {BODY_SECONDS:g} s", 408) from None
    except ClientDisconnect:
        raise Gone() from None
    try:
        data = parse_json(bytes(body or b"{}"), "the request body", MAX_DEPTH)
    except TilesatError as e:
        raise BadRequest(str(e)) from None
    if not isinstance(data, dict):
        raise BadRequest('the request body must be an object: {"instance": "...", "options": {...}}')
    return data


def _answer(command: str, outcome: Outcome, limit: float) -> Response:
    if outcome.stopped == "time limit":
        return _error(f"stopped: the command did not end within its time limit of {limit:g} s", 504)
    if outcome.stopped:
        return Response(status_code=499)  # nobody is listening any more
    if outcome.too_large:
        name, size = next(iter(outcome.too_large.items()))
        what = "formula" if name == "formula.cnf" else "answer"
        return _error(f"the {what} is {format_size(size)}; the studio answers at most {format_size(MAX_ANSWER)} "
                      f"(use the tilesat command line{': tilesat export' if what == 'formula' else ''})", 413)
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


class Queue:
    """The commands running (at most ``running``) and waiting for a turn (at
    most ``waiting``, each at most :data:`QUEUE_SECONDS`): beyond either, a
    503 with Retry-After.  ``stop()``: every request, waiting or running,
    answers 503 at once (the server is shutting down)."""

    def __init__(self, running: int, waiting: int):
        self.slots = asyncio.Semaphore(running)
        self.size, self.max_waiting = running, waiting
        self.now = self.waiting = self.done = self.refused = 0
        self.stopping = asyncio.Event()
        self.seconds = 1.0  # a running average of how long a command holds its slot

    def retry_after(self) -> str:
        return str(max(1, min(60, math.ceil(self.seconds * (self.waiting + 1) / self.size))))

    def busy(self, why: str) -> JSONResponse:
        self.refused += 1
        return _error(why, 503, {"Retry-After": self.retry_after()})

    @contextlib.asynccontextmanager
    async def turn(self):
        """A slot, or :class:`Busy` (the 503 to answer)."""
        if self.stopping.is_set():
            raise Busy(self.busy("the studio is stopping"))
        if self.now + self.waiting >= self.size + self.max_waiting:
            raise Busy(self.busy(f"the studio is busy: {self.now + self.waiting} requests taken for {self.size} "
                                 "running at once; try again shortly"))
        self.waiting += 1
        try:
            acquire = asyncio.ensure_future(self.slots.acquire())
            stop = asyncio.ensure_future(self.stopping.wait())
            try:
                done, _ = await asyncio.wait({acquire, stop}, timeout=QUEUE_SECONDS, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
                if not acquire.done():
                    acquire.cancel()
            got = acquire.done() and not acquire.cancelled()
        finally:
            self.waiting -= 1
        if not got:
            why = "the studio is stopping" if self.stopping.is_set() else \
                f"the studio is busy: no turn came within {QUEUE_SECONDS:g} s; try again shortly"
            raise Busy(self.busy(why))
        if self.stopping.is_set():
            self.slots.release()
            raise Busy(self.busy("the studio is stopping"))
        self.now += 1
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.now -= 1
            self.done += 1
            self.seconds = 0.8 * self.seconds + 0.2 * (time.perf_counter() - t0)
            self.slots.release()

    def stop(self) -> None:
        self.stopping.set()


class Busy(Exception):
    def __init__(self, response: Response):
        self.response = response


def create_app(time_limit: float = TIME_LIMIT, max_cells: int = MAX_CELLS, max_running: int = MAX_RUNNING,
               max_memory: int | None = None, *, max_waiting: int | None = None, host: str = "127.0.0.1",
               token: str | None = None):
    """The studio as an ASGI application (``tilesat serve`` runs it with uvicorn),
    behind its :class:`~.guard.Guard` (Host, Origin, Content-Type, token).
    ``max_memory``: bytes, each command's ``--max-memory`` (default: a share of
    :data:`COMMANDS_MEMORY`).  The Starlette app is ``app.studio``, its queue
    ``app.queue`` (``app.queue.stop()`` before a shutdown)."""
    queue = Queue(max_running, MAX_WAITING_PER_RUNNING * max_running if max_waiting is None else max_waiting)
    memory = max_memory if max_memory is not None else COMMANDS_MEMORY // max_running

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
            call = replace(checked_call(command, data.get("options") or {}, time_limit), memory=memory)
            if command == "generate":
                m = _SIZE.match(call.options.get("size", ""))
                if m is None:
                    raise BadRequest("option 'size' is required, e.g. \"12x12\"")
                if int(m.group(1)) * int(m.group(2)) > max_cells:
                    raise BadRequest(f"--size {m.group(0)}: the studio takes at most {max_cells:,} cells (tilesat serve --max-cells)")
        except BadRequest as e:
            return _error(str(e), e.status)
        except Gone:
            return Response(status_code=499)

        async def gone() -> bool:
            return queue.stopping.is_set() or await request.is_disconnected()

        try:
            async with queue.turn():
                if await request.is_disconnected():
                    return Response(status_code=499)
                outcome = await run_command(call, files, gone=gone, max_cells=max_cells, max_output=MAX_ANSWER)
        except Busy as busy:
            return busy.response
        if queue.stopping.is_set() and outcome.stopped:
            return queue.busy("the studio is stopping; its run was stopped")
        return await asyncio.to_thread(_answer, command, outcome, call.limit)  # a big answer is encoded off the event loop

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def status(request: Request) -> Response:
        return JSONResponse({"running": queue.now, "waiting": queue.waiting, "finished": queue.done,
                             "refused": queue.refused, "stopping": queue.stopping.is_set(),
                             "limits": {"time_limit": time_limit, "max_cells": max_cells, "max_body": MAX_BODY,
                                        "max_running": max_running, "max_waiting": queue.max_waiting,
                                        "queue_seconds": QUEUE_SECONDS, "max_memory": memory,
                                        "max_answer": MAX_ANSWER}})

    async def pieces(request: Request) -> Response:
        return JSONResponse(_pieces())

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase,
                      exc.status_code, getattr(exc, "headers", None))

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error(f"the studio failed: {type(exc).__name__}", 500)

    routes = [
        Route("/", index),
        Route("/api/status", status),
        Route("/api/pieces", pieces),
        Route("/api/{command}", api, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    studio = Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error})
    app = Guard(studio, host=host, token=token)
    app.studio, app.queue = studio, queue
    return app


def _pieces() -> dict:
    """The built-in pieces the page offers (cells as drawn) and the sets."""
    from ..model.pieces import SET_SIZES, builtin_names, builtin_piece, piece_set

    return {
        "pieces": {name: sorted(builtin_piece(name).cells) for name in builtin_names()},
        "sets": {name: ([p.name for p in piece_set(name)] if n <= 5 else None) for name, n in SET_SIZES.items()},
    }


class StudioServer(uvicorn.Server):
    """uvicorn's server for the studio: the connection bounds of
    :class:`~.guard.StudioProtocol`, SIGTERM and SIGHUP handled as Ctrl-C
    (``signals``: those that stopped it), and a graceful stop: every request
    in flight answered 503 and its run killed, within :data:`SHUTDOWN_GRACE` s."""

    def __init__(self, app, host: str, port: int, max_connections: int = MAX_CONNECTIONS):
        protocol = type("Protocol", (StudioProtocol,), {"max_connections": max_connections})
        super().__init__(uvicorn.Config(
            app, host=host, port=port, log_level="warning", http=protocol, lifespan="off",
            timeout_graceful_shutdown=SHUTDOWN_GRACE, timeout_keep_alive=KEEP_ALIVE_SECONDS,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES))
        self.queue = app.queue
        self.signals: list[int] = []

    async def shutdown(self, sockets=None):
        self.queue.stop()  # before uvicorn waits on the requests in flight: they answer 503 now
        await super().shutdown(sockets)

    @contextlib.contextmanager
    def capture_signals(self):
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        self.signals = list(self._captured_signals)  # the caller says how it stopped (uvicorn would raise them again)


@contextlib.contextmanager
def running(host: str = "127.0.0.1", port: int = 0, wrap=None, max_connections: int = MAX_CONNECTIONS, **limits):
    """The studio served by uvicorn in a thread of this process, for tests and
    scripts: yields its URL; stopped on leaving.  Starts the forkserver first.
    ``wrap``: a function of the ASGI app returning the app to serve (a test's middleware)."""
    from .worker import start_forkserver

    start_forkserver()
    with socket.socket() as probe:  # a free port, when 0
        probe.bind((host, port))
        port = probe.getsockname()[1]
    app = create_app(host=host, **limits)
    served = (wrap or (lambda a: a))(app)
    served.queue = app.queue
    server = StudioServer(served, host, port, max_connections)
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

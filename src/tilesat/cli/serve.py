"""serve: the puzzle author's studio, a local web page over the same commands."""

from __future__ import annotations

import secrets
import signal
import socket
from typing import Annotated, Optional

import typer

from ..running import memory
from ..errors import TilesatError
from .root import app
from .common import _err, friendly, interrupted_exit


@app.command("serve")
@friendly
def serve_cmd(
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Address to listen on; anything but loopback lets other machines in (they need the token).")] = "127.0.0.1",
    open_browser: Annotated[bool, typer.Option("--open", help="Open the studio in the web browser.")] = False,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.1, help="Seconds one request's command may run (its --timeout).")] = 30.0,
    max_cells: Annotated[int, typer.Option("--max-cells", min=1, help="Largest board (rows x columns) a request may send.")] = 10_000,
    max_running: Annotated[int, typer.Option("--max-running", min=1, max=256, help="Commands run at once; further requests wait their turn, a few seconds at most.")] = 4,
    token: Annotated[Optional[str], typer.Option("--token", envvar="TILESAT_STUDIO_TOKEN", help="What clients on other machines must show (made up when --host is not loopback).")] = None,
):
    """The studio: draw a board in the browser and watch check-unique answer as you edit; a JSON API for the commands (Ctrl-C stops it: exit 130)."""
    try:
        import uvicorn  # noqa: F401
    except ImportError:
        raise TilesatError("the studio needs uvicorn and starlette: pip install tilesat (or pip install uvicorn starlette)") from None
    from ..studio.guard import is_loopback
    from ..studio.server import StudioServer, create_app
    from ..studio.worker import start_forkserver, stop_forkserver

    err = _err()
    limit = memory.explicit_limit()  # tilesat --max-memory SIZE serve: each command gets it
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:  # a taken port: one line, before anything starts
        try:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
            if port == 0:
                port = probe.getsockname()[1]
        except OSError as e:
            raise TilesatError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    if token is not None and not token.strip():
        raise TilesatError("--token: give a non-empty token")
    if not is_loopback(host):
        token = token or secrets.token_urlsafe(24)
        err.print(f"warning: listening on {host}, not loopback: other machines can reach the studio and run commands "
                  "on this one (with the token)", markup=False)
    start_forkserver()  # before uvicorn starts any thread: requests fork from it
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/" + (f"?token={token}" if token else "")
    err.print(f"tilesat studio at {url} (Ctrl-C to stop)", markup=False)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    app_ = create_app(time_limit, max_cells, max_running, limit[0] if limit else None, host=host, token=token)
    server = StudioServer(app_, host, port)
    try:
        server.run()
    except KeyboardInterrupt:  # a second Ctrl-C while stopping
        server.signals = [signal.SIGINT]
    finally:
        stop_forkserver()  # the commands still running, and every request's folder, go with it
    if server.signals:
        err.print("studio stopped", markup=False)
        signum = server.signals[0]
        if signum == signal.SIGINT:
            raise interrupted_exit()
        raise typer.Exit(128 + signum)

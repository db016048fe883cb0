"""serve: the puzzle author's studio, a local web page over the same commands."""

from __future__ import annotations

import ipaddress
import socket
from typing import Annotated

import typer

from .. import limits
from ..errors import TilesatError
from . import app
from .common import _err, friendly, interrupted_exit


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@app.command("serve")
@friendly
def serve_cmd(
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Address to listen on; anything but loopback lets other machines in.")] = "127.0.0.1",
    open_browser: Annotated[bool, typer.Option("--open", help="Open the studio in the web browser.")] = False,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.1, help="Seconds one request's command may run (its --timeout).")] = 30.0,
    max_cells: Annotated[int, typer.Option("--max-cells", min=1, help="Largest board (rows x columns) a request may send.")] = 10_000,
    max_running: Annotated[int, typer.Option("--max-running", min=1, help="Commands run at once; further requests wait.")] = 4,
):
    """The studio: draw a board in the browser and watch check-unique answer as you edit; a JSON API for the commands (Ctrl-C stops it: exit 130)."""
    try:
        import uvicorn
    except ImportError:
        raise TilesatError("the studio needs uvicorn and starlette: pip install tilesat (or pip install uvicorn starlette)") from None
    from ..studio.server import SHUTDOWN_GRACE, create_app
    from ..studio.worker import start_forkserver

    err = _err()
    memory = limits.explicit_limit()  # tilesat --max-memory SIZE serve: each command gets it
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:  # a taken port: one line, before anything starts
        try:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
            if port == 0:
                port = probe.getsockname()[1]
        except OSError as e:
            raise TilesatError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    if not _loopback(host):
        err.print(f"warning: listening on {host}, not loopback: other machines can reach the studio and run commands on this one",
                  markup=False)
    start_forkserver()  # before uvicorn starts any thread: requests fork from it
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    err.print(f"tilesat studio at {url} (Ctrl-C to stop)", markup=False)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(create_app(time_limit, max_cells, max_running, memory[0] if memory else None), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # uvicorn shuts down on Ctrl-C, then raises it again
        err.print("studio stopped", markup=False)
        raise interrupted_exit() from None

"""What a request must be before the studio looks at it, and what a
connection may cost before it is a request.

The studio runs commands on the user's machine, so no other web page may
drive it:

- **Host** must name the address it serves (the localhost names, and what
  ``--host`` says): a page on ``attacker.example`` whose name was rebound to
  127.0.0.1 (DNS rebinding) sends ``Host: attacker.example`` and is refused;
- **Origin**, on every request that is not GET or HEAD, must be the studio's
  own (a browser always sends it there; a client that is no browser, such as
  curl, sends none and is let through);
- **Content-Type** of a POST must be ``application/json``: a form or a
  ``text/plain`` fetch (what a page may send elsewhere without asking) is
  refused, and a JSON one from another page needs a CORS preflight, which the
  studio never grants;
- a **token** (``--token``; made up when ``--host`` lets other machines in) is
  required of clients that are not on this machine: the ``Authorization:
  Bearer`` header, or the cookie ``/?token=...`` sets.

A connection may cost little before it is a request (:class:`StudioProtocol`):
at most ``max_connections`` at once (beyond: an answer 503 and the door
closed), its request line and headers within :data:`HEADER_SECONDS` (a client
that opens connections and sends nothing, or a byte a second, is cut off),
headers of at most :data:`MAX_HEADER_BYTES`.  Every error the studio or the
HTTP layer answers is JSON: ``{"error": "..."}``.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection has to send its request line and headers.
HEADER_SECONDS = 10.0
#: The request line and headers together (h11's own default is 16 KiB).
MAX_HEADER_BYTES = 16 << 10
#: Connections open at once, at most (the rest get a 503 and are closed).
MAX_CONNECTIONS = 512
#: The cookie that carries the token, once ``/?token=...`` has been opened.
TOKEN_COOKIE = "tilesat-studio-token"

_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1"}
_SAFE_METHODS = {"GET", "HEAD"}


def json_body(status: int, message: str, headers: dict | None = None) -> tuple[int, list, bytes]:
    """An error answer: status, ASGI headers, the body ``{"error": message}``."""
    body = json.dumps({"error": message}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), str(v).encode()) for k, v in (headers or {}).items()]
    return status, raw, body


async def send_error(send, status: int, message: str, headers: dict | None = None) -> None:
    status, raw, body = json_body(status, message, headers)
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def served_names(host: str) -> set[str]:
    """The names a Host header may give: the localhost names, ``host``, and
    when ``host`` is every address of the machine (0.0.0.0, ::), its names
    and addresses as the machine knows them."""
    names = set(_LOCAL_NAMES) | {host.strip("[]").lower().rstrip(".")}
    if is_wildcard(host):
        for name in {socket.gethostname(), socket.getfqdn()}:
            names.add(name.lower().rstrip("."))
            try:
                names.update(info[4][0].lower() for info in socket.getaddrinfo(name, None))
            except OSError:
                pass
    return names


def _host_name(value: str) -> str:
    """``name`` of a Host header's ``name[:port]`` (``[v6]:port`` too), lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0].rstrip(".") if value.count(":") == 1 else value.rstrip(".")


class Guard:
    """ASGI middleware: the Host, Origin, Content-Type and token checks above."""

    def __init__(self, app, host: str = "127.0.0.1", token: str | None = None):
        self.app = app
        self.names = served_names(host)
        self.token = token or None
        # on every address (0.0.0.0): another machine may call it by any of them; its token is the check
        self.any_name_with_token = is_wildcard(host) and self.token is not None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            return await send_error(send, *refusal)
        if self.token and scope["method"] == "GET" and scope["path"] == "/":
            given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
            if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
                # the page's own URL with the token: keep it in a cookie only this site sends, drop it from the URL
                cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                await send({"type": "http.response.start", "status": 303,
                            "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()),
                                        (b"content-length", b"0"), (b"cache-control", b"no-store")]})
                return await send({"type": "http.response.body", "body": b""})
        return await self.app(scope, receive, send)

    def refusal(self, scope, headers: dict) -> tuple[int, str] | None:
        """(status, message) when the request may not reach the studio."""
        host = headers.get("host")
        local = self._local(scope)
        if not host or (_host_name(host) not in self.names and (local or not self.any_name_with_token)):
            return 421, (f"this studio does not answer for the host {host!r}" if host else "a request needs a Host header")
        method = scope["method"]
        if method not in _SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and not _same_origin(origin, host):
                return 403, f"requests from the page at {origin!r} are not accepted: only the studio's own page may send them"
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return 403, "requests from another site's page are not accepted"
            if method == "POST":
                kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
                if kind != "application/json":
                    return 415, "send the request body as JSON, with Content-Type: application/json"
        if self.token and not local and not self._has_token(headers):
            if not (method == "GET" and scope["path"] == "/" and b"token=" in scope.get("query_string", b"")):
                return 401, "this studio needs its token: open the URL 'tilesat serve' printed (with ?token=...)"
        return None

    @staticmethod
    def _local(scope) -> bool:
        client = scope.get("client")
        return bool(client) and is_loopback(client[0])

    def _has_token(self, headers: dict) -> bool:
        given = None
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        elif "cookie" in headers:
            cookie = SimpleCookie()
            try:
                cookie.load(headers["cookie"])
            except Exception:  # noqa: BLE001 - a malformed cookie is no token
                return False
            given = cookie[TOKEN_COOKIE].value if TOKEN_COOKIE in cookie else None
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


def _same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` (scheme://name[:port]) is the page this Host serves."""
    parts = urlsplit(origin.strip())
    return parts.scheme == "http" and parts.netloc.lower() == host.strip().lower() and not parts.path


class StudioProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with bounds on what a connection may cost
    before it is a request, and JSON for the errors it answers itself."""

    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport) -> None:
        self._header_timer, self._header_bytes = None, 0
        if len(self.connections) >= self.max_connections:
            self.transport = transport
            self._refuse_and_close(503, "the studio has too many connections open; try again shortly",
                                   {"Retry-After": "2"})
            return
        super().connection_made(transport)
        self._arm_header_timer()

    def _refuse_and_close(self, status: int, message: str, headers: dict | None = None) -> None:
        status, raw, body = json_body(status, message, {**(headers or {}), "Connection": "close"})
        reason = _reason(status).encode()
        head = b"HTTP/1.1 %d %s\r\n" % (status, reason) + b"".join(k + b": " + v + b"\r\n" for k, v in raw) + b"\r\n"
        try:
            self.transport.write(head + body)
            self.transport.close()
        except Exception:  # noqa: BLE001 - the client is gone already
            pass

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and data:
            if self._header_timer is None:
                self._arm_header_timer()  # the next request on a kept-alive connection starts now
            end = data.find(b"\r\n\r\n")
            self._header_bytes += len(data) if end < 0 else end
            if self._header_bytes > MAX_HEADER_BYTES:  # h11's own bound holds only for headers cut in parts
                self._refuse_and_close(431, f"the request's headers are longer than {MAX_HEADER_BYTES:,} bytes")
                return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._header_bytes = 0
            self._disarm_header_timer()

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._header_timeout)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._refuse_and_close(408, f"the request's headers did not arrive within {HEADER_SECONDS:g} s")

    def connection_lost(self, exc) -> None:
        self._disarm_header_timer()
        if self.flow is None:  # refused in connection_made: never counted
            return
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        # h11 could not read the request (malformed, or headers beyond MAX_HEADER_BYTES): JSON, then close
        self._refuse_and_close(400, "the request is not HTTP/1.1 tilesat can read (or its headers are too long)")


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""

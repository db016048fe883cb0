"""The studio against hostile clients (issue 33): only its own page can drive
it (Host, Origin, Content-Type, token), one request costs a bounded amount
(body, nesting, answer, queue, connections, header time), every error is
JSON, and it stops cleanly (SIGTERM, SIGHUP, SIGKILL: requests answered 503,
no process and no folder left).  Through a real ``tilesat serve`` process
where the contract is the command's; in-process for the limits that need a
small setting."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from procs import alive, descendants, rss, tilesat_argv, with_environ
from tilesat.studio import guard
from tilesat.studio import server as studio_server
from tilesat.studio.server import running

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"instance": "pieces: L4\n....\n....\n"}
#: A count that never ends by itself (a 12x12 board of L-tetrominoes, listed one by one).
ENDLESS = {"instance": "pieces: L4\n" + ("." * 12 + "\n") * 12, "options": {"method": "blocking"}}
MARK = "TILESAT_TEST_STUDIO"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A ``tilesat serve`` process with its own temporary folder (TMPDIR) and a
    mark in its environment, by which every process it started is found."""

    def __init__(self, tmp: Path, *args: str):
        self.port, self.tmp, self.mark = _free_port(), tmp, uuid.uuid4().hex
        tmp.mkdir(exist_ok=True)
        env = {**os.environ, "TMPDIR": str(tmp), MARK: self.mark}
        self.process = subprocess.Popen(tilesat_argv("serve", "--port", self.port, *args), env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{self.port}"
        self.first_lines = [self.process.stderr.readline()]
        if self.first_lines[0].startswith("warning:"):
            self.first_lines.append(self.process.stderr.readline())
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.url + "/api/status", timeout=5)
                break
            except httpx.TransportError:
                assert self.process.poll() is None, self.process.stderr.read()
                assert time.monotonic() < deadline, "the studio did not start"
                time.sleep(0.1)

    def post(self, command: str, body: dict, **kw) -> httpx.Response:
        return httpx.post(f"{self.url}/api/{command}", json=body, timeout=kw.pop("timeout", 60), **kw)

    def processes(self) -> list[int]:
        return with_environ(MARK, self.mark)

    def stop(self, signum=signal.SIGTERM) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(30)
        return code, self.process.stderr.read()

    def left_behind(self, seconds: float = 2.0) -> tuple[list[int], list[str]]:
        """What is still there ``seconds`` after the server ended: processes, temporary folders."""
        time.sleep(seconds)
        return [p for p in self.processes() if alive(p)], sorted(os.listdir(self.tmp))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    studio = Served(tmp_path_factory.mktemp("studio"))
    yield studio
    studio.stop()


@contextlib.contextmanager
def serving(tmp_path, *args):
    studio = Served(tmp_path / "tmp", *args)
    try:
        yield studio
    finally:
        studio.stop(signal.SIGKILL)
        for pid in studio.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _error(response: httpx.Response, status: int) -> str:
    """The answer is ``status`` with a JSON body ``{"error": "one line"}``."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    data = response.json()
    assert list(data) == ["error"] and data["error"] and "\n" not in data["error"], data
    return data["error"]


# -- only the studio's own page can drive it -----------------------------------------------

def test_the_issues_request_is_refused(served):
    # issue 33: foreign Host and Origin, text/plain: answered 200 (DNS rebinding and CSRF)
    response = httpx.post(f"{served.url}/api/check-unique", content=json.dumps(SMALL), timeout=30, headers={
        "Host": "attacker.example", "Origin": "http://attacker.example", "Content-Type": "text/plain"})
    assert "attacker.example" in _error(response, 421)


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:80", "127.0.0.1.attacker.example",
                                  "localhost.", "[::2]", "", "127.0.0.2"])
def test_a_foreign_host_is_refused_on_every_route(served, host):
    for method, path in (("GET", "/"), ("GET", "/api/status"), ("GET", "/static/studio.js"), ("POST", "/api/check-unique")):
        response = httpx.request(method, served.url + path, headers={"Host": host, "Content-Type": "application/json"},
                                 content=json.dumps(SMALL) if method == "POST" else None, timeout=30)
        if host == "localhost.":  # the same name, fully qualified
            assert response.status_code in (200, 405), (path, response.status_code)
        else:
            _error(response, 421)


@pytest.mark.parametrize("host", ["localhost", f"localhost:{0}", "127.0.0.1", "[::1]", "LOCALHOST"])
def test_the_local_names_are_served(served, host):
    host = host.replace(":0", f":{served.port}")
    response = served.post("check-unique", SMALL, headers={"Host": host})
    assert response.status_code == 200 and response.json()["verdict"] == "multiple"


@pytest.mark.parametrize("origin", ["http://attacker.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}",
                                    "http://localhost:{port}", "http://127.0.0.1:{port}/x", "file://"])
def test_a_foreign_origin_is_refused(served, origin):
    response = served.post("check-unique", SMALL, headers={"Origin": origin.format(port=served.port)})
    _error(response, 403)


def test_the_studios_own_origin_is_accepted(served):
    response = served.post("check-unique", SMALL, headers={"Origin": served.url, "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_request_from_another_sites_page_is_refused(served, site):
    _error(served.post("check-unique", SMALL, headers={"Sec-Fetch-Site": site}), 403)


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "", "application/jsonp", "json"])
def test_what_a_page_may_send_anywhere_is_refused(served, content_type):
    # a form or a text/plain fetch needs no CORS preflight: the studio must not take one
    headers = {"Content-Type": content_type} if content_type else {}
    response = httpx.post(f"{served.url}/api/check-unique", content=json.dumps(SMALL), headers=headers, timeout=30)
    assert "application/json" in _error(response, 415)


def test_a_form_post_is_refused(served):
    response = httpx.post(f"{served.url}/api/check-unique", data={"instance": SMALL["instance"]}, timeout=30)
    _error(response, 415)


# -- one request costs a bounded amount ----------------------------------------------------

def test_an_oversized_body_is_refused(served):
    big = json.dumps({"instance": "x" * (studio_server.MAX_BODY + 10)})
    assert "larger than" in _error(httpx.post(f"{served.url}/api/check-unique", content=big, timeout=30,
                                              headers={"Content-Type": "application/json"}), 413)


@pytest.mark.parametrize("body", [b"[" * 100_000 + b"]" * 100_000, b'{"instance": ' + b"[" * 50 + b"]" * 50 + b"}",
                                  b'{"instance": "pieces: L4\\n\\ud800..\\n"}', b'{"instance": NaN}',
                                  b"\xff\xfe", b'{"instance": "x"'],
                         ids=["deep", "nested", "surrogate", "nan", "binary", "cut"])
def test_bodies_that_are_no_request_are_400(served, body):
    # issue 33: 100,000 deep, or "\ud800" in the instance: HTTP 500 with a traceback
    response = httpx.post(f"{served.url}/api/check-unique", content=body, timeout=30,
                          headers={"Content-Type": "application/json"})
    _error(response, 400)


def test_every_error_is_json(served):
    _error(httpx.get(f"{served.url}/no/such/page", timeout=30), 404)
    _error(httpx.delete(f"{served.url}/api/status", timeout=30), 405)
    _error(httpx.get(f"{served.url}/static/../server.py", timeout=30), 404)
    _error(served.post("nosuch", SMALL), 404)
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as s:  # not HTTP at all
        s.sendall(b"\x16\x03\x01 hello, this is not http\r\n\r\n")
        head, _, body = _read_all(s).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head and json.loads(body)["error"]
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as s:  # headers beyond the bound
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * (guard.MAX_HEADER_BYTES + 100) + b"\r\n\r\n")
        head, _, body = _read_all(s).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431") and json.loads(body)["error"]


def _read_all(s: socket.socket) -> bytes:
    data = b""
    with contextlib.suppress(ConnectionResetError, socket.timeout):
        while chunk := s.recv(65536):
            data += chunk
    return data


def test_a_huge_export_is_refused_in_one_line_without_taking_memory(served):
    # issue 33: a 10 KB request for a 100x100 board of pentominoes answered 249 MB and took the server to 945 MB
    before = sum(rss(p) for p in [served.process.pid, *descendants(served.process.pid)])
    body = {"instance": "pieces: pentominoes\n" + ("." * 100 + "\n") * 100}
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(served.post("export", body))) for _ in range(4)]
    peak = [0]

    def watch():
        while any(t.is_alive() for t in threads):
            peak[0] = max(peak[0], sum(rss(p) for p in [served.process.pid, *descendants(served.process.pid)]))
            time.sleep(0.02)

    for t in threads:
        t.start()
    watcher = threading.Thread(target=watch)
    watcher.start()
    for t in threads:
        t.join(120)
    watcher.join(10)
    for response in answers:
        assert "instance too large" in _error(response, 400)
    assert len(answers) == 4
    assert peak[0] - before < 400 << 20, f"the studio grew by {(peak[0] - before) >> 20} MiB"


def test_an_answer_beyond_the_cap_is_refused(monkeypatch):
    monkeypatch.setattr(studio_server, "MAX_ANSWER", 10_000)
    with running(max_memory=1 << 30) as url:
        body = {"instance": "pieces: L4\n" + ("." * 20 + "\n") * 20}
        message = _error(httpx.post(f"{url}/api/export", json=body, timeout=60), 413)
        assert "the formula is" in message and "tilesat export" in message
        small = httpx.post(f"{url}/api/export", json={"instance": "pieces: L4\n....\n....\n"}, timeout=60)
        assert small.status_code == 200 and small.json()["dimacs"].startswith("c tilesat")


def test_the_queue_is_bounded_and_says_when_to_come_back():
    # issue 33: requests beyond the four running waited without limit
    with running(max_running=1, max_waiting=1) as url:
        answers = {}

        def call(name, body):
            answers[name] = httpx.post(f"{url}/api/count", json=body, timeout=60)

        slow = {**ENDLESS, "options": {**ENDLESS["options"], "timeout": 3}}
        first = threading.Thread(target=call, args=("running", slow))
        first.start()
        _wait_for(lambda: httpx.get(f"{url}/api/status").json()["running"] == 1)
        second = threading.Thread(target=call, args=("waiting", slow))
        second.start()
        _wait_for(lambda: httpx.get(f"{url}/api/status").json()["waiting"] == 1)
        refused = httpx.post(f"{url}/api/count", json=slow, timeout=60)
        assert "busy" in _error(refused, 503)
        assert int(refused.headers["retry-after"]) >= 1
        first.join(60)
        second.join(60)
        assert answers["running"].status_code == 200
        # the second waited longer than a turn may take (QUEUE_SECONDS): told to come back, or it ran
        assert answers["waiting"].status_code in (200, 503)
        if answers["waiting"].status_code == 503:
            assert "retry-after" in answers["waiting"].headers


def _wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_half_open_connections_are_cut_off_and_bounded(monkeypatch):
    # issue 33: 300 half-open connections were held 22 s and more
    monkeypatch.setattr(guard, "HEADER_SECONDS", 1.0)
    with running(max_connections=20) as url:
        port = int(url.rsplit(":", 1)[1])
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(10)]
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(b"POST /api/status HTTP/1.1\r\nHost: localhost\r\n")  # and never the rest
        assert httpx.get(f"{url}/api/status", timeout=10).status_code == 200  # still served
        beyond = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(15)]
        refused = [_read_all(s) for s in beyond[-3:]]
        assert all(r.startswith(b"HTTP/1.1 503") and b'"error"' in r for r in refused), refused
        t0 = time.monotonic()
        for s in [*idle, slow]:
            answer = _read_all(s)  # the server closes it: 408, JSON
            assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1 s" in answer, answer
        assert time.monotonic() - t0 < 10
        for s in [*idle, slow, *beyond]:
            s.close()
        assert httpx.get(f"{url}/api/status", timeout=10).status_code == 200


def test_a_body_that_stops_arriving_is_408(monkeypatch):
    monkeypatch.setattr(studio_server, "BODY_SECONDS", 1.0)
    with running() as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"POST /api/check-unique HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{\"instance\": ")
            answer = _read_all(s)
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 1 s" in answer


def test_a_client_that_leaves_mid_body_leaves_no_traceback(tmp_path):
    # issue 33: every client that disconnects mid-body logged a traceback
    with serving(tmp_path) as studio:
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", studio.port), timeout=10) as s:
                s.sendall(b"POST /api/check-unique HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 5000\r\n\r\n{\"instance\": \"pieces")
            time.sleep(0.1)
        assert studio.post("check-unique", SMALL).status_code == 200
        code, stderr = studio.stop(signal.SIGINT)
    assert code == 130
    assert "Traceback" not in stderr and stderr.strip() == "studio stopped", stderr


# -- a token for clients on other machines ---------------------------------------------------

def test_a_token_is_made_up_beyond_loopback_and_asked_of_other_machines(tmp_path):
    addresses = _addresses()
    with serving(tmp_path, "--host", "0.0.0.0") as studio:
        line = studio.first_lines[-1]
        assert line.startswith(f"tilesat studio at http://0.0.0.0:{studio.port}/?token=")
        token = line.split("token=", 1)[1].split()[0]
        assert studio.post("check-unique", SMALL).status_code == 200  # from this machine: no token needed
        if not addresses:
            pytest.skip("this machine has no address but loopback to come from")
        other = f"http://{sorted(addresses)[0]}:{studio.port}"
        _error(httpx.post(f"{other}/api/check-unique", json=SMALL, timeout=30), 401)
        _error(httpx.get(f"{other}/api/status", timeout=30), 401)
        _error(httpx.post(f"{other}/api/check-unique", json=SMALL, timeout=30,
                          headers={"Authorization": "Bearer wrong"}), 401)
        ok = httpx.post(f"{other}/api/check-unique", json=SMALL, timeout=30, headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200
        page = httpx.get(f"{other}/?token={token}", timeout=30)  # the printed URL: a cookie, then the page
        assert page.status_code == 303 and "HttpOnly" in page.headers["set-cookie"]
        assert "SameSite=Strict" in page.headers["set-cookie"]
        cookies = {guard.TOKEN_COOKIE: token}
        assert httpx.post(f"{other}/api/check-unique", json=SMALL, timeout=30, cookies=cookies).status_code == 200


def _addresses() -> list[str]:
    """This machine's IPv4 addresses but loopback (Linux: SIOCGIFADDR on each interface)."""
    import fcntl
    import struct

    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            with contextlib.suppress(OSError):
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
                address = socket.inet_ntoa(packed[20:24])
                if not address.startswith("127."):
                    found.append(address)
    return found


# -- stopping -------------------------------------------------------------------------------

@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_stops_it_gracefully(tmp_path, signum, code):
    # issue 33: on SIGTERM its commands ran on up to 30 s and eight /tmp/tilesat-studio-* folders stayed
    with serving(tmp_path) as studio:
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(studio.post("count", ENDLESS))) for _ in range(3)]
        for t in threads:
            t.start()
        _wait_for(lambda: httpx.get(f"{studio.url}/api/status").json()["running"] == 3)
        _wait_for(lambda: len(descendants(studio.process.pid)) >= 4)  # the forkserver and three commands
        t0 = time.monotonic()
        got, stderr = studio.stop(signum)
        stopped_in = time.monotonic() - t0
        for t in threads:
            t.join(30)
        assert got == code and stderr.strip() == "studio stopped", stderr
        assert [r.status_code for r in answers] == [503] * 3
        assert all("stopping" in _error(r, 503) for r in answers)
        processes, folders = studio.left_behind()
        assert processes == [] and folders == []
        assert stopped_in < studio_server.SHUTDOWN_GRACE + 5


def test_sigkill_leaves_no_process_and_no_folder(tmp_path):
    # the server cannot clean up: its forkserver sees the pipe close, kills the commands, removes the folders
    with serving(tmp_path) as studio:
        threads = [threading.Thread(target=lambda: _quietly(lambda: studio.post("count", ENDLESS))) for _ in range(2)]
        for t in threads:
            t.start()
        _wait_for(lambda: httpx.get(f"{studio.url}/api/status").json()["running"] == 2)
        assert os.listdir(studio.tmp)  # the requests' folders
        studio.stop(signal.SIGKILL)
        processes, folders = studio.left_behind()
        assert processes == [] and folders == []
        for t in threads:
            t.join(30)


def _quietly(call):
    try:
        return call()
    except httpx.HTTPError as e:
        return e


# -- a real browser on another site's page ---------------------------------------------------

ATTACKER_PAGE = """<!doctype html><html><body>
<form id="form" method="POST" action="{studio}/api/check-unique" enctype="text/plain" target="sink">
<input name='{{"options": {{}}, "instance": "pieces: L4\\n....\\n....\\n;' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
const body = JSON.stringify({{instance: "pieces: L4\\n....\\n....\\n"}});
fetch("{studio}/api/check-unique", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body}})
  .catch(() => null);
fetch("{studio}/api/check-unique", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body}})
  .then((r) => r.text()).then((t) => {{ document.title = "read: " + t; }}).catch(() => {{ document.title = "blocked"; }});
document.getElementById("form").submit();
</script></body></html>"""


def test_another_sites_page_in_a_browser_cannot_run_a_command(served, tmp_path):
    # issue 33: a page the user visits could start jobs (CSRF): a form post or a text/plain fetch
    import shutil as _shutil

    chromium = next((p for p in map(_shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver_path = _shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("no chromium and chromedriver on this machine")
    import http.server

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    page = ATTACKER_PAGE.format(studio=served.url)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page.encode())

        def log_message(self, *args):
            pass

    attacker = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    before = httpx.get(f"{served.url}/api/status", timeout=30).json()["finished"]
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(f"http://localhost:{attacker.server_address[1]}/")
        _wait_for(lambda: driver.title in ("blocked",) or driver.title.startswith("read: "), 30)
        time.sleep(2)  # the form post and the no-cors fetch have gone out by now
        assert driver.title == "blocked"  # the JSON fetch needs a preflight the studio never grants
    finally:
        driver.quit()
        attacker.shutdown()
    assert httpx.get(f"{served.url}/api/status", timeout=30).json()["finished"] == before

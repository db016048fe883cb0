"""The studio in a real browser: Debian's chromium, headless, driven by
Selenium through Debian's chromedriver (nothing downloaded at test time).
Draw the 6x6 L-Panel by clicks, see `unique`, block one more cell, see the
verdict change, download the SVG.  Skipped only where no chromium exists."""

from __future__ import annotations

import base64
import collections
import contextlib
import shutil
import time
import zlib
from pathlib import Path

import pytest

from tilesat.model.instance import load_instance, parse_instance
from tilesat.showing.pictures import tiling_svg
from tilesat.questions.solve import check_unique

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
if CHROMIUM is None:
    print("test_studio_browser: skipped: no chromium binary (apt-get install chromium chromium-driver)")
    pytest.skip("no chromium binary on this machine (apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium import webdriver  # noqa: E402  (only where a browser exists)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tilesat.studio.server import running  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LPANEL = ROOT / "instances" / "lpanel-6x6.txt"
OPEN_6X6 = "pieces: L4\n" + "......\n" * 6


def pack(text: str) -> str:
    """A board link's fragment, as the page writes it: deflate (raw), then base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return "#i=" + base64.urlsafe_b64encode(packer.compress(text.encode()) + packer.flush()).decode().rstrip("=")


def unpack(link: str) -> str:
    code = link.split("#i=", 1)[1]
    return zlib.decompress(base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)), -15).decode()


def instance_text(driver) -> str:
    return driver.find_element(By.ID, "instance-text").get_attribute("value")


class RequestLog:
    """The requests a studio served, as it saw them (method, path, status, time): a failing wait
    says what the page asked for and got, beside the studio's queue."""

    def __init__(self):
        self.lines: collections.deque[str] = collections.deque(maxlen=30)
        self.queue = None
        self.t0 = time.monotonic()

    def wrap(self, app):
        self.queue = app.queue

        async def logged(scope, receive, send):
            if scope["type"] != "http":
                return await app(scope, receive, send)
            start, status = time.monotonic(), []

            async def sending(message):
                if message["type"] == "http.response.start":
                    status.append(message["status"])
                await send(message)

            try:
                await app(scope, receive, sending)
            finally:
                self.lines.append(f"+{start - self.t0:.2f} s {scope['method']} {scope['path']} -> "
                                  f"{status[0] if status else 'no answer'} ({time.monotonic() - start:.2f} s)")

        return logged

    def __str__(self):
        q = self.queue
        queue = f"running {q.now}, waiting {q.waiting}, finished {q.done}, refused {q.refused}" if q else "?"
        return f"studio queue: {queue}; its last requests:\n  " + "\n  ".join(self.lines)


LOGS: dict[str, RequestLog] = {}  # by the studio's address


@contextlib.contextmanager
def served(wrap=None):
    """A studio (its requests logged for :func:`page_state`), as :func:`running` serves it."""
    log = RequestLog()
    with running(time_limit=20.0, wrap=lambda app: (wrap or (lambda a: a))(log.wrap(app))) as address:
        LOGS[address] = log
        try:
            yield address
        finally:
            LOGS.pop(address, None)


def page_state(driver) -> str:
    """What the page shows and what its studio was asked: for a failing wait's message."""
    def shown(element_id):
        found = driver.find_elements(By.ID, element_id)
        return found[0].get_attribute("textContent") if found else None

    verdict = driver.find_element(By.ID, "verdict")
    fields = "; ".join(f"#{k} {shown(k)!r}" for k in ("verdict-detail", "explain-summary", "count-result", "gen-result",
                                                      "apply-error"))
    origin = "/".join(driver.current_url.split("/")[:3])
    return (f"\npage: #verdict {verdict.text!r} (class {verdict.get_attribute('class')!r}); {fields}\n"
            f"board:\n{instance_text(driver)}\n{LOGS.get(origin, 'no request log for ' + origin)}")


def text_within(driver, element_id: str, wanted: str, seconds: float) -> str:
    """The element's text once it contains ``wanted``; failing, says what the page showed instead."""
    deadline = time.monotonic() + seconds
    while True:
        text = driver.find_element(By.ID, element_id).text
        if wanted in text:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"#{element_id} still shows {text!r} after {seconds:g} s, not {wanted!r}"
                                 + page_state(driver))
        time.sleep(0.05)


def downloaded(path: Path, seconds: float = 20) -> bytes:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} was not downloaded"
        time.sleep(0.05)
    time.sleep(0.2)
    return path.read_bytes()


@pytest.fixture(scope="module")
def url():
    with served() as address:
        yield address


@pytest.fixture
def browser(tmp_path):
    driver_path = shutil.which("chromedriver")
    assert driver_path, "chromium is here but chromedriver is not: apt-get install chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,900"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": str(tmp_path),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    try:
        yield driver
    finally:
        driver.quit()


def cell(driver, r, c):
    return driver.find_element(By.CSS_SELECTOR, f'#board .cell[data-r="{r}"][data-c="{c}"]')


def settled_verdict(driver, timeout=30) -> str:
    """The verdict once no check is pending (the debounce passed, the answer shown)."""
    def done(d):
        element = d.find_element(By.ID, "verdict")
        busy = "busy" in (element.get_attribute("class") or "")
        return element.get_attribute("data-verdict") if not busy and element.get_attribute("data-verdict") else False

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(done)
    except TimeoutException:
        raise AssertionError(f"no settled verdict after {timeout} s" + page_state(driver)) from None


def test_draw_an_lpanel_see_unique_then_change_it(url, browser, tmp_path):
    t0 = time.perf_counter()
    browser.get(url + "/" + pack(OPEN_6X6))
    assert settled_verdict(browser) == "none"  # 6x6 open board of L4: the parity colouring

    # a drag blocks the cells it passes, a drag that starts on a blocked cell unblocks them
    ActionChains(browser).click_and_hold(cell(browser, 0, 0)).move_to_element(cell(browser, 0, 1)) \
        .move_to_element(cell(browser, 0, 2)).release().perform()
    assert [("blocked" in cell(browser, 0, c).get_attribute("class")) for c in range(4)] == [True, True, True, False]
    ActionChains(browser).click_and_hold(cell(browser, 0, 2)).move_to_element(cell(browser, 0, 1)) \
        .move_to_element(cell(browser, 0, 0)).release().perform()
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .cell.blocked")

    # draw the L-Panel puzzle by clicks
    grid = [line for line in LPANEL.read_text().splitlines() if line and set(line) <= {".", "#"}]
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == "#":
                cell(browser, r, c).click()
    assert settled_verdict(browser) == "unique"
    shown = browser.find_element(By.ID, "instance-text").get_attribute("value")
    assert shown.splitlines()[0] == "pieces: L4" and shown.splitlines()[1:] == grid
    assert browser.find_elements(By.CSS_SELECTOR, "#picture svg .tile")
    browser.save_screenshot(str(tmp_path / "unique.png"))

    # the SVG downloads, and is the one --svg writes
    browser.find_element(By.ID, "download-svg").click()
    svg = tmp_path / "tiling.svg"
    deadline = time.monotonic() + 10
    while not svg.exists():
        assert time.monotonic() < deadline, "the SVG was not downloaded"
        time.sleep(0.05)
    time.sleep(0.2)
    instance = load_instance(LPANEL)
    expected = tiling_svg(instance, check_unique(instance).tilings).as_svg()
    assert svg.read_text() == expected

    # one more blocked cell: 27 cells cannot take L-tetrominoes
    r, c = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == ".")
    cell(browser, r, c).click()
    assert settled_verdict(browser) == "none"
    assert "no tiling exists" in browser.find_element(By.ID, "verdict-detail").text
    # and unblocking it brings `unique` back
    cell(browser, r, c).click()
    assert settled_verdict(browser) == "unique"
    print(f"browser test: {time.perf_counter() - t0:.1f} s")


def test_quick_edits_show_the_last_boards_answer(url, browser):
    browser.get(url + "/" + pack(OPEN_6X6))
    settled_verdict(browser)
    # many edits faster than the debounce: only the last board is checked, and the page shows its answer
    for c in range(6):
        cell(browser, 0, c).click()
    for c in range(6):
        cell(browser, 0, c).click()
    assert settled_verdict(browser) == "none"
    text = browser.find_element(By.ID, "instance-text").get_attribute("value")
    assert "#" not in text.split("\n", 1)[1]


def test_open_generate_count_and_a_custom_shape(url, browser, tmp_path):
    browser.get(url + "/")
    settled_verdict(browser)
    # open an instance file
    before = instance_text(browser)
    browser.find_element(By.ID, "open-file").send_keys(str(ROOT / "instances" / "lpanel-4x8-multiple.txt"))
    WebDriverWait(browser, 10).until(lambda d: instance_text(d) != before)  # the file is read asynchronously
    assert settled_verdict(browser) == "multiple"
    assert "differ at 8 cells" in browser.find_element(By.ID, "verdict-detail").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#picture svg .tiling")) == 2
    assert browser.find_elements(By.CSS_SELECTOR, "#picture svg .marked")

    # count it
    browser.find_element(By.ID, "count").click()
    shown = text_within(browser, "count-result", "tilings (", 30)
    from tilesat.questions.count import count_tilings

    expected = count_tilings(load_instance(ROOT / "instances" / "lpanel-4x8-multiple.txt"), "dlx").count
    assert shown.startswith(f"{expected:,} tilings")

    # generate a puzzle: the board is replaced and it is unique
    size = browser.find_element(By.ID, "gen-size")
    size.clear()
    size.send_keys("8x8")
    Select(browser.find_element(By.ID, "gen-difficulty")).select_by_visible_text("medium")
    browser.find_element(By.ID, "generate").click()
    text_within(browser, "gen-result", "generated a unique 8x8", 60)
    assert "grade medium" in browser.find_element(By.ID, "gen-result").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell")) == 64
    assert settled_verdict(browser) == "unique"
    assert "grade medium" in browser.find_element(By.ID, "verdict-detail").text  # check-unique grades it too

    # a custom shape: an O-tetromino drawn on the small grid, the only piece
    browser.find_element(By.CSS_SELECTOR, "#custom-shape summary").click()
    for k in (0, 1, 5, 6):
        browser.find_elements(By.CSS_SELECTOR, "#shape-grid .cell")[k].click()
    browser.find_element(By.ID, "add-shape").click()
    browser.find_element(By.CSS_SELECTOR, '#piece-palette .chip[data-piece="L4"]').click()  # L4 off
    assert browser.find_element(By.ID, "pieces-text").get_attribute("value") == "Q"
    for name in ("rows", "cols"):
        field = browser.find_element(By.ID, name)
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("2", Keys.TAB)  # the change event: the board is resized
    browser.find_element(By.ID, "clear-board").click()
    assert settled_verdict(browser) == "unique"
    text = browser.find_element(By.ID, "instance-text").get_attribute("value")
    assert text.endswith("\npieces: Q\nshape: Q ##/##\n..\n..\n")
    assert text.startswith("; Made by tilesat generate --size 8x8")  # the generated file's comments are kept


def _slow_checks(app):
    """Each check-unique request waits 1 s before it reaches the studio: a check surely in flight."""
    import asyncio

    async def wrapped(scope, receive, send):
        if scope["type"] == "http" and scope["path"] == "/api/check-unique":
            await asyncio.sleep(1.0)
        await app(scope, receive, send)

    return wrapped


def test_an_edit_aborts_the_check_in_flight(browser):
    with served(wrap=_slow_checks) as address:
        browser.get(address + "/" + pack(OPEN_6X6))
        settled_verdict(browser)
        browser.execute_script("""
            window.aborted = window.checks = 0;
            const fetch0 = window.fetch;
            window.fetch = (...args) => {
              if (String(args[0]).endsWith("/api/check-unique")) window.checks++;
              return fetch0(...args).catch((e) => { if (e.name === "AbortError") window.aborted++; throw e; });
            };
        """)
        cell(browser, 0, 0).click()
        # past the debounce: that board's check in flight (a second or more, _slow_checks)
        WebDriverWait(browser, 30, poll_frequency=0.02).until(lambda d: d.execute_script("return window.checks") == 1)
        cell(browser, 0, 1).click()
        assert settled_verdict(browser) == "none"
        assert browser.execute_script("return window.aborted") == 1
        text = browser.find_element(By.ID, "instance-text").get_attribute("value")
        assert text.splitlines()[1] == "##...."  # the answer shown is the second board's


def _load_text(driver, text):
    driver.execute_script("arguments[0].open = true;", driver.find_element(By.ID, "instance-box"))
    area = driver.find_element(By.ID, "instance-text")
    driver.execute_script("arguments[0].value = arguments[1];", area, text)
    driver.find_element(By.ID, "apply-text").click()


def explained(driver, timeout=30) -> str:
    """The verdict explain's answer was shown for (once it is)."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            lambda d: d.find_element(By.ID, "explain-list").get_attribute("data-verdict") or False)
    except TimeoutException:
        raise AssertionError(f"explain's answer not shown after {timeout} s" + page_state(driver)) from None


def test_explain_shades_the_regions_and_a_repair_is_one_click(url, browser):
    browser.get(url + "/")
    settled_verdict(browser)
    # two rooms of 2x3 either side of a black wall, each tiled by L3 two ways
    _load_text(browser, "pieces: L3\n...#...\n...#...\n")
    assert settled_verdict(browser) == "multiple"
    assert explained(browser) == "multiple"
    letters = {(r, c): cell(browser, r, c).get_attribute("data-region") for r in range(2) for c in range(7) if c != 3}
    assert set(letters.values()) == {"A", "B"} and letters[(0, 0)] == "A" and letters[(1, 6)] == "B"
    summary = browser.find_element(By.ID, "explain-summary").text
    assert "2 ambiguous regions" in summary and "A: 6 cells, 2 ways" in summary and "4 tilings" in summary
    first = browser.find_elements(By.CSS_SELECTOR, "#explain-list li")[0]
    assert "give 2 clue tiles (minimum)" in first.text
    first.find_element(By.CSS_SELECTOR, "button.apply").click()  # the clue tiles blacked out
    assert settled_verdict(browser) == "unique"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell.blocked")) == 2 + 6

    # a board with no tiling: its failing cells in red
    _load_text(browser, "pieces: L4\n#.......\n.#......\n........\n........\n")
    assert settled_verdict(browser) == "none"
    assert explained(browser) == "none"
    red = {(int(el.get_attribute("data-r")), int(el.get_attribute("data-c")))
           for el in browser.find_elements(By.CSS_SELECTOR, "#board .cell.failing")}
    assert (0, 1) in red and (1, 0) in red
    assert "cannot all be covered" in browser.find_element(By.ID, "explain-summary").text


# explain's next answer comes, but is not shown until window.showHeldExplanation() (the page's own
# showExplanation then): the moment it lands is the test's, as it is a loaded machine's
HOLD_EXPLANATION = """
const show = window.showExplanation;
window.showExplanation = (data) => {
  window.showExplanation = show;
  window.showHeldExplanation = () => { window.showHeldExplanation = null; show(data); };
};
"""


def _explanation_held(driver, text: str) -> None:
    """``text``'s board on the page opened, checked, its explanation held (:data:`HOLD_EXPLANATION`)."""
    settled_verdict(driver)
    explained(driver)  # the first board's explanation shown: the next one held is the new board's
    driver.execute_script(HOLD_EXPLANATION)
    _load_text(driver, text)
    settled_verdict(driver)
    WebDriverWait(driver, 30, poll_frequency=0.05).until(lambda d: d.execute_script("return !!window.showHeldExplanation"))


def control_positions(driver) -> dict:
    """Where each control on the page is (those explain's answer brings excepted)."""
    return driver.execute_script("""
        const at = {};
        [...document.querySelectorAll("button, input, select, textarea, summary, label.button")]
          .filter((el) => !el.closest("#explain-list") && el.getClientRects().length).forEach((el, k) => {
            const r = el.getBoundingClientRect();
            at[(el.id || el.tagName + "." + el.className) + "#" + k] = [r.left + scrollX, r.top + scrollY, r.width, r.height];
          });
        return at;""")


def test_explains_answer_moves_no_control(url, browser):
    """Explain answers after the verdict, up to its 10 s later: what it shows moves no control, so
    a click aimed at one as the answer lands hits it (Count, Generate and Apply were below it)."""
    browser.get(url + "/")
    _explanation_held(browser, (ROOT / "instances" / "lpanel-4x8-multiple.txt").read_text())
    before = control_positions(browser)
    browser.execute_script("window.showHeldExplanation()")
    assert explained(browser) == "multiple"
    assert browser.find_elements(By.CSS_SELECTOR, "#explain-list li button.apply")  # it brought repairs
    after = control_positions(browser)
    assert {k: (before[k], v) for k, v in after.items() if before.get(k) != v} == {}
    assert "count" in "".join(after) and "generate" in "".join(after) and "apply-text" in "".join(after)


def test_count_clicked_as_explains_answer_lands_counts(url, browser):
    """Was (CI, a loaded 2-core machine): explain's answer landed while chromedriver clicked Count;
    the repairs it lists pushed Count down and the click blacked out a repair's cells instead
    (no count asked for, #count-result empty for good)."""
    browser.get(url + "/")
    text = (ROOT / "instances" / "lpanel-4x8-multiple.txt").read_text()
    _explanation_held(browser, text)
    board = instance_text(browser)
    # the click's first mouse event shows the answer: between where the click aims and where it lands
    browser.execute_script("""
        const land = () => { if (window.showHeldExplanation) window.showHeldExplanation(); };
        for (const kind of ["mousemove", "mousedown"]) document.addEventListener(kind, land, { once: true, capture: true });
        document.addEventListener("click", (e) => { window.clicked = e.target.id || e.target.textContent; }, { once: true });""")
    browser.find_element(By.ID, "count").click()
    assert browser.execute_script("return window.clicked") == "count", "the click landed elsewhere" + page_state(browser)
    shown = text_within(browser, "count-result", "tilings (", 60)
    assert explained(browser) == "multiple"  # the answer did land during the click
    assert instance_text(browser) == board, "the click edited the board"
    from tilesat.questions.count import count_tilings

    assert shown.startswith(f"{count_tilings(parse_instance(text), 'dlx').count:,} tilings"), shown


def test_the_first_board_has_exactly_one_tiling(url, browser):
    """Was: the studio opened on the open 6x6 L4 board, which has no tiling."""
    browser.get(url + "/")
    assert settled_verdict(browser) == "unique"
    text = instance_text(browser)
    assert text.startswith("; ")  # its comments are shown, as a loaded file's are
    first = parse_instance(text)
    assert check_unique(first).verdict == "unique"
    assert (first.board.open == load_instance(LPANEL).board.open).all()


def test_a_link_carries_the_board_and_its_comments(url, browser):
    browser.get(url + "/")
    settled_verdict(browser)
    text = "; two rooms, two ways each\npieces: L3\n...#...\n...#...\n"
    _load_text(browser, text)
    assert settled_verdict(browser) == "multiple"
    assert instance_text(browser) == text  # the ';' line kept
    link = WebDriverWait(browser, 10).until(lambda d: "#i=" in d.current_url and unpack(d.current_url) == text
                                            and d.current_url)
    assert browser.find_element(By.ID, "share-url").get_attribute("value") == link

    # the link opens the same board, in a page of its own
    browser.get("about:blank")
    browser.get(link)
    assert settled_verdict(browser) == "multiple"
    assert instance_text(browser) == text

    # compact: a 32x32 board's link is a small part of its file
    big = "pieces: L4\n" + ("." * 32 + "\n") * 32
    browser.get("about:blank")
    browser.get(url + "/" + pack(big))
    assert settled_verdict(browser) in ("multiple", "unknown")  # many tilings, found within the time limit or not
    link = WebDriverWait(browser, 10).until(lambda d: "#i=" in d.current_url and d.current_url)
    assert unpack(link) == big and len(link.split("#", 1)[1]) < len(big) / 20

    # a damaged link says so, and the first board is shown
    browser.get("about:blank")
    browser.get(url + "/#i=@@not-base64")
    assert settled_verdict(browser) == "unique"
    assert "cannot be read" in browser.find_element(By.ID, "apply-error").text


def test_print_gives_the_puzzle_and_solution_pages_and_png_the_picture(url, browser, tmp_path):
    pdfium = pytest.importorskip("pypdfium2")
    browser.get(url + "/")
    assert settled_verdict(browser) == "unique"
    browser.find_element(By.ID, "download-pdf").click()
    pdf = pdfium.PdfDocument(downloaded(tmp_path / "puzzle.pdf"))
    assert len(pdf) == 2  # the puzzle, then its solution
    # the puzzle page shows the board empty, the solution page its tiles: different pictures
    pages = [pdf[k].render(scale=1).to_pil().convert("L") for k in range(2)]
    assert pages[0].tobytes() != pages[1].tobytes()
    # the PNG comes the same way (drawn by the server, sent in base64)
    browser.find_element(By.ID, "download-png").click()
    assert downloaded(tmp_path / "tiling.png").startswith(b"\x89PNG\r\n\x1a\n")


HEXAGON = "grid: hex\npieces: trihexes\n  . . .\n . . . .\n. . # . .\n . . . .\n  . . .\n"  # 311 tilings
LOZENGES = "grid: triangle\npieces: diamond\n ^v^v^\n^v^v^v^\nv^v^v^v\n v^v^v\n"  # 20 tilings


@pytest.mark.parametrize("text, cells", [(HEXAGON, 18), (LOZENGES, 24)])
def test_triangle_and_hex_boards_load_draw_and_edit_by_clicks(url, browser, text, cells):
    browser.get(url + "/")
    settled_verdict(browser)
    _load_text(browser, text)
    assert settled_verdict(browser) == "multiple"
    kind = parse_instance(text).board.grid
    assert Select(browser.find_element(By.ID, "grid")).first_selected_option.get_attribute("value") == kind
    shown = parse_instance(instance_text(browser))  # written in the grid's own layout: the same board
    assert shown.board.grid == kind and (shown.board.open == parse_instance(text).board.open).all()
    polygons = browser.find_elements(By.CSS_SELECTOR, "#board svg polygon.cell:not(.blocked)")
    assert len(polygons) == cells and browser.find_elements(By.CSS_SELECTOR, "#picture svg .tile")

    # a click blocks a cell: the board the page writes has one open cell fewer, and its verdict is the CLI's
    r, c = polygons[0].get_attribute("data-r"), polygons[0].get_attribute("data-c")
    polygons[0].click()
    verdict = settled_verdict(browser)
    edited = parse_instance(instance_text(browser))
    assert edited.board.area == shown.board.area - 1
    assert verdict == check_unique(edited).verdict == "none"  # the cells no longer a multiple of the piece's
    assert "blocked" in cell(browser, r, c).get_attribute("class")
    cell(browser, r, c).click()  # opened again
    assert settled_verdict(browser) == "multiple"
    assert parse_instance(instance_text(browser)).board.area == shown.board.area


def test_switching_to_hexagons_gives_a_board_with_tilings(url, browser):
    browser.get(url + "/")
    settled_verdict(browser)
    Select(browser.find_element(By.ID, "grid")).select_by_value("hex")
    verdict = settled_verdict(browser)
    text = instance_text(browser)
    assert "grid: hex" in text and "pieces: dihex" in text
    assert verdict == check_unique(parse_instance(text)).verdict != "error"


def test_cells_that_may_stay_empty_and_colours_are_shown_and_kept(url, browser):
    """'+' cells and colour letters (and the colours: header) are shown on the board and
    written back as they were: the studio's answer is the command line's."""
    text = "colours: A:A, B:B\nshape: D #A\nshape: E AB\npieces: D, E:0..1\n..+A\nAB+.\n"
    browser.get(url + "/" + pack(text))
    assert settled_verdict(browser) == check_unique(parse_instance(text)).verdict == "multiple"
    shown = parse_instance(instance_text(browser))
    want = parse_instance(text)
    assert (shown.board.optional == want.board.optional).all() and (shown.board.colour == want.board.colour).all()
    assert shown.pairs == want.pairs and shown.rule("E").piece.colours == (1, 2)
    assert cell(browser, 0, 2).get_attribute("textContent") == "+" and cell(browser, 1, 1).get_attribute("textContent") == "B"
    hexagons = "grid: hex\nshape: D #A\npieces: D\n . A + .\n. . a B\n"
    browser.get("about:blank")
    browser.get(url + "/" + pack(hexagons))
    assert settled_verdict(browser) == check_unique(parse_instance(hexagons)).verdict
    marks = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#board svg text")]
    assert sorted(marks) == ["+", "A", "B", "a"]
    assert (parse_instance(instance_text(browser)).board.colour == parse_instance(hexagons).board.colour).all()


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and ":" not in line and not line.startswith(";")]


def _choose(driver, select_id: str, value: str) -> None:
    Select(driver.find_element(By.ID, select_id)).select_by_value(value)


def test_the_brush_marks_cells_that_may_stay_empty_and_colours(url, browser, tmp_path):
    """The board's brush: a cell may stay empty ('+'), gets a colour ('A'; both: 'a'), loses
    them again; a drag marks every cell it passes.  The instance the page writes (and saves)
    carries them and reads back the same through the text format, its verdict is the
    command line's, and the coloured cells of a piece are shown on its chip."""
    from tilesat.model.instance import format_instance

    browser.get(url + "/" + pack("shape: D #A\npieces: D\n....\n....\n"))
    settled_verdict(browser)
    coloured = browser.find_elements(By.CSS_SELECTOR, '#piece-palette .chip[data-piece="D"] rect.coloured')
    assert [r.get_attribute("data-colour") for r in coloured] == ["A"]  # the piece's coloured cell, shown

    _choose(browser, "brush", "optional")
    cell(browser, 0, 0).click()
    cell(browser, 1, 3).click()
    assert _rows(instance_text(browser)) == ["+...", "...+"]
    ActionChains(browser).click_and_hold(cell(browser, 1, 0)).move_to_element(cell(browser, 1, 1)) \
        .move_to_element(cell(browser, 1, 2)).release().perform()
    assert _rows(instance_text(browser)) == ["+...", "++++"], "a drag from a plain cell marks the cells it passes"
    ActionChains(browser).click_and_hold(cell(browser, 1, 0)).move_to_element(cell(browser, 1, 1)) \
        .move_to_element(cell(browser, 1, 2)).release().perform()
    assert _rows(instance_text(browser)) == ["+...", "...+"], "a drag from a marked cell clears them again"

    _choose(browser, "brush-colour", "B")  # choosing a colour takes the colour brush
    assert Select(browser.find_element(By.ID, "brush")).first_selected_option.get_attribute("value") == "colour"
    cell(browser, 0, 0).click()  # '+' and colour B: 'b'
    _choose(browser, "brush-colour", "A")
    cell(browser, 0, 1).click()
    cell(browser, 1, 0).click()
    cell(browser, 1, 0).click()  # the same colour again: the colour goes
    _choose(browser, "brush", "plain")
    cell(browser, 1, 3).click()  # neither
    _choose(browser, "brush", "block")
    cell(browser, 1, 1).click()
    _choose(browser, "brush", "colour")
    cell(browser, 1, 1).click()  # a colour opens a blocked cell
    assert _rows(instance_text(browser)) == ["bA..", ".A.."]
    assert "tinted" in cell(browser, 0, 1).get_attribute("class")
    assert cell(browser, 0, 1).value_of_css_property("background-color") in ("rgba(255, 216, 216, 1)", "rgb(255, 216, 216)")
    assert cell(browser, 0, 0).get_attribute("textContent") == "b" and "may stay empty" in cell(browser, 0, 0).get_attribute("title")

    colours = browser.find_element(By.ID, "colours-text")
    colours.send_keys("A:A, B:A")
    text = instance_text(browser)
    assert "colours: A:A, B:A" in text.splitlines()
    verdict = settled_verdict(browser)
    shown = parse_instance(text)
    assert verdict == check_unique(shown).verdict
    board = shown.board
    assert board.cell_chars() == {(0, 0): "b", (0, 1): "A", (1, 1): "A"} and shown.pairs is not None
    again = parse_instance(format_instance(shown))  # the text format's round trip
    assert again.board.cell_chars() == board.cell_chars() and again.pairs == shown.pairs

    # Save writes the same file
    browser.find_element(By.ID, "save-instance").click()
    assert downloaded(tmp_path / "instance.txt").decode() == text
    # the picture the studio answers with marks them (the SVG's letters)
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#picture svg .cell-marks"))
    letters = sorted(t.text for t in browser.find_elements(By.CSS_SELECTOR, "#picture svg .cell-marks text"))
    panels = len(browser.find_elements(By.CSS_SELECTOR, "#picture svg .tiling, #picture svg .puzzle"))
    assert panels and letters == sorted(list(board.cell_chars().values()) * panels), letters

    # a custom shape with a coloured cell: the colour brush paints it on the small grid
    browser.find_element(By.CSS_SELECTOR, "#custom-shape summary").click()
    _choose(browser, "brush-colour", "B")
    small = browser.find_elements(By.CSS_SELECTOR, "#shape-grid .cell")
    small[0].click()
    _choose(browser, "brush", "block")
    small[1].click()
    name = browser.find_element(By.ID, "shape-name")
    name.clear()
    name.send_keys("K")
    browser.find_element(By.ID, "add-shape").click()
    text = instance_text(browser)
    assert "shape: K B#" in text.splitlines(), text
    chip = browser.find_elements(By.CSS_SELECTOR, '#piece-palette .chip[data-piece="K"] rect.coloured')
    assert [r.get_attribute("data-colour") for r in chip] == ["B"]
    assert parse_instance(text).rule("K").piece.colours in ((2, 0), (0, 2))
    assert settled_verdict(browser) == check_unique(parse_instance(instance_text(browser))).verdict


@pytest.mark.parametrize("text", ["grid: hex\npieces: dihex\n. . . .\n . . . .\n", LOZENGES])
def test_the_brush_on_hexagons_and_triangles(url, browser, text):
    """On hex and triangle boards the brush marks the polygon clicked (its letter drawn on it);
    the file the page writes has the mark on that cell and the same open cells (a triangle's
    '^'/'v' replaced by a mark keeps the row's parity)."""
    browser.get(url + "/" + pack(text))
    settled_verdict(browser)
    polygons = browser.find_elements(By.CSS_SELECTOR, "#board svg polygon.cell:not(.blocked)")
    first, last = [(int(p.get_attribute("data-r")), int(p.get_attribute("data-c"))) for p in (polygons[0], polygons[-1])]
    _choose(browser, "brush", "optional")
    cell(browser, *first).click()
    _choose(browser, "brush-colour", "C")
    cell(browser, *last).click()
    written = instance_text(browser)
    rows = _rows(written)
    # where the page writes a cell (a triangle's rows one position right where its parity asks)
    lead = 1 if all(row.startswith(" ") for row in rows) else 0
    at = (lambda r, c: (r, r + 2 * c)) if "hex" in text else (lambda r, c: (r, c + lead))
    assert [rows[y][x] for y, x in (at(*first), at(*last))] == ["+", "C"], written
    shown = parse_instance(written)  # the library's cells may be the page's moved (a triangle row's parity kept)
    assert sorted(shown.board.cell_chars().values()) == ["+", "C"], written
    assert shown.board.area == parse_instance(text).board.area, written
    assert sorted(t.text for t in browser.find_elements(By.CSS_SELECTOR, "#board svg text.mark")) == ["+", "C"]
    assert "tinted" in cell(browser, *last).get_attribute("class")
    assert settled_verdict(browser) == check_unique(shown).verdict


def test_explain_marks_the_cells_it_names_on_a_triangle_board(url, browser):
    """The server's cells are the library's: on a triangle board whose triangles' parity is not the
    page's columns' the library's columns are the page's moved by one; the page shades the cells
    explain names, not their neighbours."""
    text = LOZENGES  # its first triangle, an up one, stands at an odd position of its row
    browser.get(url + "/" + pack(text))
    assert settled_verdict(browser) == "multiple"
    assert explained(browser) == "multiple"
    shaded = browser.find_elements(By.CSS_SELECTOR, "#board .cell.region, #board .cell.settled")
    assert len(shaded) == parse_instance(text).board.area, [e.get_attribute("outerHTML") for e in shaded]
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .cell.blocked.region, #board .cell.blocked.settled")


def test_a_first_row_of_lowercase_letters_is_written_after_grid_square(url, browser):
    """A square board whose first row is only lowercase letters ('ab': optional coloured
    cells) would read as a word; the page writes 'grid: square' above it, so the text it
    sends reads back as the same board and the verdict is the command line's."""
    text = "grid: square\nshape: D AB\npieces: D\nab\nAB\n"
    browser.get(url + "/" + pack(text))
    assert settled_verdict(browser) == check_unique(parse_instance(text)).verdict
    written = instance_text(browser)
    assert "grid: square" in written.splitlines()
    shown, want = parse_instance(written), parse_instance(text)
    assert (shown.board.optional == want.board.optional).all() and (shown.board.colour == want.board.colour).all()

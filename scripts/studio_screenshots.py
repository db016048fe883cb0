"""Screenshots of the studio for the docs (guide/studio.md): docs/studio.png (a unique L-Panel),
docs/studio-multiple.png (two tilings, the differing cells marked),
docs/studio-none.png (the mutilated chessboard: a certificate of "no tiling"),
docs/studio-explain.png (an author's draft: its ambiguous regions shaded, the repairs listed) and
docs/studio-colours.png (cells that may stay empty and coloured cells, the colour brush chosen).

Needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver).
Run from the repository: python scripts/studio_screenshots.py [NAME.png ...] (default: all)
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tilesat.studio.server import running

ROOT = Path(__file__).resolve().parent.parent
SHOTS = {
    "studio.png": "lpanel-8x8.txt",
    "studio-multiple.png": "lpanel-4x8-multiple.txt",
    "studio-none.png": "; the mutilated chessboard: two opposite corners gone\npieces: domino\n" + "\n".join(
        "".join("#" if (r, c) in ((0, 0), (11, 11)) else "." for c in range(12)) for r in range(12)) + "\n",
    "studio-explain.png": "explain-12x12.txt",
    "studio-colours.png": "optional-colours-dominoes-4x4.txt",
}


def main() -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None or shutil.which("chromedriver") is None:
        print("needs chromium and chromedriver: apt-get install chromium chromium-driver", file=sys.stderr)
        return 2
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,1040",
                     "--hide-scrollbars"):
        options.add_argument(argument)
    with running() as url:
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            for picture, instance in SHOTS.items():
                if sys.argv[1:] and picture not in sys.argv[1:]:
                    continue
                driver.get(url + "/")
                WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "verdict").get_attribute("data-verdict"))
                text = instance if "\n" in instance else (ROOT / "instances" / instance).read_text()
                driver.execute_script("document.getElementById('instance-text').value = arguments[0];"
                                      "document.getElementById('apply-text').click();", text)
                time.sleep(0.5)  # the debounce, then the answer
                WebDriverWait(driver, 30).until(
                    lambda d: "busy" not in d.find_element(By.ID, "verdict").get_attribute("class"))
                WebDriverWait(driver, 30).until(  # and explain's answer for the same board (or why it has none)
                    lambda d: d.find_element(By.ID, "explain-list").get_attribute("data-verdict")
                    or d.find_element(By.ID, "explain-summary").text not in ("", "explaining…"))
                if "colours" in picture:
                    driver.execute_script("const b = document.getElementById('brush-colour'); b.value = 'B';"
                                          "b.dispatchEvent(new Event('change'));")
                driver.save_screenshot(str(ROOT / "docs" / picture))
                print(f"docs/{picture}: {instance.splitlines()[0]}, {driver.find_element(By.ID, 'verdict').text}")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())

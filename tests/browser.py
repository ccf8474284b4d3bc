"""Headless Chromium through Selenium and the Debian chromium-driver, for the HTML pages' tests and screenshots.

The browser is the system's (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``, from Debian's
``chromium`` and ``chromium-driver``), given by path so that Selenium never looks for or fetches one of
its own.  Where it is missing the page tests skip, naming the install command, except under CI (the
``CI`` variable set), where a missing browser is a failure.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

CHROMIUM = os.environ.get("CANASTA_SIM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CANASTA_SIM_CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL = "apt-get install -y chromium chromium-driver (and pip install selenium, in the dev extra)"
AXE_INSTALL = "npm install -g axe-core (or CANASTA_SIM_AXE=path/to/axe.min.js)"
PHONE = (375, 740)
"""A phone's screen in CSS pixels (width, height), as the layout tests emulate it."""
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars",
    # A desktop's mouse (hover: hover, pointer: fine), where headless Chromium has no pointing device at all (hover:
    # none), so that what a page shows a mouse is what these tests see; a touch screen is emulated over it.
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
)


def need_selenium() -> None:
    """Skip the calling test module when selenium is not installed, naming the install command; under CI
    (the ``CI`` variable set) fail instead, since CI installs it with the dev extra."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        reason = f"the page tests need selenium and headless Chromium: {INSTALL}"
        if os.environ.get("CI"):
            raise RuntimeError(reason) from None
        import pytest

        pytest.skip(reason, allow_module_level=True)


def missing() -> str | None:
    """Why the browser cannot start here, or ``None`` when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists() and shutil.which(path) is None:
            return f"{path} is missing"
    return None


def start_chromium(*, width: int = 1400, height: int = 900):
    """Start headless Chromium with a fresh profile and network logging; return the Selenium driver.

    The caller quits it; the profile folder goes with the process (``--user-data-dir`` in a temporary folder).
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='canasta-chromium-')}")
    # Every request the page makes is logged (DevTools' Network domain), so a test can check there are none;
    # and its console, so a test can check its script raised nothing.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    # A layout check stepping through every position of a game takes about 3 s alone and passed 10 s on a machine
    # at load 10; the tests' own hard timeouts still bound a script that never returns.
    driver.set_script_timeout(30)
    return driver


PAPERS = {"Letter": (8.5, 11.0), "A4": (8.27, 11.69)}
"""Sheets a page is printed on, width and height in inches."""


def printed_sheets(driver, paper: str) -> int:
    """How many sheets of ``paper`` (a :data:`PAPERS` name) the page shown takes, printed as Chromium prints it to
    PDF with its default margins and the page's backgrounds."""
    width, height = PAPERS[paper]
    printed = driver.execute_cdp_cmd("Page.printToPDF", {"paperWidth": width, "paperHeight": height,
                                                         "printBackground": True})
    pages = re.search(rb"/Type /Pages\b[^>]*?/Count (\d+)|/Count (\d+)[^>]*?/Type /Pages\b",
                      base64.b64decode(printed["data"]))
    if pages is None:
        raise ValueError("Chromium's PDF names no page count")
    return int(pages.group(1) or pages.group(2))


def requests_made(driver) -> list[str]:
    """The URLs of every request the browser sent since the last call (DevTools' Network log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def page_errors(driver) -> list[str]:
    """The errors the pages wrote to the console since the last call (an uncaught exception is one)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_page(driver, path, fragment: str = "") -> None:
    """Load a page from disk (at ``fragment``, such as ``#step=40``) and wait until its script has drawn its first
    position."""
    from selenium.webdriver.support.ui import WebDriverWait

    requests_made(driver)  # forget what earlier pages did
    page_errors(driver)
    if fragment:  # from the same page at another fragment, the browser would only scroll: load it afresh
        driver.get("about:blank")
    driver.get(path.as_uri() + fragment)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))


def axe_script() -> str | None:
    """The text of axe-core's ``axe.min.js`` (the accessibility rules engine, from npm), or ``None`` where it is not
    installed: at ``CANASTA_SIM_AXE``, else in npm's global folders (where ``.ci/run`` installs it).  The audits that
    need it skip where it is missing."""
    named = os.environ.get("CANASTA_SIM_AXE")
    places = [Path(named)] if named else [Path(root) / "axe-core" / "axe.min.js"
                                          for root in ("/usr/lib/node_modules", "/usr/local/lib/node_modules")]
    for place in places:
        if place.is_file():
            return place.read_text(encoding="utf-8")
    return None


# Where the table's background is a gradient axe cannot judge the text's contrast on it and leaves it "to review":
# each gradient is laid flat at its lightest stop first, the worst case for the light text written on it.
_AXE_RUN = r"""
const done = arguments[arguments.length - 1];
const light = colour => { const [r, g, b] = colour.match(/[\d.]+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
for (const node of document.querySelectorAll("body *")) {
  const stops = getComputedStyle(node).backgroundImage.match(/rgba?\([^)]*\)/g);
  if (stops) node.style.background = stops.sort((a, b) => light(b) - light(a))[0];
}
const line = v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ") + " ("
  + n.failureSummary.replace(/\s+/g, " ").slice(0, 160) + ")").join("; ");
axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]}).then(
  result => done(result.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(line)),
  error => done(["axe failed: " + error]));
"""
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")
"""The rule sets audited: WCAG 2.2 A and AA, and axe's best practices."""


def serious_violations(driver, axe: str) -> list[str]:
    """Run axe-core (``axe``, the text of ``axe.min.js``) on the page shown and return its serious and critical
    violations, one line each (rule, and the first few elements with why).  The page's gradients are laid flat."""
    if not driver.execute_script("return typeof axe === 'object'"):
        driver.execute_script(axe)
    return driver.execute_async_script(_AXE_RUN, list(AXE_TAGS))


def left_to_review(driver, axe: str, selector: str) -> list[str]:
    """What axe-core (``axe``, the text of ``axe.min.js``) leaves to a person to review in the part of the page shown
    that ``selector`` picks, one line each: rule and elements."""
    if not driver.execute_script("return typeof axe === 'object'"):
        driver.execute_script(axe)
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(arguments[0], {resultTypes: ['incomplete']}).then(result => done(result.incomplete.map("
        "  v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))),"
        "  error => done(['axe failed: ' + error]));",
        selector)


def audited_at_widths(driver, path, fragment: str, widths) -> dict[int, list[str]]:
    """axe-core's serious and critical findings on a page at each width (a phone's emulated below 1000 px), or a skip
    where axe-core is not installed."""
    axe = axe_script()
    if axe is None:
        import pytest

        pytest.skip(f"the accessibility audit needs axe-core: {AXE_INSTALL}")
    found = {}
    try:
        open_page(driver, path, fragment or "#")  # loaded afresh: the audit lays the page's gradients flat
        for width in widths:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 1000})
            found[width] = serious_violations(driver, axe)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return found


"""One headless Chromium for every page test of the session (starting one takes about two seconds), and the same
browser as a phone's."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.browser import INSTALL, PHONE, missing, start_chromium


@pytest.fixture(scope="session")
def browser():
    reason = missing()
    if reason:
        if os.environ.get("CI"):  # CI installs the browser (.ci/run): its absence there is a failure
            pytest.fail(f"the page tests need headless Chromium: {reason}; {INSTALL}")
        pytest.skip(f"the page tests need headless Chromium: {reason}; install it with {INSTALL}")
    driver = start_chromium()
    yield driver
    driver.quit()


@pytest.fixture
def phone(browser):
    """The browser as a phone's: 375 px wide, with a phone's viewport rules (DevTools' device emulation)."""
    width, height = PHONE
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.fixture(scope="session")
def page(tmp_path_factory):
    """A replay page of a whole game of greedy against expert (seed 5: several hands, melds and pile takes)."""
    path = tmp_path_factory.mktemp("watched") / "game.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "5", "-s", "greedy", "-s", "expert", "--html", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="session")
def duplicate_run(tmp_path_factory):
    """A run of six games on duplicate deals (games 0 and 1 share a deal, 2 and 3 another, 4 and 5 a third), greedy
    against random, short games (R15.1 target 1000)."""
    folder = tmp_path_factory.mktemp("duplicate") / "run"
    result = CliRunner().invoke(main, ["run", "--games", "6", "--seed", "3", "--duplicate", "--workers", "1", "-q",
                                       "-s", "greedy", "-s", "random", "--rules", "target_score=1000",
                                       "--out", str(folder)])
    assert result.exit_code == 0, result.output
    return folder

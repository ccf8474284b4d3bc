"""One headless Chromium for every page test of the session (starting one takes about two seconds)."""

from __future__ import annotations

import os

import pytest

from tests.browser import INSTALL, missing, start_chromium


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

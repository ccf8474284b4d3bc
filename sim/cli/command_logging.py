"""Where the messages of a command that plays games in workers go (``run``, ``compare``, ``tune``): the terminal,
written above the progress bar rather than through it, at the level ``-q`` and ``-v`` choose, and the log file of
``--log-file``, which keeps every message with its time and process."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from tqdm import tqdm

__all__ = ["install_logging"]


class _TqdmHandler(logging.StreamHandler):
    """Writes log lines above the progress bar instead of through it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except (OSError, ValueError):
            self.handleError(record)


def _configure_logging(quiet: bool, verbose: bool, file_handler: logging.Handler | None) -> list[logging.Handler]:
    console = _TqdmHandler()
    console.setLevel(logging.ERROR if quiet else logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    handlers: list[logging.Handler] = [console]
    if file_handler is not None:
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"))
        handlers.append(file_handler)
    return handlers


def install_logging(quiet: bool, verbose: bool,
                    file_handler: logging.Handler | None) -> tuple[list[logging.Handler], Callable[[], None]]:
    """Attach a command's handlers (:func:`_configure_logging`) to the root logger; return them and the
    function that detaches and closes them and puts the root logger's level back."""
    handlers = _configure_logging(quiet, verbose, file_handler)
    root = logging.getLogger()
    previous_level = root.level
    root.setLevel(logging.DEBUG if file_handler is not None or verbose else logging.WARNING)
    for handler in handlers:
        root.addHandler(handler)

    def restore() -> None:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(previous_level)

    return handlers, restore

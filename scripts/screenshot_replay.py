"""Take the README's picture of the HTML replay: a game written by ``canasta-sim watch --html``, opened in
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by Selenium) at one position.

    python scripts/screenshot_replay.py                     # docs/img/replay.png
    python scripts/screenshot_replay.py --seed 5 --step 120 --out /tmp/replay.png

The page is the one a user gets; the picture is its table and move list at step ``--step`` as the page numbers
its steps (1 is the first hand's deal, as in ``page.html#step=N``), shrunk to a palette PNG so that it stays small.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.cli.watch import seat_strategies  # noqa: E402
from canasta_sim.core.rules import DEFAULT_RULES  # noqa: E402
from canasta_sim.terminal.html_replay import record_game  # noqa: E402
from tests.browser import missing, start_chromium  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=18, help="the game's seed (default 18)")
    parser.add_argument("--strategy", action="append", default=None, help="strategy spec (repeat for sides)")
    parser.add_argument("--step", type=int, default=509, help="the step to show, as the page numbers it (default 509)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "replay.png")
    parser.add_argument("--colours", type=int, default=96, help="palette size of the PNG (default 96)")
    arguments = parser.parse_args()
    reason = missing()
    if reason:
        print(f"cannot take the picture: {reason}", file=sys.stderr)
        return 1
    players = seat_strategies(arguments.strategy or ["greedy", "expert"])
    recorded = record_game(players, seed=arguments.seed, rules=DEFAULT_RULES, labels=[p.label for p in players],
                           names=[p.spec for p in players])
    page = Path(tempfile.mkdtemp(prefix="canasta-replay-")) / "replay.html"
    page.write_text(recorded.html(title=f"Canasta, game seed {arguments.seed}"), encoding="utf-8")
    driver = start_chromium(width=1320, height=850)
    try:
        driver.get(f"{page.as_uri()}#step={arguments.step}")
        png = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=arguments.colours)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    image.save(arguments.out, optimize=True)
    print(f"{arguments.out}: {arguments.out.stat().st_size // 1024} KB, step {arguments.step} of game seed "
          f"{arguments.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

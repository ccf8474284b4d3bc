"""A bot's buffered output as the hub takes it: a write's lines in one call, in order, and those it does not hand on
put back where they were (a line the bot wrote before any game awaited it is judged when one does, as before)."""

from __future__ import annotations

from canasta_sim.plugins.process import BotProcess


def _bot_that_wrote(data: bytes) -> BotProcess:
    bot = BotProcess(["never-started"], label="cmd:never-started")  # never started: only its buffer is used
    bot._buffer += data  # what take_output appends as the bot's stdout arrives
    return bot


def test_a_writes_complete_lines_are_taken_together_in_order_and_a_partial_line_waits_for_its_end():
    bot = _bot_that_wrote(b'{"type":"move","game":0}\n{"type":"move","game":1}\n{"type":"mo')
    assert bot.buffered_lines() == [b'{"type":"move","game":0}', b'{"type":"move","game":1}']
    assert bot.buffered_lines() == []
    bot._buffer += b've","game":2}\n'
    assert bot.buffered_lines() == [b'{"type":"move","game":2}']


def test_lines_taken_but_not_handed_on_come_back_before_what_the_bot_wrote_after_them():
    bot = _bot_that_wrote(b"first\nsecond\nthird\n")
    lines = bot.buffered_lines()
    bot._buffer += b"fourth\n"
    bot.unread(lines[1:])
    assert [bot.buffered_line(), bot.buffered_line()] == [b"second", b"third"]
    assert bot.buffered_lines() == [b"fourth"]

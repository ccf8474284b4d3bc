"""A bot that starts slowly, as a JVM or a Python importing a large library does: it sleeps before answering ``hello``.

``python protocol_slow_start.py SECONDS``: each process sleeps SECONDS before it answers ``hello``, except the first
when the environment variable ``SLOW_START_MARK`` names a file that does not exist yet: that process creates it and
answers at once (so that the command's own handshake is quick and only the processes of its games are slow).  Once
started it plays as simply as it can: it draws, never melds, asks no one, and discards the first legal discard.
"""

import json
import os
import sys
import time

SECONDS = float(sys.argv[1])
mark = os.environ.get("SLOW_START_MARK")
if mark and not os.path.exists(mark):
    open(mark, "w").close()
else:
    time.sleep(SECONDS)

MOVES = {"ask": None, "meld": None, "answer": "answer no"}

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "protocol": 1, "name": "slowstart", "version": 1, "legal": ["acquire", "discard"]}
    elif kind == "decide":
        decision = message["decision"]
        move = MOVES[decision] if decision in MOVES else message["legal"][0]
        if decision == "acquire" and "draw" in message["legal"]:
            move = "draw"
        reply = {"type": "move", "move": move}
    elif kind == "quit":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()

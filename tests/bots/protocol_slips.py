"""A protocol-2 bot that plays the first legal answer of each request but makes, once, the slip its argument names.

Slips a bot's author makes from the doc: ``game-as-text`` names its game by a text (``"game":"0"``),
``game-as-false`` and ``game-as-float`` by ``false`` or ``0.0`` (equal to 0 in some languages),
``then-after-unshown-draw`` plans the rest of a turn after a draw whose cards the request did not show,
``then-not-a-list`` sends a plan that is no list.
"""

import json
import sys

SLIP = sys.argv[1]
slipped = False


def send(message):
    print(json.dumps(message), flush=True)


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "ready", "protocol": 2, "games": 2, "name": "slips", "legal": True, "events": False})
    elif kind == "quit":
        break
    elif kind == "decide":
        game, decision, legal = message["game"], message["decision"], message["legal"]
        answer = {"type": "move", "game": game, "move": legal[0]}
        if not slipped and SLIP == "game-as-text":
            answer["game"], slipped = str(game), True
        elif not slipped and SLIP == "game-as-false":
            answer["game"], slipped = bool(game), True
        elif not slipped and SLIP == "game-as-float":
            answer["game"], slipped = float(game), True
        elif not slipped and SLIP == "then-after-unshown-draw" and legal == ["draw"]:
            answer["then"], slipped = [{"decision": "meld", "move": None}], True
        elif not slipped and SLIP == "then-not-a-list" and decision == "meld":
            answer["move"], answer["then"], slipped = None, {"decision": "discard"}, True
        send(answer)

"""A canasta bot in plain Python speaking the canasta-sim protocol (docs/protocol.md).

It imports nothing from canasta-sim: everything it knows comes from the JSON lines on its stdin.
It speaks protocol 2: one process plays up to ``GAMES`` games at once, every message naming its game
(``"game"``), and a ``decide`` carries only what changed in the view since the last one, merged here into
the game's copy.  Run it as a strategy with, for example::

    canasta-sim run --games 100 -s "cmd:python examples/protocol/bot.py" -s greedy

It asks for the legal moves of acquire and discard requests to be listed, and learns which melds
are legal the other way the protocol offers: it builds candidate melds from its hand and the
table and sends ``check`` requests.  It is asked only where it has a choice (``choices_only``): a draw
that is the only way to begin a turn, a meld decision where no meld is legal, a discard of the only
card it may throw are played for it, and its next request's view shows their effect.

Its play is simple: take the pile when it may and the pile holds at least ``patience`` cards (a
parameter: ``cmd:python examples/protocol/bot.py:patience=3``), lay the biggest legal meld it finds,
discard its least useful card, with ties broken by a generator seeded from the game's ``seed`` so that
a game replays exactly.
"""

import collections
import json
import random
import sys

NAME = "pybot"
VERSION = 3
GAMES = 128  # games this process plays at once: the more, the fewer writes and wake-ups a request
KINDS = ["JK", "2", "3b", "3r", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
JOKER, TWO, BLACK_THREE, FOUR = 0, 1, 2, 4
VALUES = [50, 20, 5, 100, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


# Messages read while waiting for a 'checked', handled afterwards.
backlog: collections.deque[dict] = collections.deque()


def receive():
    if backlog:
        return backlog.popleft()
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # the arbiter closed our input: the tournament is over
    return json.loads(line)


class Bot:
    """One game's player."""

    def __init__(self, message):
        self.game_id = message["game"]
        self.rng = random.Random(message["seed"])
        self.patience = int(message["parameters"].get("patience", 2))
        self.view = None

    def check(self, move):
        """Ask the arbiter whether ``move`` is legal now.  Requests for other games may come first (the
        arbiter sends many at once): they wait in the backlog."""
        send({"type": "check", "game": self.game_id, "move": move})
        while True:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)
            reply = json.loads(line)
            if reply["type"] == "checked" and reply["game"] == self.game_id:
                return reply["legal"]
            backlog.append(reply)

    def candidates(self, view):
        """Melds worth checking, biggest first: whole ranks from hand, wild cards onto the side's melds."""
        hand = view["hand"]
        side = view["seat"] % 2
        melded = {entry[0] for entry in view["melds"][side]}
        found = []
        wilds = [JOKER] * hand[JOKER] + [TWO] * hand[TWO]
        groups = []
        for rank in range(FOUR, len(KINDS)):
            if hand[rank] >= 3 or (rank in melded and hand[rank] >= 1):
                groups.append(" ".join([KINDS[rank]] * hand[rank]))
            elif hand[rank] == 2 and wilds:
                groups.append(" ".join([KINDS[rank]] * 2 + [KINDS[wilds[0]]]))
        if groups:
            found.append("meld " + "; ".join(groups))  # everything at once (an opening needs the points)
            found.extend("meld " + group for group in sorted(groups, key=len, reverse=True))
        for rank in sorted(melded):
            for wild in (TWO, JOKER):
                if hand[wild]:
                    found.append(f"meld {KINDS[rank]}:{KINDS[wild]}")
        return found

    def decide(self, message):
        decision = message["decision"]
        self.view.update(message["view"])  # only the fields that changed come
        view = self.view
        legal = message.get("legal")
        if decision == "acquire":
            takes = [move for move in legal if move.startswith("take")]
            if takes and len(view["pile"]) >= self.patience:
                return max(takes, key=len)
            return "draw" if "draw" in legal else legal[0]
        if decision == "ask":
            return None
        if decision == "answer":
            return "answer yes"
        if decision == "meld":
            for move in self.candidates(view):
                if self.check(move):
                    return move
            return None
        # discard: keep wild cards and pairs; throw the loosest highest card
        hand = view["hand"]

        def cost(move):
            kind = KINDS.index(move.split(" ", 1)[1])
            wild = kind in (JOKER, TWO)
            return (wild, hand[kind] >= 2, -VALUES[kind], self.rng.random())

        return min(legal, key=cost)


def main():
    bots = {}
    while True:
        message = receive()
        kind = message["type"]
        if kind == "hello":
            send({"type": "ready", "protocol": 2, "games": GAMES, "name": NAME, "version": VERSION,
                  "description": "A standalone Python example: takes piles, lays big melds, checks melds.",
                  "parameters": {"patience": 2}, "legal": ["acquire", "discard"], "events": False,
                  "choices_only": True})
        elif kind == "game":
            bots[message["game"]] = Bot(message)
        elif kind == "hand_start":
            bots[message["game"]].view = dict(message["view"])
        elif kind == "decide":
            game = message["game"]
            send({"type": "move", "game": game, "move": bots[game].decide(message)})
        elif kind == "game_end":
            del bots[message["game"]]
        elif kind == "quit":
            return
        # hand_end needs no answer; this bot keeps no memory of it


if __name__ == "__main__":
    main()

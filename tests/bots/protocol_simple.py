"""A minimal bot speaking the protocol without canasta-sim: it draws, never melds, discards the first legal discard.
``python protocol_simple.py [PROTOCOL [GAMES [drawn] [choices] [unlisted_melds] [events|inline] [helper] [stays]]]``:
protocol 1 (one game at a time) or 2 (up to GAMES at once, every message naming its game); ``drawn`` asks for a forced
draw's cards in its request (it answers the draw alone all the same); ``choices`` asks only for the decisions with more
than one legal answer; ``unlisted_melds`` asks for every decision's legal answers but the meld decision's (it needs none
there); ``events`` asks for the moves in ``events`` messages, ``inline`` for those before a request in the request;
``helper`` starts a process of its own that would outlive it (its id noted in ``SIMPLE_BOT_HELPER_LOG``); ``stays``
goes on running a minute after ``quit`` or the end of its input, and ``stays_after_games`` too once it was given a game
(the process that only answers a command's handshake ends as it should); ``slow_exit`` (in place of ``stays``) takes
a second and a half to exit, as a runtime slow to stop on a busy machine may.
Parameters: ``target`` (a seat seed) and ``kind``: in the game seeded ``target`` it writes ``garbage`` (not JSON),
answers naming a ``wrong_game``, checks a move and never answers (``check_then_hang``, protocol 2), answers with an
``error`` whose ``reason`` is ``illegal`` (``error_illegal``) or one the protocol does not have (``error_bogus``),
answers its first request ``twice`` (the second answer naming a game that waits for
none), answers a draw with a plan of the turn (``plan_after_draw``: unless it asked for
``drawn``, its card is not known yet), or leaves its process (``exit``; ``exit_leaving_output``: a process it started
in a session of its own holds its stdout open for a while); with ``kind=plan_shown_draws`` it answers
every draw whose cards were shown with its (empty) melds, in every game, and with ``kind=plan_shown_draws_asking``
with its answer to the ask decision first (not asking), whether the engine will ask it or not
(``plan_shown_draws_asking_yes``: asking, and a meld answer after it, which a plan does not hold). Its process id is
noted at ``hello`` in the file named by the environment variable ``SIMPLE_BOT_START_LOG`` and at ``quit`` in
``SIMPLE_BOT_QUIT_LOG``, when they are set; every ``game``, ``hand_start``, ``decide``, ``events`` and ``game_end``
message it reads is noted with its process id, as a line of JSON, in ``SIMPLE_BOT_MESSAGE_LOG``."""

import json
import os
import subprocess
import sys
import time

PROTOCOL = int(sys.argv[1]) if len(sys.argv) > 1 else 1
GAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 4
DRAWN = "drawn" in sys.argv[3:]
CHOICES_ONLY = "choices" in sys.argv[3:]
LEGAL = ["acquire", "ask", "answer", "discard"] if "unlisted_melds" in sys.argv[3:] else True
EVENTS = "inline" if "inline" in sys.argv[3:] else "events" in sys.argv[3:]
STAYS = "stays" in sys.argv[3:]
STAYS_AFTER_GAMES = "stays_after_games" in sys.argv[3:]
SLOW_EXIT = "slow_exit" in sys.argv[3:]
played = False  # whether it was given a game
games = {}  # game -> its 'game' message (None: protocol 1's single game)
if "helper" in sys.argv[3:]:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["SIMPLE_BOT_HELPER_LOG"], "a", encoding="utf-8") as file:
        file.write(f"{helper.pid}\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(message):
    game = games[message.get("game")]
    parameters = game["parameters"]
    if str(game["seed"]) == str(parameters.get("target")):
        kind = parameters.get("kind")
        if kind == "garbage":
            print("writing garbage", file=sys.stderr, flush=True)
            sys.stdout.write("I am not JSON\n")
            sys.stdout.flush()
            return
        if kind == "wrong_game":
            message = {**message, "game": 10_000}
        if kind == "exit":
            os._exit(5)
        if kind == "exit_leaving_output":  # a process it started, out of its group, keeps its stdout open 90 s
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(90)"], start_new_session=True)
            os._exit(5)
        if kind in ("error_illegal", "error_bogus"):  # an error naming its reason: one the protocol has, or not
            reply = {"type": "error", "message": "gave up", "reason": kind.removeprefix("error_")}
            if "game" in message:
                reply["game"] = message["game"]
            send(reply)
            return
        if kind == "check_then_hang":
            # Asks within its request, then never answers: the requests written after it wait on in the process.
            send({"type": "check", "game": message["game"], "move": "draw"})
            time.sleep(60)
    legal = message.get("legal")
    decision = message["decision"]
    if decision == "acquire":
        move = "draw" if "draw" in legal else legal[0]
    elif decision in ("ask", "meld"):
        move = None
    elif decision == "answer":
        move = "answer no"
    else:
        move = legal[0]
    reply = {"type": "move", "move": move}
    if parameters.get("kind") == "plan_after_draw" and str(game["seed"]) == str(parameters.get("target")):
        reply["then"] = [{"decision": "meld", "move": None}]
    if parameters.get("kind") == "plan_shown_draws" and "drawn" in message:
        reply["then"] = [{"decision": "meld", "move": None}]  # in every game: it never melds
    if parameters.get("kind") == "plan_shown_draws_asking" and "drawn" in message:
        reply["then"] = [{"decision": "ask", "move": None}, {"decision": "meld", "move": None}]
    if parameters.get("kind") == "plan_shown_draws_asking_yes" and "drawn" in message:
        reply["then"] = [{"decision": "ask", "move": "ask"}, {"decision": "meld", "move": None}]  # past its end
    if "game" in message:
        reply["game"] = message["game"]
    send(reply)
    if parameters.get("kind") == "twice" and str(game["seed"]) == str(parameters.get("target")):
        parameters["kind"] = ""  # once: its process is lost with it
        send(reply)


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        if os.environ.get("SIMPLE_BOT_START_LOG"):
            with open(os.environ["SIMPLE_BOT_START_LOG"], "a", encoding="utf-8") as file:
                file.write(f"{os.getpid()}\n")
        ready = {"type": "ready", "protocol": PROTOCOL, "name": f"simple{PROTOCOL}", "version": 1, "legal": LEGAL,
                 "events": EVENTS, "parameters": {"target": "", "kind": ""}}
        if PROTOCOL == 2:
            ready["games"] = GAMES
        if DRAWN:
            ready["drawn"] = True
        if CHOICES_ONLY:
            ready["choices_only"] = True
        send(ready)
    elif kind == "game":
        games[message.get("game")] = message
        played = True
    elif kind == "game_end":
        games.pop(message["game"], None)
    elif kind == "decide":
        answer(message)
    if kind in ("game", "hand_start", "decide", "events", "game_end") and os.environ.get("SIMPLE_BOT_MESSAGE_LOG"):
        with open(os.environ["SIMPLE_BOT_MESSAGE_LOG"], "a", encoding="utf-8") as file:
            file.write(json.dumps({"process": os.getpid(), "message": message}) + "\n")
    elif kind == "quit":
        if os.environ.get("SIMPLE_BOT_QUIT_LOG"):
            with open(os.environ["SIMPLE_BOT_QUIT_LOG"], "a", encoding="utf-8") as file:
                file.write(f"{os.getpid()}\n")
        break
if STAYS or STAYS_AFTER_GAMES and played:
    time.sleep(60)
elif SLOW_EXIT:
    time.sleep(1.5)

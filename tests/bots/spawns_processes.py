"""A bot speaking protocol 1 without canasta-sim that starts processes of its own, as ``python spawns_processes.py
HOW``; it draws, never melds and discards the first legal discard.  At its first request it:

- ``daemon``: starts a daemon (a double fork and ``setsid``: out of its process group and session), then plays on;
- ``holds_output``: starts a process in a session of its own that keeps its stdout open, then exits;
- ``bomb``: forks until the machine refuses (at most 400 processes), then plays on;
- ``leaves``: starts a process in its own group, plays on, and exits at ``quit`` leaving it running;
- ``exits``: starts nothing, and exits at its second turn, its seat's crash (each game then needs a new process).

Every process it starts sleeps a minute at most (no test leaves one behind for long) and notes its id in the file named
by the environment variable ``SPAWNED_LOG``, when it is set."""

import json
import os
import subprocess
import sys
import time

HOW = sys.argv[1]
LOG = os.environ.get("SPAWNED_LOG")


def note(pid):
    if LOG is None:
        return
    with open(LOG, "a", encoding="utf-8") as file:
        file.write(f"{pid}\n")


def sleeper(**options):
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **options)
    note(process.pid)


def daemon():
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.closerange(0, 3)
            time.sleep(60)
            os._exit(0)
        note(pid)  # noted before the bot goes on: it waits for this process
        os._exit(0)
    os.wait()


def bomb():
    for _ in range(400):
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        note(pid)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


asked = False
turns = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "ready", "protocol": 1, "name": f"spawns-{HOW}", "version": 1, "legal": True})
    elif kind == "decide":
        if not asked:
            asked = True
            if HOW == "daemon":
                daemon()
            elif HOW == "holds_output":
                sleeper(start_new_session=True)
                os._exit(5)
            elif HOW == "bomb":
                bomb()
            elif HOW == "leaves":
                sleeper()
        legal = message["legal"]
        decision = message["decision"]
        turns += decision == "acquire"
        if HOW == "exits" and turns == 2:
            os._exit(5)
        if decision == "acquire":
            move = "draw" if "draw" in legal else legal[0]
        elif decision in ("ask", "meld"):
            move = None
        elif decision == "answer":
            move = "answer no"
        else:
            move = legal[0]
        send({"type": "move", "move": move})
    elif kind == "quit":
        break

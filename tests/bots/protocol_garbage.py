"""A bot that completes the handshake, then answers its first decision with a line that is not JSON."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "protocol": 1, "name": "garbage", "version": 1}), flush=True)
    elif message["type"] == "decide":
        print("garbage, not the protocol", file=sys.stderr, flush=True)
        print("I am not JSON", flush=True)

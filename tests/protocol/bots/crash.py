"""A bot that crashes: at once (``start``), or with a traceback at its third decision (``later``)."""

import json
import sys


def main() -> None:
    when = sys.argv[1] if len(sys.argv) > 1 else "start"
    if when == "start":
        print("crash bot: giving up before hello", file=sys.stderr, flush=True)
        sys.exit(3)
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "crash"}), flush=True)
        elif message["type"] == "act":
            decisions += 1
            if decisions == 3:
                raise RuntimeError("crash bot: something broke at decision 3")
            print(json.dumps(message["legal"][0]), flush=True)


if __name__ == "__main__":
    main()

"""A bot that writes down every message it gets (one file per process in the folder given first)
and plays its lowest card and the cheapest row.

Options: ``--start-delay S`` waits S seconds before it reads anything (a slow start);
``--burn S`` spends S seconds of CPU time on every decision; ``--name N`` says its name in ``ready``.
Every other argument is written down as it came, on the file's first line.
"""

import json
import os
import sys
import time
from pathlib import Path


def main() -> None:
    args = sys.argv[1:]
    folder = Path(args[0])
    options = {"--start-delay": 0.0, "--burn": 0.0}
    name = "recorder"
    at = 1
    while at < len(args) and args[at] in (*options, "--name"):
        if args[at] == "--name":
            name = args[at + 1]
        else:
            options[args[at]] = float(args[at + 1])
        at += 2
    log = (folder / f"{os.getpid()}.log").open("w", encoding="utf-8")
    log.write(json.dumps(args) + "\n")
    log.flush()
    time.sleep(options["--start-delay"])
    for line in sys.stdin:
        message = json.loads(line)
        log.write(message.get("type", "?") + "\n")
        log.flush()
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "name": name}), flush=True)
        elif message["type"] == "act":
            end = time.process_time() + options["--burn"]
            while time.process_time() < end:
                pass
            view = message["view"]
            if view["must_choose_row"]:
                heads = view["row_bullheads"]
                print(json.dumps({"row": heads.index(min(heads))}), flush=True)
            else:
                print(json.dumps({"card": min(view["hand"])}), flush=True)
        elif message["type"] == "bye":
            break


if __name__ == "__main__":
    main()

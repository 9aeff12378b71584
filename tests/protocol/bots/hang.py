"""A bot that stops answering: before its hello (``start``) or at its first decision (``act``).

With a second argument ``child`` it first starts a child process that sleeps too, and says its pid
on stderr, so that a test can check that nimmt stops both.
"""

import json
import subprocess
import sys
import time


def main() -> None:
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    if "child" in sys.argv[2:]:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"child {child.pid}", file=sys.stderr, flush=True)
    if when == "start":
        time.sleep(600)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            print("hang bot: thinking forever", file=sys.stderr, flush=True)
            time.sleep(600)


if __name__ == "__main__":
    main()

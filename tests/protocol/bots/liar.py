"""A bot that answers nonsense of one kind, chosen by its first argument (the modes in ``answer``)."""

import json
import sys
from typing import Any


def answer(mode: str, message: dict[str, Any]) -> str:
    view = message["view"]
    legal = message["legal"]
    if mode == "not_held":
        held = set(view["hand"])
        return json.dumps({"card": next(c for c in range(1, 105) if c not in held)})
    if mode == "row_unasked":
        return json.dumps({"row": 0})
    if mode == "card_for_row":
        return json.dumps({"card": view["hand"][0]})
    if mode == "row_7":
        return json.dumps({"row": 7} if view["must_choose_row"] else legal[0])
    if mode == "garbage":
        return "play the 17 please"
    if mode == "huge":
        return json.dumps({"card": legal[0].get("card"), "padding": "x" * 3_000_000})
    if mode == "deep":
        return "[" * 100_000 + "]" * 100_000
    if mode == "long_number":
        return '{"card": ' + "7" * 5000 + "}"
    if mode == "array":
        return json.dumps([legal[0]])
    if mode == "bool":
        return json.dumps({"card": True})
    if mode == "both":
        return json.dumps({"card": view["hand"][0], "row": 0})
    if mode == "two_lines":
        return json.dumps(legal[0]) + "\n" + json.dumps(legal[-1])
    raise SystemExit(f"unknown mode {mode}")


def main() -> None:
    mode = sys.argv[1]
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready"} if mode != "bad_ready" else {"hello": "there"}), flush=True)
        elif message["type"] == "act":
            print(answer(mode, message), flush=True)


if __name__ == "__main__":
    main()

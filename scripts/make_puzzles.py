"""Make the bank of puzzles shipped with nimmt (``nimmt/data/puzzles.json``; see :mod:`nimmt.puzzles`).

Seeded games between nimmt's bots (3 to 5 players, ``heuristic``, ``beginner``, ``random`` and a
cheap ``expert``), each reviewed at the review's default budget; every decision whose best option
beats all the others by :data:`nimmt.puzzles.MARGIN` bullheads beyond the noise is a candidate, and
``--count`` of them are kept, one per decision, drawn at random with the seed.

    nice -n 5 .venv/bin/python scripts/make_puzzles.py [--games 12] [--count 60] [--seed 2027]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from nimmt.bots import make_bot
from nimmt.bots.expert import ExpertBot
from nimmt.match import play_game
from nimmt.puzzles import MARGIN, puzzles_of
from nimmt.review import DEFAULT_SAMPLES, review

OUT = Path(__file__).resolve().parents[1] / "nimmt" / "data" / "puzzles.json"
KINDS = ("heuristic", "beginner", "random", "expert")


def write(data: dict[str, Any]) -> None:
    """The bank, one puzzle a line."""
    head = {key: value for key, value in data.items() if key != "puzzles"}
    lines = [json.dumps(p, ensure_ascii=False) for p in data["puzzles"]]
    text = json.dumps(head, ensure_ascii=False)[:-1] + ', "puzzles": [\n' + ",\n".join(lines) + "\n]}\n"
    OUT.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2027)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    found = []
    start = time.process_time()
    for game in range(args.games):
        players = 3 + game % 3
        names = [rng.choice(KINDS) for _ in range(players)]
        bots = [ExpertBot(random.Random(rng.getrandbits(64)), time_budget=3600.0, samples=128, clock="cpu")
                if name == "expert" else make_bot(name, random.Random(rng.getrandbits(64))) for name in names]
        record = play_game(bots, random.Random(rng.getrandbits(64)))
        found += puzzles_of(record, review(record, samples=DEFAULT_SAMPLES, seed=args.seed))
        print(f"game {game + 1}: {players} players, {len(found)} candidates so far", flush=True)
    kept = rng.sample(found, min(args.count, len(found)))
    write({"made_by": f"scripts/make_puzzles.py --games {args.games} --count {args.count} --seed {args.seed}",
           "margin": MARGIN, "samples": DEFAULT_SAMPLES, "puzzles": [p.to_json() for p in kept]})
    print(f"{len(kept)} puzzles of {len(found)} candidates in {OUT} ({time.process_time() - start:.0f} s CPU)")


if __name__ == "__main__":
    main()

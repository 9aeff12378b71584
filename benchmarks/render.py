"""What the server does per connection and per update, alone: render the person's state, compare it
with the last one sent (or diff it, for a client of patches), encode the JSON that goes out.

    .venv/bin/python benchmarks/render.py [--games 3] [--compare OTHER_TREE] [--rounds 3]

It plays random games of four people through ``TableService`` (SQLite in a temporary folder, no
WebSocket), and after each action does, for each of the four seats and a spectator, what
``Connection._send_state`` does. It prints microseconds per render (median over the games) and the
bytes sent per update, for whole states and for patches. ``--compare /path/to/other/checkout`` runs
the same in that tree too (whole states only, if it has no patches), alternating the runs in one
session, and prints the medians side by side (e.g. a ``git archive`` of an older commit:
``mkdir /tmp/old && git archive HEAD~3 | tar -x -C /tmp/old``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from nimmt.core import Phase
from nimmt.server.hub import LocalHub
from nimmt.server.models import ChooseRowMessage, CreateTable, Play, Start, TableOptions
from nimmt.server.render import state_message
from nimmt.server.store import SqlStore
from nimmt.server.tables import TableService

try:
    from nimmt.server.patch import state_patch
except ImportError:  # a tree from before patches
    state_patch = None  # type: ignore[assignment]


def _encode(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))  # as Starlette's send_json


async def _game(path: Path, seed: int, patches: bool) -> tuple[float, int, int]:
    """Seconds spent, messages sent and their bytes, over one game."""
    rng = random.Random(seed)
    store = SqlStore.sqlite(path)
    await store.start()
    service = TableService(store, LocalHub(), bot_delay=0, rng=random.Random(seed))
    spent, sent, size = 0.0, 0, 0
    last: dict[int | None, dict[str, Any]] = {}
    try:
        table, _ = await service.create(CreateTable(name="P0", seats=4, options=TableOptions(rounds=2)))
        for p in range(1, 4):
            await service.join(table, f"P{p}")
        for p in range(4):
            await service.arrive(table, p)  # every page open (P0 holds the host's buttons)
        await service.act(table, 0, Start(type="start"))
        while table.status == "playing":
            assert table.recorder is not None
            state = table.recorder.state
            seat = rng.choice(state.waiting_for)
            message: Any = ChooseRowMessage(type="choose_row", row=rng.randrange(4), version=table.version) \
                if state.phase is Phase.CHOOSE_ROW else \
                Play(type="play", card=rng.choice(state.hands[seat]), version=table.version)
            await service.act(table, seat, message)
            began = time.perf_counter()
            for audience in (None, 0, 1, 2, 3):
                new = state_message(table, audience)
                before = last.get(audience)
                if before is None or not patches:
                    if new == before:
                        continue
                    text = _encode(new)
                else:
                    patch = state_patch(before, new)
                    if patch == {}:
                        continue
                    text = _encode(new if patch is None else {"type": "patch", "version": new["version"],
                                                              "patch": patch})
                last[audience] = new
                sent += 1
                size += len(text.encode("utf-8"))
            spent += time.perf_counter() - began
    finally:
        await service.close()
        await store.close()
    return spent, sent, size


def measure(games: int, patches: bool) -> dict[str, float]:
    spent: list[float] = []
    sizes: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(games):
            seconds, sent, size = asyncio.run(_game(Path(folder) / f"{seed}.sqlite3", seed, patches))
            spent.append(1e6 * seconds / sent)
            sizes.append(size / sent)
    return {"us_per_message": statistics.median(spent), "bytes_per_message": statistics.median(sizes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--compare", type=Path, help="another checkout, measured alternately with this one")
    parser.add_argument("--rounds", type=int, default=3, help="with --compare: runs of each, alternating")
    parser.add_argument("--child", choices=["whole", "patches"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.games, args.child == "patches")))
        return
    here = Path(__file__).resolve().parents[1]
    kinds = [("this tree, whole states", here, "whole")]
    if state_patch is not None:
        kinds.append(("this tree, patches", here, "patches"))
    if args.compare:
        other = args.compare.resolve()
        if (other / "nimmt" / "server" / "patch.py").exists():
            kinds.insert(0, ("other tree, patches", other, "patches"))
        kinds.insert(0, ("other tree, whole states", other, "whole"))
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in kinds}
    for _ in range(args.rounds if args.compare else 1):
        for name, tree, kind in kinds:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run([sys.executable, __file__, "--child", kind, "--games", str(args.games)], env=env,
                                 check=True, capture_output=True, text=True, timeout=600).stdout
            results[name].append(json.loads(out.strip().splitlines()[-1]))
    print(f"render + compare or diff + JSON per message sent (median of {args.games} games of 4 people, "
          f"median of the runs; load average {os.getloadavg()[0]:.2f})")
    for name, runs in results.items():
        us = statistics.median(r["us_per_message"] for r in runs)
        size = statistics.median(r["bytes_per_message"] for r in runs)
        print(f"  {name:26} {us:8.1f} us/message  {size:8.0f} bytes/message  runs: "
              + ", ".join(f"{r['us_per_message']:.0f}" for r in runs))


if __name__ == "__main__":
    main()

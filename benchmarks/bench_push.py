"""What notices cost (issue 30; docs/push.md): the tables' listener at each change of a turn-based
table, and sending (encryption, VAPID signature, the HTTP post) in the sender's threads, with the
event loop's longest lag meanwhile.

- ``--changes``: a 4-person table with a day's clock, its game started (every person asked, none at
  the table): the time :meth:`Notices.due` and the reminder's timer take at one change, averaged.
- ``--notices``: that many notices queued at once to a local push endpoint (tests/server/pushing.py,
  201 at once): the time until all were posted, and the event loop's longest lag meanwhile (a probe
  that sleeps 10 ms over and over).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_push.py --changes 20000 --notices 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import warnings
from datetime import UTC, datetime

from nimmt.people.subscriptions import Subscription
from nimmt.server.app import create_app
from nimmt.server.push import Notice, Sender, new_private_key
from tests.server.conftest import TEST_LIMITS
from tests.server.helpers import Person
from tests.server.pushing import Device, b64, push_endpoint

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def listener_cost(changes: int) -> float:
    """Seconds the listener's own work takes at one change of a 4-person turn-based table."""
    with tempfile.TemporaryDirectory() as folder, \
            TestClient(create_app(os.path.join(folder, "n.sqlite3"), bot_delay=0, limits=TEST_LIMITS)) as client:
        names = ("Ana", "Bruno", "Cleo", "Duda")
        keys = [{"X-Player-Key": client.post("/api/players", json={"name": n}).json()["key"]} for n in names]
        made = client.post("/api/tables", json={"name": "Ana", "seats": 4, "options": {"clock": 86400}},
                           headers=keys[0]).json()
        tokens = [client.post(f"/api/tables/{made['table_id']}/join", json={"name": name}, headers=key).json()["token"]
                  for name, key in zip(names[1:], keys[1:], strict=True)]
        with client.websocket_connect(f"/ws/{made['table_id']}") as socket:
            Person(socket, tokens[0]).send({"type": "start"})
        portal = client.portal
        assert portal is not None
        table = portal.call(client.app.state.service.get, made["table_id"])  # type: ignore[attr-defined]
        notices = client.app.state.notices  # type: ignore[attr-defined]

        def run() -> float:
            start = time.perf_counter()
            for _ in range(changes):
                notices.due(table)
                notices._arm(table)
            return (time.perf_counter() - start) / changes

        took: float = portal.call(run)
        return took


class _Kept:
    async def remove_endpoint(self, endpoint: str) -> bool:
        return True


async def _send(url: str, count: int) -> tuple[float, float]:
    sender = Sender(_Kept(), new_private_key(), "mailto:bench@nimmt.invalid", queue=count)  # type: ignore[arg-type]
    device = Device()
    sub = Subscription("s", "p", f"{url}/d", device.p256dh, b64(device.auth), "en", False, datetime.now(UTC), None)
    notice = Notice("k", "p", lambda _language: ("Table with Bruno", "Your card, please: 23 h left."), "/t/x",
                    ttl=3600, urgency="high", tag="turn/x/0")
    lags: list[float] = []

    async def probe() -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - start - 0.01)

    probing = asyncio.create_task(probe())
    start = time.perf_counter()
    for _ in range(count):
        sender.send(sub, notice)
    await asyncio.wait(list(sender.tasks))
    took = time.perf_counter() - start
    probing.cancel()
    await sender.close()
    return took, max(lags, default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=20000)
    parser.add_argument("--notices", type=int, default=200)
    args = parser.parse_args()
    print(f"listener: {listener_cost(args.changes) * 1e6:.1f} µs a change (4 people asked, day clock)")
    with push_endpoint() as endpoint:
        asyncio.run(_send(endpoint.url, 10))  # the imports and the first connections
        endpoint.received.clear()
        took, lag = asyncio.run(_send(endpoint.url, args.notices))
        print(f"sending: {args.notices} notices in {took:.2f} s ({took / args.notices * 1000:.1f} ms each, "
              f"4 threads), received {len(endpoint.at('/d'))}; the event loop's longest lag {lag * 1000:.1f} ms")
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

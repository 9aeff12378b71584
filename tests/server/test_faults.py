"""Two ``nimmt serve`` processes behind nginx (the documented deployment, docs/deploy/), one
PostgreSQL, one Redis: tests/server/cluster.py (issue 9, items 5 and 7).

nginx goes round-robin, skips a process that died, takes it back once it is up again, and passes a
database that is down on as a clear 503. People at a table with bots, each connected through nginx,
play to the end whatever fails, and every action a person had acknowledged is in the game's record
afterwards: ``kill -9`` of a process (its people reconnect through nginx to the other, the bots go
on), Redis restarted (updates reach the people again), PostgreSQL stopped (actions are refused with
``server_error`` and change nothing while it is down; play resumes once it is back).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from .cluster import (
    ANSWER,
    GAME,
    SITE,
    Cluster,
    Dropped,
    Node,
    bots_done,
    cards_asked,
    check_record,
    over,
    past_turn,
    play,
    render_site,
    seat_two_people,
)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with Cluster(2) as running:
        yield running
        print(running.logs())  # shown with a failing test's report


def answered_by(cluster: Cluster, response: httpx.Response) -> Node:
    return cluster.node_at(response.headers.get("X-Upstream", ""))


def test_the_tested_site_is_the_documented_one() -> None:
    documented = SITE.read_text(encoding="utf-8")
    rendered = render_site([9101, 9102, 9103], 9100)
    servers = [line.strip() for line in rendered.splitlines() if line.strip().startswith("server 127.0.0.1:")]
    assert servers == [f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in (9101, 9102, 9103)] + [
        f"server 127.0.0.1:{port} max_fails=0;" for port in (9101, 9102, 9103)]  # HTTP, then WebSockets
    assert "listen 127.0.0.1:9100;" in rendered and "[::]" not in rendered
    # Nothing else differs from the file in docs/deploy/.
    kept = [line for line in rendered.splitlines() if "127.0.0.1:91" not in line]
    assert kept == [line for line in documented.splitlines()
                    if "server 127.0.0.1:80" not in line and not line.strip().startswith("listen ")]
    with pytest.raises(ValueError, match=re.escape("server 127.0.0.1:PORT")):
        render_site([1, 2], 3, site=documented.replace("server 127.0.0.1:8002", "server 10.0.0.2:8002"))


def test_nginx_skips_a_dead_process_and_takes_it_back(cluster: Cluster) -> None:
    first, second = cluster.nodes
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        # Round-robin: both processes answer.
        assert {answered_by(cluster, http.get(f"{cluster.url}/healthz")) for _ in range(4)} == {first, second}
        # Each process's metrics are its own, scraped from it, never through the proxy.
        assert http.get(f"{cluster.url}/metrics").status_code == 404
        assert "nimmt_actions" in http.get(f"{first.url}/metrics").text
        first.kill()
        # Nothing is lost to the dead process: every request, creating tables too, reaches the other.
        for _ in range(4):
            health = http.get(f"{cluster.url}/healthz")
            assert health.status_code == 200 and answered_by(cluster, health) is second
            created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
            assert created.status_code == 201 and answered_by(cluster, created) is second, created.text
        table_id = created.json()["table_id"]
        for _ in range(2):
            with connect(f"{cluster.ws_url}/ws/{table_id}", open_timeout=ANSWER, proxy=None) as socket:
                assert socket.response is not None
                assert cluster.node_at(socket.response.headers["X-Upstream"]) is second
                socket.send(json.dumps({"type": "hello", "token": None}))
                assert json.loads(socket.recv(timeout=ANSWER))["type"] == "state"
        # Started again, it is back in the rotation once nginx's fail_timeout has passed.
        first.start()
        deadline = time.monotonic() + 60
        while answered_by(cluster, http.get(f"{cluster.url}/healthz")) is not first:
            assert time.monotonic() < deadline, "nginx never sent anything to the restarted process"
            time.sleep(0.2)


def test_a_restarted_process_is_not_kept_out_by_its_websockets(cluster: Cluster) -> None:
    """nginx counts a proxied connection as answered only once it closes: had the WebSockets' process
    been marked down when it died, a WebSocket sent to it on its return would keep it marked while
    open, and with the other process dying then, everyone would get 502s though one process runs."""
    first, second = cluster.nodes
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        table_id = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]}
                             ).json()["table_id"]
        url = f"{cluster.ws_url}/ws/{table_id}"
        first.kill()
        for _ in range(2):  # round-robin: one of them tries the dead process first
            with connect(url, open_timeout=ANSWER, proxy=None) as socket:
                assert socket.response is not None
                assert cluster.node_at(socket.response.headers["X-Upstream"]) is second
        first.start()
        time.sleep(6)  # past the documented fail_timeout (5 s), had the process been marked down
        sockets: list[ClientConnection] = []
        try:
            while not any(cluster.node_at(s.response.headers["X-Upstream"]) is first for s in sockets if s.response):
                assert len(sockets) < 6, "nginx sends no WebSocket to the process started again"
                sockets.append(connect(url, open_timeout=ANSWER, proxy=None, legacy=True))
            second.kill()
            # At once, with no 502 to try again after: WebSockets and requests reach the first process.
            with connect(url, open_timeout=ANSWER, proxy=None) as socket:
                assert socket.response is not None
                assert cluster.node_at(socket.response.headers["X-Upstream"]) is first
            info = http.get(f"{cluster.url}/api/tables/{table_id}")
            assert info.status_code == 200 and answered_by(cluster, info) is first
        finally:
            for socket in sockets:
                socket.close()


def test_a_database_that_is_down_is_a_clear_503_through_nginx(cluster: Cluster) -> None:
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        cluster.stop_postgres()
        try:
            # Both processes say so (a 503 is an answer: nginx passes it on, it does not go on to
            # the other process nor count it as down).
            health = [http.get(f"{cluster.url}/healthz") for _ in range(2)]
            assert [response.status_code for response in health] == [503, 503]
            assert {answered_by(cluster, response) for response in health} == set(cluster.nodes)
            assert health[0].json()["store"] == "down"
            created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
            assert created.status_code == 503 and created.json()["code"] == "server_error", created.text
        finally:
            cluster.start_postgres()
        # Back: both processes find the database again by themselves.
        deadline = time.monotonic() + 60
        answered: set[Node] = set()
        while answered != set(cluster.nodes):
            assert time.monotonic() < deadline, f"only {answered} found PostgreSQL again"
            again = http.get(f"{cluster.url}/healthz")
            if again.status_code == 200:
                answered.add(answered_by(cluster, again))
            else:
                time.sleep(0.2)
        created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
        assert created.status_code == 201, created.text


def test_a_game_with_each_person_on_another_process(cluster: Cluster) -> None:
    rng = random.Random(3)
    table_id, ana, bruno = seat_two_people(cluster)
    final = play(rng, [ana, bruno], over, time.monotonic() + GAME, cluster)
    # Both saw the same ending, each through their own process, and nobody was ever cut off.
    assert bruno.sync()["view"]["totals"] == final["view"]["totals"]
    assert (ana.node, bruno.node) == (cluster.nodes[0], cluster.nodes[1])
    assert ana.connections == bruno.connections == 1
    check_record(cluster, table_id, [ana, bruno], final)


def test_kill_9_of_either_process_loses_nothing(cluster: Cluster) -> None:
    """Kill the first process right after Ana's action was acknowledged there, play on through
    the second, start the first again, then kill the second: whichever process ran the bots
    died once, and the game still ends with every acknowledged action in its record."""
    rng = random.Random(5)
    table_id, ana, bruno = seat_two_people(cluster)
    people = [ana, bruno]
    deadline = time.monotonic() + GAME
    first, second = cluster.nodes
    for victim, survivor, from_turn in ((first, second, 2), (second, first, 6)):
        state = play(rng, people, cards_asked(from_turn), deadline, cluster)
        assert not over(state), "the game ended before the fault"
        on_victim = [person for person in people if person.node is victim]
        assert on_victim, f"nobody is connected to {victim.name}"
        # An action acknowledged by the victim, then at once kill -9.
        mover = on_victim[0]
        state = mover.sync()
        message = mover.decision(rng, state)
        assert message is not None
        assert mover.act(message, state)["type"] == "ack"
        chosen = message["card"]
        killed_at = time.monotonic()
        victim.kill()
        # Its people's sockets drop; they reconnect through nginx, which skips the dead process.
        for person in on_victim:
            with pytest.raises(Dropped):
                person.until("never", timeout=ANSWER)
            again = person.connect()
            assert person.node is survivor
            assert again["version"] >= person.acked[-1].version
        seen = mover.state["view"]
        revealed = {(shown["player"], shown["card"]) for shown in seen["revealed"]}  # the turn waits for a row
        assert seen["my_card"] == chosen or (seen["player"], chosen) in revealed or seen["turn"] > state["view"]["turn"]
        # The bots go on without the dead process (whose lease on them expires): the next turn,
        # whose cards the bots choose after the kill, is complete within a minute.
        turn = state["view"]["turn"]
        after = play(rng, people, past_turn(turn + 1), min(deadline, killed_at + 60), cluster)
        print(f"{victim.name} killed in turn {turn}: turn {turn + 1} complete "
              f"{time.monotonic() - killed_at:.1f} s later")
        assert after["view"]["turn"] > turn + 1
        victim.start()  # back, for the next round of this loop (the other one dies then)
    final = play(rng, people, over, deadline, cluster)
    assert ana.connections >= 2 and bruno.connections >= 2
    check_record(cluster, table_id, people, final)


def test_redis_restarted_loses_nothing_and_updates_resume(cluster: Cluster) -> None:
    rng = random.Random(8)
    table_id, ana, bruno = seat_two_people(cluster)
    people = [ana, bruno]
    deadline = time.monotonic() + GAME
    play(rng, people, cards_asked(2), deadline, cluster)
    cluster.stop_redis()
    # While Redis is down, an action is answered (not left hanging); if acknowledged, it is kept.
    state = ana.sync()
    message = ana.decision(rng, state)
    if message is not None:
        answer = ana.act(message, state)
        assert answer["type"] == "ack" or answer["code"] == "server_error", answer
    cluster.start_redis()
    # From now on nobody asks: each person acts on what the server pushes. Bruno must be told of
    # Ana's moves (they cross from her process to his through Redis), or the game stalls.
    seen_from_ana = 0
    while not over(ana.state) or not over(bruno.state):
        assert time.monotonic() < deadline, f"updates did not resume after Redis came back: Ana at " \
            f"v{ana.state['version']}, Bruno at v{bruno.state['version']}\n{cluster.logs()}"
        for person in people:
            move = person.decision(rng, person.state)
            if move is not None and not over(person.state):
                answer = person.act(move, person.state)
                assert answer["type"] == "ack", f"{person.name}: {move} refused: {answer}"
                if person is ana:
                    bruno.state_from(answer["version"], timeout=GAME)  # pushed to Bruno, unasked
                    seen_from_ana += 1
            person.receive(0.1)
    assert seen_from_ana >= 3
    assert ana.connections == bruno.connections == 1  # nobody was cut off
    check_record(cluster, table_id, people, ana.state)


def test_postgresql_stopped_refuses_actions_then_play_resumes(cluster: Cluster) -> None:
    rng = random.Random(13)
    table_id, ana, bruno = seat_two_people(cluster)
    people = [ana, bruno]
    deadline = time.monotonic() + GAME
    play(rng, people, cards_asked(2), deadline, cluster)
    # The bots choose their cards of the turn too before the look (a bot's card stored between the
    # look and PostgreSQL stopping made it 15 where 13 was looked at, under load): only people move it.
    before = bots_done(ana, deadline, cluster)
    cluster.stop_postgres()
    try:
        # Refused with a clear error, and nothing changed.
        message = ana.decision(rng, before)
        assert message is not None
        answer = ana.act(message, before)
        assert answer["type"] == "error" and answer["code"] == "server_error", answer
        during = ana.sync()
        assert during["version"] == before["version"] and during["view"]["my_card"] is None
        assert during["legal"] == before["legal"]
        with httpx.Client(trust_env=False, timeout=ANSWER) as http:
            assert http.get(f"{cluster.url}/healthz").status_code == 503
    finally:
        cluster.start_postgres()
    # Back: the same action goes through (a few tries while the processes reconnect).
    while True:
        assert time.monotonic() < deadline, "actions were still refused after PostgreSQL came back"
        state = ana.sync()
        answer = ana.act({**message, "version": state["version"]}, state)
        if answer["type"] == "ack":
            break
        assert answer["code"] == "server_error", answer
        time.sleep(0.5)
    final = play(rng, people, over, deadline, cluster)
    assert ana.connections == bruno.connections == 1
    check_record(cluster, table_id, people, final)


def test_the_front_bounds_heads_and_slow_clients(cluster: Cluster) -> None:
    """nginx, as documented, refuses a huge header and a huge URL and drops a connection that sends
    no head, while the processes go on answering."""
    import contextlib
    import socket
    from urllib.parse import urlsplit

    front = urlsplit(cluster.url)
    assert front.hostname is not None and front.port is not None
    address = (front.hostname, front.port)

    def sent(head: bytes, filler: int) -> bytes:
        with socket.create_connection(address, timeout=10) as sock:
            sock.sendall(head)
            try:
                for _ in range(filler // 65536):
                    sock.sendall(b"a" * 65536)
            except OSError:
                pass  # refused and closed
            received = b""
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                received += chunk
            return received

    assert sent(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ", 16 * 1024 * 1024).startswith(b"HTTP/1.1 400 ")
    assert sent(b"GET /", 1024 * 1024).startswith(b"HTTP/1.1 414 ")
    opened = time.monotonic()
    with socket.create_connection(address, timeout=30) as idle, contextlib.suppress(ConnectionResetError):
        assert idle.recv(65536) == b""  # closed by nginx, nothing sent
    assert 8 <= time.monotonic() - opened <= 25
    assert httpx.get(f"{cluster.url}/healthz", timeout=10).status_code == 200

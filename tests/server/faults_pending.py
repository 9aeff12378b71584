"""Two ``nimmt serve`` processes behind nginx (the documented deployment, docs/deploy/), one
PostgreSQL, one Redis; people at a table with bots, each connected through nginx (issue 9, item 7).

Whatever fails, every action a person had acknowledged is in the game's record at the end, and the
game goes on to its end: ``kill -9`` of a process (its people reconnect through nginx to the other,
the bots go on), Redis restarted (updates reach the people again), PostgreSQL stopped (actions are
refused with ``server_error`` and change nothing while it is down; play resumes once it is back).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import httpx
import pytest

from .cluster import ANSWER, GAME, Cluster, Dropped, cards_asked, check_record, over, past_turn, play, seat_two_people


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with Cluster(2, bot_delay=0.2) as running:
        yield running
        print(running.logs())  # shown with a failing test's report


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
        assert mover.state["view"]["my_card"] == chosen or mover.state["view"]["turn"] > state["view"]["turn"]
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
    before = ana.sync()
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

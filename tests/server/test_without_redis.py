"""Play goes on without Redis: Ana on one process, Bruno on the other (through nginx, the
documented deployment), Redis stopped mid-game. Each acts only on what the server pushes, unasked:
Bruno must be told of Ana's moves and Ana of Bruno's while Redis is away (each process reads the
new entries of the tables its people watch from PostgreSQL, a bounded poll), and again through
Redis once it is back. Every acknowledged action is in the record at the end."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from .cluster import GAME, Cluster, Person, cards_asked, check_record, over, play, seat_two_people

PUSHED = 10.0  # seconds a move may take to reach the other process without Redis (a poll, a busy machine)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with Cluster(2) as running:
        yield running
        print(running.logs())  # shown with a failing test's report


def _moves_pushed(rng: random.Random, people: list[Person], moves: int, deadline: float) -> list[float]:
    """Each person acts on what they were pushed; after each acknowledged move, the other is sent
    its version without asking. The seconds each took to arrive."""
    took: list[float] = []
    while len(took) < moves and not over(people[0].state):
        assert time.monotonic() < deadline, "the game stalled"
        acted = False
        for person, other in ((people[0], people[1]), (people[1], people[0])):
            move = person.decision(rng, person.state)
            if move is None or over(person.state):
                continue
            answer = person.act(move, person.state)
            assert answer["type"] == "ack", f"{person.name}: {move} refused: {answer}"
            sent = time.monotonic()
            other.state_from(answer["version"], timeout=PUSHED)  # pushed across processes, unasked
            took.append(time.monotonic() - sent)
            acted = True
        for person in people:
            person.receive(0.1)
        if not acted:
            time.sleep(0.1)  # the bots' turn
    return took


def test_two_people_on_two_processes_play_on_while_redis_is_down(cluster: Cluster) -> None:
    rng = random.Random(17)
    table_id, ana, bruno = seat_two_people(cluster)
    people = [ana, bruno]
    deadline = time.monotonic() + 2 * GAME
    play(rng, people, cards_asked(2), deadline, cluster)
    for person in people:
        person.sync()
    cluster.stop_redis()
    try:
        without = _moves_pushed(rng, people, 6, deadline)
    finally:
        cluster.start_redis()
    print(f"without Redis: {len(without)} moves pushed to the other process, in "
          + ", ".join(f"{seconds:.2f}" for seconds in without) + " s")
    assert len(without) >= 4 or over(ana.state)
    after = _moves_pushed(rng, people, 4, deadline)
    print("Redis back: " + ", ".join(f"{seconds:.2f}" for seconds in after) + " s")
    final = play(rng, people, over, deadline, cluster)
    assert ana.connections == bruno.connections == 1  # nobody was cut off
    check_record(cluster, table_id, people, final)

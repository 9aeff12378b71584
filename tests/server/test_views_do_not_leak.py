"""What each person is sent, checked against the whole game over many random games: nobody ever
gets another player's hand, a card chosen but not yet revealed, or the cards set aside."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from nimmt.core import DECK, GameState, Phase, view
from nimmt.protocol import view_to_json
from nimmt.server.hub import LocalHub, Update
from nimmt.server.models import ChooseRowMessage, CreateTable, Play, Start, TableOptions
from nimmt.server.render import state_message
from nimmt.server.store import SqlStore
from nimmt.server.tables import Table, TableService
from tests.server.helpers import run


def _cards_in(message: dict[str, Any]) -> set[int]:
    """Every card number a message shows (the public table of printed bullheads aside)."""
    cards: set[int] = set()
    view = message.get("view")
    if view:
        for key in ("rows", "played", "taken"):
            for cards_of in view[key]:
                cards.update(cards_of)
        cards.update(view["hand"])
        for key in ("my_card", "row_choice_card"):
            if view[key] is not None:
                cards.add(view[key])
        cards.update(shown["card"] for shown in view["revealed"])
        cards.update(action["card"] for action in view["legal"] if "card" in action)
    cards.update(action["card"] for action in message.get("legal", []) if "card" in action)
    reveal = message.get("reveal")
    if reveal:
        cards.update(card for card, _ in reveal["cards"])
        for placement in reveal["placements"]:
            cards.add(placement["card"])
            cards.update(placement["took"])
    for event in message.get("events", []):
        for key in ("rows", "cards"):
            cards.update(event.get(key, []))
        if "card" in event:
            cards.add(event["card"])
    return cards


def _secrets_for(state: GameState, dealt: set[int], seat: int | None) -> set[int]:
    hidden = set(DECK) - dealt  # the cards set aside this round
    for player in range(state.players):
        if player == seat:
            continue
        hidden.update(state.hands[player])
        if not state.revealed and state.chosen and state.chosen[player] is not None:
            hidden.add(state.chosen[player])  # type: ignore[arg-type]
    return hidden


def _check(update: Update, table: Table) -> None:
    """What each audience is sent on this news: its own message, rendered from the table."""
    assert update.presence is None or all(since is None or isinstance(since, float)
                                          for since in update.presence.values())
    assert table.recorder is not None
    state = table.recorder.state
    if not state.hands:
        return
    last = table.recorder.record.rounds[-1]
    dealt = set(last.rows) | {c for hand in last.hands for c in hand}
    for seat in [None, *range(state.players)]:
        message = state_message(table, seat)
        assert message["table"]["you"] == seat
        shown = _cards_in(message)
        leaked = shown & _secrets_for(state, dealt, seat)
        assert not leaked, f"seat {seat} was sent {sorted(leaked)}"
        # The view is the bot protocol's, and only the seat's own: a spectator's has no hand.
        assert message["view"] == view_to_json(view(state, seat))
        if seat is None:
            assert message["view"]["hand"] == [] and message["view"]["my_card"] is None
            assert message["legal"] == []
        else:
            assert message["view"]["hand"] == list(state.hands[seat])
            assert message["legal"] == message["view"]["legal"]  # no bot plays a seat here
        assert "token" not in str(message) and "hash" not in str(message)


async def _random_game(path: Path, players: int, seed: int) -> int:
    rng = random.Random(seed)
    store = SqlStore.sqlite(path)
    await store.start()
    hub = LocalHub()
    service = TableService(store, hub, bot_delay=0, rng=random.Random(seed))
    checked = 0
    try:
        table, _ = await service.create(
            CreateTable(name="P0", seats=players, options=TableOptions(rounds=1, end_above=66))
        )
        for p in range(1, players):
            await service.join(table, f"P{p}")
        await service.arrive(table, 0)  # P0's page is open: P0 holds the host's buttons
        async with hub.subscribe(table.id) as subscription:
            await service.act(table, 0, Start(type="start"))
            while table.status == "playing":
                assert table.recorder is not None
                state = table.recorder.state
                seat = rng.choice(state.waiting_for)
                if state.phase is Phase.CHOOSE_ROW:
                    message: Any = ChooseRowMessage(type="choose_row", row=rng.randrange(4), version=table.version)
                else:
                    message = Play(type="play", card=rng.choice(state.hands[seat]), version=table.version)
                await service.act(table, seat, message)
                while not subscription.queue.empty():
                    update = subscription.queue.get_nowait()
                    if update.version == table.version:
                        _check(update, table)
                        checked += 1
    finally:
        await service.close()
        await store.close()
    return checked


def test_no_view_ever_leaks_a_secret(tmp_path: Path) -> None:
    checked = 0
    for game in range(11):
        players = 2 + game % 9
        checked += run(_random_game(tmp_path / f"g{game}.sqlite3", players, seed=game))
    assert checked > 11 * 10

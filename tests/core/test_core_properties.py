"""Properties of random games for 2 to 10 players, checked after every single action."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.core import (
    BULLHEADS,
    DECK,
    DECK_BULLHEADS,
    Action,
    CardChosen,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    Deal,
    Event,
    GameEnded,
    GameState,
    IllegalAction,
    Phase,
    PlayCard,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    Rules,
    UnknownPlayer,
    apply,
    apply_all,
    legal_actions,
    new_game,
    view,
)
from nimmt.records import GameRecord, Recorder, loads, replay
from tests.core.core_kit import random_game, undealt

RULES = st.one_of(
    st.just(Rules()),
    st.builds(Rules, end_above=st.integers(0, 40)),
    st.builds(Rules, rounds=st.integers(1, 2), end_above=st.integers(0, 66)),
)
GAMES = settings(max_examples=100, deadline=None)


def in_play(state: GameState) -> list[int]:
    """Cards revealed this turn and not yet placed."""
    return [card for card, _ in state.revealed[state.resolved :]]


def check_cards(state: GameState, deal: Deal) -> None:
    every = [
        *(c for hand in state.hands for c in hand),
        *(c for row in state.rows for c in row),
        *(c for cards in state.taken for c in cards),
        *in_play(state),
        *undealt(deal),
    ]
    assert Counter(every) == Counter(DECK), "a card was lost or doubled"


def check_rows(state: GameState) -> None:
    assert len(state.rows) == 4
    for row in state.rows:
        assert 1 <= len(row) <= 5, row
        assert all(a < b for a, b in pairwise(row)), row


def check_bullheads(state: GameState) -> None:
    for p in range(state.players):
        assert state.penalties[p] == sum(BULLHEADS[c] for c in state.taken[p])
        assert state.totals[p] == sum(r[p] for r in state.history)
    on_table = sum(BULLHEADS[c] for row in state.rows for c in row)
    assert sum(state.penalties) + on_table + sum(BULLHEADS[c] for c in in_play(state)) <= DECK_BULLHEADS


def check_turns(state: GameState) -> None:
    assert len(state.played) == state.turn
    sizes = {len(hand) for hand in state.hands}
    assert len(sizes) == 1
    if state.phase is Phase.CHOOSE_CARDS:
        assert sizes == {10 - state.turn}
        assert state.revealed == ()
    if state.phase is Phase.CHOOSE_ROW:
        assert sizes == {9 - state.turn}
        card, player = state.revealed[state.resolved]
        assert all(row[-1] > card for row in state.rows)
        assert state.waiting_for == (player,)


def check_views(state: GameState, deal: Deal) -> None:
    waiting = set()
    for p in range(state.players):
        mine = view(state, p)
        assert legal_actions(state, p) == mine.legal_actions()
        if mine.legal_actions():
            waiting.add(p)
        assert mine.hand == (state.hands[p] if state.hands else ())
        # What a player has not seen this round: the other hands and the cards not dealt.
        others = {c for q, hand in enumerate(state.hands) if q != p for c in hand}
        assert set(mine.unseen_cards()) == others | undealt(deal)
    assert waiting == set(state.waiting_for)
    if state.phase in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
        assert waiting
    else:
        assert not waiting
    public = view(state, None)
    assert public.hand == ()
    assert public.my_card is None
    assert public.legal_actions() == ()


class EventTable:
    """A table that knows the game only from the events, as a screen showing them would."""

    def __init__(self, players: int) -> None:
        self.rows: list[tuple[int, ...]] = []
        self.penalties = [0] * players
        self.totals = [0] * players
        self.winners: tuple[int, ...] = ()

    def follow(self, action: Action, events: tuple[Event, ...], state: GameState) -> None:
        just_taken: set[int] = set()
        for event in events:
            if isinstance(event, RoundStarted):
                assert event.round == state.round
                self.rows = [(c,) for c in event.rows]
                self.penalties = [0] * state.players
            elif isinstance(event, CardChosen):
                assert isinstance(action, PlayCard) and action.player == event.player
            elif isinstance(event, CardsRevealed):
                # Still this turn's picks while a row is awaited, else the turn's played cards.
                picks = tuple(state.chosen) if state.phase is Phase.CHOOSE_ROW else state.played[-1]
                assert event.cards == picks
            elif isinstance(event, RowTaken):
                assert self.rows[event.row] == event.cards
                assert event.bullheads == sum(BULLHEADS[c] for c in event.cards)
                self.penalties[event.player] += event.bullheads
                just_taken.add(event.row)
            elif isinstance(event, CardPlaced):
                if event.row in just_taken:
                    self.rows[event.row] = (event.card,)
                    just_taken.discard(event.row)
                else:
                    assert self.rows[event.row][-1] < event.card
                    self.rows[event.row] = (*self.rows[event.row], event.card)
            elif isinstance(event, RowChoiceNeeded):
                assert state.waiting_for == (event.player,)
                assert state.row_choice_card == event.card
            elif isinstance(event, RoundEnded):
                assert list(event.penalties) == self.penalties
                self.totals = [t + p for t, p in zip(self.totals, self.penalties, strict=True)]
                assert list(event.totals) == self.totals
            elif isinstance(event, GameEnded):
                self.winners = event.winners
                assert event.totals == state.totals
        assert not just_taken
        assert tuple(self.rows) == state.rows
        assert tuple(self.penalties) == state.penalties
        assert tuple(self.totals) == state.totals
        assert self.winners == state.winners


def check_end(state: GameState, before: GameState) -> None:
    rules = state.rules
    if len(state.history) == len(before.history):
        assert state.totals == before.totals, "totals changed in the middle of a round"
        assert state.phase is not Phase.OVER
        return
    assert state.turn == 10
    if rules.rounds is not None:
        assert state.is_over is (len(state.history) == rules.rounds)
    else:
        assert state.is_over is (max(state.totals) > rules.end_above)
    if state.is_over:
        low = min(state.totals)
        assert state.winners == tuple(p for p, t in enumerate(state.totals) if t == low)
    else:
        assert state.phase is Phase.DEAL
        assert state.winners == ()


@GAMES
@given(st.integers(2, 10), st.integers(0, 2**32 - 1), RULES)
def test_random_games_keep_every_invariant(players: int, seed: int, rules: Rules) -> None:
    rng = random.Random(seed)
    recorder = Recorder(GameRecord(players=tuple(f"p{i}" for i in range(players)), rules=rules))
    before = new_game(players, rules)
    table = EventTable(players)
    for moment in random_game(players, rng, rules):
        state = moment.state
        table.follow(moment.action, moment.events, state)
        assert recorder.add(moment.action).state == state
        check_cards(state, moment.deal)
        check_rows(state)
        check_bullheads(state)
        check_turns(state)
        check_views(state, moment.deal)
        check_end(state, before)
        before = state
    assert state.is_over
    # Records round-trip: Recorder -> dumps -> loads -> replay gives the same game.
    record = loads(recorder.record.dumps())
    assert record == recorder.record
    result = replay(record)
    assert result.state == state
    assert result.totals == state.totals
    assert result.winners == state.winners
    assert result.rounds == state.history
    assert apply_all(new_game(players, rules), record.actions()) == state


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32 - 1), st.integers(1, 400))
def test_records_of_games_in_progress_round_trip(players: int, seed: int, stop: int) -> None:
    rules = Rules(rounds=3)
    moments = list(random_game(players, random.Random(seed), rules))
    stop = min(stop, len(moments))
    recorder = Recorder(GameRecord(players=tuple(f"p{i}" for i in range(players)), rules=rules))
    last_turn_start, resume_from = recorder.state, 0
    for count, moment in enumerate(moments[:stop], 1):
        recorder.add(moment.action)
        state = moment.state
        turn_start = state.phase is Phase.CHOOSE_CARDS and all(c is None for c in state.chosen)
        if turn_start or state.phase in (Phase.DEAL, Phase.OVER):
            last_turn_start, resume_from = state, count
    # A record holds complete turns only: it replays to the start of the turn in progress.
    record = loads(recorder.record.dumps())
    assert record == recorder.record
    assert replay(record).state == last_turn_start
    # A recorder resumed from the record goes on where it stopped and ends with the same record.
    resumed = Recorder(record)
    assert resumed.state == last_turn_start
    for moment in moments[resume_from:]:
        resumed.add(moment.action)
    whole = Recorder(GameRecord(players=record.players, rules=rules))
    for moment in moments:
        whole.add(moment.action)
    assert resumed.record == whole.record
    assert resumed.state == moments[-1].state


# -- a view never depends on what its player may not know -----------------------------------------


def swap_secret(state: GameState, deal: Deal, p: int, rng: random.Random) -> tuple[GameState, int] | None:
    """Exchange a card of another player's hand with an undealt card or a third player's card."""
    others = [q for q in range(state.players) if q != p and state.hands[q]]
    if not others:
        return None
    q = rng.choice(others)
    a = rng.choice(state.hands[q])
    pool = [(None, c) for c in undealt(deal)]
    pool += [(r, c) for r in range(state.players) if r not in (p, q) for c in state.hands[r]]
    if not pool:
        return None
    r, b = rng.choice(pool)
    hands = [list(hand) for hand in state.hands]
    chosen = list(state.chosen)
    hands[q] = sorted(b if c == a else c for c in hands[q])
    if not state.revealed and chosen[q] == a:
        chosen[q] = b
    if r is not None:
        hands[r] = sorted(a if c == b else c for c in hands[r])
        if not state.revealed and chosen[r] == b:
            chosen[r] = a
    # (with r None, card a simply joins the cards that were not dealt)
    return replace(state, hands=tuple(tuple(h) for h in hands), chosen=tuple(chosen)), q


def change_secret_choice(state: GameState, p: int, rng: random.Random) -> tuple[GameState, int] | None:
    """Another player picks a different card, before the reveal."""
    if state.revealed:
        return None
    others = [q for q in range(state.players)
              if q != p and state.chosen[q] is not None and len(state.hands[q]) > 1]
    if not others:
        return None
    q = rng.choice(others)
    chosen = list(state.chosen)
    chosen[q] = rng.choice([c for c in state.hands[q] if c != state.chosen[q]])
    return replace(state, chosen=tuple(chosen)), q


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_a_view_hides_what_its_player_may_not_know(players: int, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for moment in random_game(players, rng, Rules(rounds=1)):
        state = moment.state
        if state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
            continue
        p = rng.randrange(players)
        for changed in (swap_secret(state, moment.deal, p, rng), change_secret_choice(state, p, rng)):
            if changed is None:
                continue
            other, q = changed
            assert view(other, p) == view(state, p)
            assert view(other, None) == view(state, None)
            # The change was real: the player it touched does see it.
            assert view(other, q) != view(state, q)
            checked += 1
    assert checked > 0


# -- exactly the legal actions are accepted -----------------------------------------------------

NOT_CARDS: tuple[object, ...] = (-1, 0, 105, True, False, None, "1", 1.0, (1,))
NOT_ROWS: tuple[object, ...] = (-1, 4, True, False, None, "1", 1.0, (1,))


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_exactly_the_legal_actions_are_accepted(players: int, seed: int) -> None:
    rng = random.Random(seed)
    moments = list(random_game(players, rng, Rules(rounds=1)))
    for moment in rng.sample(moments, 4):
        state = moment.state
        for p in range(players):
            legal = set(legal_actions(state, p))
            tries: list[Action] = [PlayCard(p, card) for card in DECK]
            tries += [ChooseRow(p, row) for row in range(4)]
            for action in tries:
                if action in legal:
                    apply(state, action)
                else:
                    with pytest.raises(IllegalAction):
                        apply(state, action)
            # Never legal, though True == 1 and 1.0 == 1 would pass a membership test.
            for odd in NOT_CARDS:
                with pytest.raises(IllegalAction):
                    apply(state, PlayCard(p, odd))  # type: ignore[arg-type]
            for odd in NOT_ROWS:
                with pytest.raises(IllegalAction):
                    apply(state, ChooseRow(p, odd))  # type: ignore[arg-type]
        for odd in (*NOT_ROWS, players, players + 3):
            if odd in range(players) and not isinstance(odd, bool):
                continue
            with pytest.raises(UnknownPlayer if not state.is_over else IllegalAction):
                apply(state, ChooseRow(odd, 0))  # type: ignore[arg-type]

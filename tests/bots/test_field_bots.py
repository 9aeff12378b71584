"""The field of styles: every bot plays legal moves from its view alone, each plays its own style,
and ``nimmt tournament --field`` measures a bot at seeded tables drawn from the field."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from nimmt.bots import FIELD, make_bot
from nimmt.bots.field import DEFAULT_FIELD, MonteCarloFieldBot, risk_cost
from nimmt.cli.main import app
from nimmt.core import Deal, PlayCard, Rules, apply, new_game, view
from nimmt.match import play_game
from nimmt.tournament import field_table, schedule_field, tournament

CHEAP = [name for name in FIELD if not name.startswith(("field:mc", "field:dmc"))]
# The bots that pick by a rule (the search field:dmc, which stops on a clock, has tests of its own).
RULED = sorted(name for name in FIELD if name != "field:dmc")


def deal_of(players: int, cards: list[int]) -> Deal:
    return Deal(tuple(cards[:4]), tuple(tuple(sorted(cards[4 + 10 * p: 14 + 10 * p])) for p in range(players)))


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 10),
    cards=st.permutations(range(1, 105)),
    name=st.sampled_from(RULED),
    seed=st.integers(0, 2**32),
    other=st.data(),
)
def test_a_field_bot_chooses_from_its_view_alone(
    players: int, cards: list[int], name: str, seed: int, other: st.DataObject
) -> None:
    """Two tables that differ only in what seat 0 cannot see (the other hands and the cards not
    dealt) give seat 0 the same view, hence the same choice; and the choice is legal."""
    deal = deal_of(players, cards)
    hidden = cards[14:]  # every card seat 0 cannot see
    shuffled = other.draw(st.permutations(hidden))
    swapped = deal_of(players, cards[:14] + list(shuffled))
    state, twin = apply(new_game(players), deal).state, apply(new_game(players), swapped).state
    seen, seen_twin = view(state, 0), view(twin, 0)
    assert seen == seen_twin
    card = make_bot(name, random.Random(seed)).choose_card(seen)
    assert card in seen.hand
    assert make_bot(name, random.Random(seed)).choose_card(seen_twin) == card


def test_every_field_bot_plays_whole_games_legally_at_every_table_size() -> None:
    # The game refuses any illegal move (a card not held, a row that does not exist).
    rng = random.Random(11)
    for players in (2, 3, 5, 10):
        for game in range(4):
            names = [rng.choice(CHEAP) for _ in range(players - 1)] + ["field:mc10"]
            bots = [make_bot(name, random.Random(rng.random())) for name in names]
            record = play_game(bots, random.Random(game), Rules(rounds=2))
            assert len(record.rounds) == 2


def test_each_style_plays_its_rule() -> None:
    # Rows end at 10 (3 bullheads), 21 (1), 33 (5) and 47 (1); seat 0 holds 5, 12, 23, 41, 99...
    hands = ((5, 12, 23, 41, 99, 60, 61, 62, 63, 64), tuple(range(70, 80)))
    state = apply(new_game(2), Deal((10, 21, 33, 47), hands)).state
    state = apply(state, PlayCard(1, 70)).state
    seen = view(state, 0)
    picks = {name: make_bot(name, random.Random(0)).choose_card(seen) for name in CHEAP}
    assert picks["field:lowest"] == 5 and picks["field:highest"] == 99
    assert picks["field:gap"] == 12  # two above 10 (23 is two above 21 too: the lower card first)
    assert picks["field:safe"] == 12  # every row has room; then the closest fit
    assert picks["field:careless"] != 5  # 5 is below every row
    unseen = sorted(seen.unseen_cards())
    assert risk_cost(seen, 5, unseen) == (1.0, 1.0)  # below every row: the cheapest row, one bullhead
    assert risk_cost(seen, 12, unseen) == (0.0, 0.0)  # one opponent cannot bring four cards first


def test_a_field_bot_takes_the_cheapest_row() -> None:
    hands = ((1, *range(56, 65)), tuple(range(70, 80)))
    state = apply(new_game(2), Deal((55, 20, 30, 40), hands)).state
    state = apply(apply(state, PlayCard(0, 1)).state, PlayCard(1, 70)).state
    seen = view(state, 0)
    assert seen.must_choose_row
    for name in RULED:
        assert make_bot(name, random.Random(0)).choose_row(seen) == 1  # 20, 30, 40: three each; 55: seven


def test_unknown_field_bots_and_bad_sample_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="the field's bots are"):
        make_bot("field:nobody")
    with pytest.raises(ValueError, match="at least one sample"):
        MonteCarloFieldBot(random.Random(0), samples=0)


def test_field_tables_are_seeded_and_mixed() -> None:
    field = list(DEFAULT_FIELD)
    tables = [field_table("expert", field, 4, seed=3, deal_set=d) for d in range(20)]
    assert tables == [field_table("expert", field, 4, seed=3, deal_set=d) for d in range(20)]
    assert all(t[0] == "expert" and len(set(t[1:])) == 3 for t in tables)
    assert len({t[1:] for t in tables}) > 10
    assert field_table("expert", ["a", "b"], 10, seed=1, deal_set=0).count("a") in (4, 5)
    specs = schedule_field("expert", field, 4, deal_sets=2, seed=3)
    assert [(s.deal_set, s.rotation) for s in specs] == [(d, r) for d in range(2) for r in range(4)]
    for s in specs:
        assert s.seats[s.entries.index(0)] == "expert"


def test_a_bot_against_the_field() -> None:
    field = ["field:lowest", "field:highest", "field:gap", "field:safe"]
    summary = tournament(["heuristic"], games=12, seed=2, field=field, players=3)
    assert summary.games == 12 and summary.deal_sets == 4 and summary.field == tuple(field)
    assert summary.entries[0].label == "heuristic" and summary.entries[0].games == 12
    assert {s.label for s in summary.entries[1:]} <= set(field)
    assert sum(s.games for s in summary.entries[1:]) == 12 * 2
    assert summary.lead is not None and summary.lead.n == 4
    result = CliRunner().invoke(app, ["tournament", "--bots", "heuristic", "--field", "--field-bots",
                                      ",".join(field), "--players", "3", "--games", "12", "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["field"] == field and data["lead"] == summary.lead.to_json()
    two = CliRunner().invoke(app, ["tournament", "--bots", "heuristic,random", "--field"])
    assert two.exit_code == 2 and "one bot" in two.output

"""Finished games from a real record (a bot game played through the core) and a score sheet, and
one person's view of them."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from nimmt.bots import make_bot
from nimmt.match import play_game
from nimmt.people.games import from_record, from_sheet, my_game
from nimmt.people.model import PeopleError
from nimmt.records import score
from nimmt.scoresheet import ScoreSheet

WHEN = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)


def test_a_tables_game_from_its_record() -> None:
    record = play_game([make_bot("random", random.Random(seed)) for seed in range(3)], random.Random(5),
                       names=["Ana", "Bruno", "Carla"])
    scored = score(record)
    finished = from_record(record.to_json(), table_id="t1", game=2, finished_at=WHEN,
                           players=["p_ana", None, None], bots=[None, "random", None])
    assert finished.totals == scored.totals and finished.rounds == scored.rounds
    assert sum(map(sum, finished.rounds)) == sum(finished.totals) and max(finished.totals) > 66
    assert finished.winners == scored.winners and (finished.table_id, finished.game) == ("t1", 2)
    assert finished.person_ids() == ("p_ana", "bot:random", f"former:{finished.id}:2")
    mine = my_game(finished, "p_ana")
    assert mine.bullheads == scored.totals[0]
    assert mine.place == 1 + sorted(scored.totals).index(scored.totals[0])
    assert [seat.name for seat in mine.others] == ["Bruno", "Carla"]
    with pytest.raises(PeopleError):
        my_game(finished, "p_bruno")
    unfinished = record.to_json()
    unfinished["rounds"] = unfinished["rounds"][:1]
    if max(score(record).rounds[0]) <= 66:
        with pytest.raises(PeopleError, match="not over"):
            from_record(unfinished, table_id="t1", game=1, finished_at=WHEN, players=[None] * 3, bots=[None] * 3)
    with pytest.raises(PeopleError):
        from_record(record.to_json(), table_id="t1", game=1, finished_at=WHEN, players=[None] * 2, bots=[None] * 3)


def test_a_real_deck_game_and_shared_wins() -> None:
    sheet = ScoreSheet(("Ana", "Bruno", "Carla")).add_round([30, 36, 30]).add_round([10, 31, 10])
    assert sheet.is_over
    finished = from_sheet(sheet, finished_at=WHEN, players=["p_ana", "p_bruno", "p_carla"], group_id="g_1")
    assert finished.source == "sheet" and finished.totals == (40, 67, 40) and finished.winners == (0, 2)
    ana, bruno = my_game(finished, "p_ana"), my_game(finished, "p_bruno")
    assert (ana.place, ana.win, ana.bullheads) == (1, 0.5, 40)
    assert (bruno.place, bruno.win) == (3, 0.0)
    with pytest.raises(PeopleError, match="not over"):
        from_sheet(ScoreSheet(("Ana", "Bruno")).add_round([5, 5]), finished_at=WHEN, players=[None, None])


def test_fair_endings() -> None:
    """Who played to the end, who left, and whether the game is rated (docs/people.md, Fair records)."""
    from nimmt.people.games import fair_ending
    assert fair_ending([0, 1], [1], over=True) == ("played", True)  # Bruno left, Ana played on
    assert fair_ending([0], [0], over=True) == ("bots", True)  # alone with bots: a loss
    assert fair_ending([0], [0], over=False) == ("abandoned", True)
    assert fair_ending([0, 1], [0, 1], over=True) == ("bots", False)  # everybody left: nobody
    assert fair_ending([0, 1], [0, 1], over=False) == ("abandoned", False)


def test_one_who_left_is_last_in_my_games() -> None:
    record = play_game([make_bot("random", random.Random(seed)) for seed in range(3)], random.Random(5),
                       names=["Ana", "Bruno", "Carla"])
    finished = from_record(record.to_json(), table_id="t1", game=1, finished_at=WHEN, players=["p1", "p2", None],
                           bots=[None, None, "random"], people=[0, 1], left=[0])
    assert finished.ending == "played" and finished.rated and finished.left == (0,)
    ana = my_game(finished, "p1")
    assert ana.left and ana.place == 3 and ana.win == 0.0
    assert 0 not in finished.winners
    with pytest.raises(PeopleError):  # a finished game is not abandoned
        from_record(record.to_json(), table_id="t1", game=1, finished_at=WHEN, players=["p1", "p2", None],
                    bots=[None, None, "random"], people=[0, 1], left=[0, 1], abandoned=True)


def test_a_sheet_is_confirmed_by_its_saver_alone() -> None:
    sheet = ScoreSheet(("Ana", "Bruno")).add_round([40, 70])
    game = from_sheet(sheet, finished_at=WHEN, players=["p1", "p2"], group_id="g1", saved_by="p1")
    assert [seat.confirmed for seat in game.seats] == [True, False] and game.saved_by == "p1"
    assert game.person_ids()[1].startswith("former:")  # unconfirmed: somebody else until Bruno says so

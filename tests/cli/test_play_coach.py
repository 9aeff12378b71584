"""The coach in ``nimmt play``, in the real process: ``?`` at a prompt shows advice and asks again.

The positions are rebuilt in-process the way the terminal game reaches them (same derived random
sources, bots acting before the player's prompt, the scripted player of ``test_play``); the coach
is then asked in-process with the same random source, and the process must show the same numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from nimmt import i18n
from nimmt.cli._common import deal_rng, make_bots
from nimmt.cli.play import COACH_SAMPLES, HUMAN, coach_rng
from nimmt.coach import CardAdvice, RowAdvice, advise_cards, advise_rows
from nimmt.core import BULLHEADS, GameState, Phase, PlayCard, Rules, deal_cards, view
from nimmt.records import GameRecord, Recorder, load, score
from tests.cli.test_play import ScriptedHuman, expected_game, find_forced_row_seed, nimmt


def prompts(seed: int, players: int, bots: str, rules: Rules) -> Iterator[tuple[str, GameState]]:
    """Every prompt the player of ``nimmt play`` meets ("card" or "row") with the state it shows,
    when the player answers like :class:`ScriptedHuman`."""
    names = tuple(f"P{p}" for p in range(players))
    recorder = Recorder(GameRecord(players=names, rules=rules))
    seated = dict(enumerate(make_bots([bots] * (players - 1), seed, 0, first_seat=1), start=1))
    human = ScriptedHuman()
    rng = deal_rng(seed, 0)
    while (state := recorder.state).phase is not Phase.OVER:
        if state.phase is Phase.DEAL:
            recorder.add(deal_cards(players, rng))
        elif state.phase is Phase.CHOOSE_CARDS:
            for seat, bot in seated.items():
                if seat in recorder.state.waiting_for:
                    recorder.add(bot.act(view(recorder.state, seat)))
            yield "card", recorder.state
            recorder.add(PlayCard(HUMAN, human.choose_card(view(recorder.state, HUMAN))))
        elif state.waiting_for[0] == HUMAN:
            yield "row", state
            recorder.add(human.act(view(state, HUMAN)))
        else:
            recorder.add(seated[state.waiting_for[0]].act(view(state, state.waiting_for[0])))


def card_cells(item: CardAdvice) -> list[str]:
    sampled = "" if item.exact else "≈"
    return [
        f"{item.card}({BULLHEADS[item.card]})",
        "below all" if item.row is None else str(item.row + 1),
        f"{sampled}{100 * item.take_chance:.1f}",
        f"{sampled}{item.turn_bullheads:.2f}",
        f"{item.round_bullheads:.1f} ± {item.round_stderr:.1f}",
        # The neural network's: bullheads to the end of the round (at least 0), chance it is the best.
        f"{max(0.0, item.net_bullheads or 0.0):.1f} ({100 * (item.net_chance or 0.0):.0f}%)",
    ]


def row_cells(item: RowAdvice) -> list[str]:
    return [str(item.row + 1), str(item.now), f"{item.later:.1f} ± {item.later_stderr:.1f}", f"{item.total:.1f}",
            f"{max(item.now, item.net_total or 0.0):.1f}"]


def table_lines(out: str, title: str) -> list[list[list[str]]]:
    """The body rows (as lists of cells) of every table shown under ``title``."""
    tables = []
    for block in out.split(title)[1:]:
        body = block.split("┡", 1)[1].split("└", 1)[0]
        rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in body.splitlines()[1:]]
        tables.append([row for row in rows if row])
    return tables


def test_advice_on_the_cards_shows_the_coachs_numbers_and_changes_nothing(tmp_path: Path) -> None:
    rules = Rules(rounds=1)
    record, human = expected_game(11, 4, "heuristic", rules)
    # Turn 5 of the round: the rows have grown, so some cards really risk taking one.
    state = [s for kind, s in prompts(11, 4, "heuristic", rules) if kind == "card"][4]
    assert state.turn == 4
    advice = advise_cards(view(state, HUMAN), samples=COACH_SAMPLES, rng=coach_rng(11, 0, 1, 4, "card"))
    assert any(a.take_chance > 0 for a in advice) and any(a.take_chance == 0 for a in advice)
    lines = list(human.lines)
    lines[4:4] = ["?", "12345", "coach"]  # advice, a wrong answer, advice again by its word
    lines[0:0] = ["?"]
    path = tmp_path / "coached.json"
    done = nimmt("play", "--seed", "11", "--rounds", "1", "--lang", "en", "--record", str(path),
                 stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Which card do you play? (advice: ? or coach) " in out
    tables = table_lines(out, "Coach: what each card is expected to cost")
    assert len(tables) == 3
    # Same position, same seed: the same answer; and it is the coach's own answer.
    assert tables[1] == tables[2]
    assert [row[0] for row in tables[1]] == [f"{c}({BULLHEADS[c]})" for c in view(state, HUMAN).hand]
    assert tables[1] == [card_cells(a) for a in advice]
    # The network's numbers are the coach's own (none missing), its chances a distribution over the hand.
    assert all(a.net_bullheads is not None and a.net_chance is not None for a in advice)
    assert sum(a.net_chance or 0.0 for a in advice) == pytest.approx(1, abs=1e-5)
    assert "Neural network: the second opinion of a small network" in " ".join(out.split())
    assert "You do not hold card 12345" in out
    assert "The coach only advises: you choose the card." in out
    # The game went on as if nobody had asked.
    assert "Final standings" in out
    saved = load(path)
    assert saved.rounds == record.rounds
    assert score(saved) == score(record)


def test_advice_on_a_row_choice_shows_each_row_now_and_later(tmp_path: Path) -> None:
    seed, record, human = find_forced_row_seed(3)
    rules = Rules(rounds=1)
    seen = list(prompts(seed, 3, "random", rules))
    at = next(i for i, (kind, _) in enumerate(seen) if kind == "row")  # the line that answers it
    state = seen[at][1]
    advice = advise_rows(view(state, HUMAN), samples=COACH_SAMPLES, rng=coach_rng(seed, 0, 1, state.turn, "row"))
    assert [a.now for a in advice] == list(view(state, HUMAN).row_bullheads())
    lines = list(human.lines)
    lines[at:at] = ["?"]
    path = tmp_path / "rows.json"
    done = nimmt("play", "--seed", str(seed), "--players", "3", "--bots", "random", "--rounds", "1",
                 "--lang", "en", "--record", str(path), stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Which row do you take (1-4)? (advice: ? or coach) ?" in out
    (table,) = table_lines(out, "Coach: what each row costs now and later")
    assert [[row[0], *row[2:]] for row in table] == [row_cells(a) for a in advice]
    assert "The coach only advises: you choose the row." in out
    assert all(a.net_total is not None for a in advice)
    assert "Neural network: the row's bullheads now plus" in " ".join(out.split())
    assert "You choose row " in out and "Final standings" in out
    assert load(path).rounds == record.rounds


def test_a_table_without_the_coach_refuses_advice_and_plays_on(tmp_path: Path) -> None:
    seed, record, human = find_forced_row_seed(3)
    kinds = [kind for kind, _ in prompts(seed, 3, "random", Rules(rounds=1))]
    at = kinds.index("row")
    lines = list(human.lines)
    lines[at:at] = ["?"]
    lines[0:0] = ["?", "COACH"]
    path = tmp_path / "off.json"
    done = nimmt("play", "--seed", str(seed), "--players", "3", "--bots", "random", "--rounds", "1",
                 "--lang", "en", "--no-coach", "--record", str(path), stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("The coach is turned off at this table.") == 3
    assert "Coach:" not in out and "(advice:" not in out
    assert "Which card do you play? ?" in out
    assert "Final standings" in out
    assert load(path).rounds == record.rounds


@pytest.mark.parametrize("language", ["pt-PT", "pt-BR", "fr", "de", "es"])
def test_the_coach_answers_to_its_word_in_every_language(language: str) -> None:
    _ = i18n.translator(language, "play")
    done = nimmt("play", "--seed", "4", "--players", "2", "--lang", language, stdin=_("coach_word").upper() + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert _("ask_card_coach", word=_("coach_word")) in out
    assert _("coach_cards_title") in out
    (table,) = table_lines(out, _("coach_cards_title"))
    assert len(table) == 10
    # Decimals are written the language's way: 7,3 ± 0,5.
    assert all("," in row[4] and "." not in row[4] for row in table)
    assert all(re.fullmatch(r"\d+,\d \(\d+%\)", row[5]) for row in table), table  # the network's numbers
    assert " ".join(_("coach_net_cards_note").split()) in " ".join(out.split())
    assert _("bye_eof") in out

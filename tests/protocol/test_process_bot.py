"""External bots over nimmt-bot/1: real processes (Node.js and small Python scripts), good and bad."""

from __future__ import annotations

import gc
import os
import random
import shutil
import sys
import time
from pathlib import Path

import pytest

from nimmt.bots import RandomBot, make_bot
from nimmt.core import ChooseRow, Deal, GameState, Phase, PlayCard, Rules, apply, new_game, view
from nimmt.match import play_game
from nimmt.protocol import BotFailure, FailureKind, ProcessBot
from nimmt.protocol.reasons import detail_text, doing_text
from nimmt.records import replay

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
NODE_BOT = ROOT / "examples" / "node-bot" / "bot.js"
NODE = shutil.which("node") or "/usr/bin/node"


def script(name: str, *args: str) -> list[str]:
    return [sys.executable, str(BOTS / f"{name}.py"), *args]


def card_state() -> GameState:
    """Two players at turn 1; the table waits for both cards."""
    deal = Deal((10, 20, 30, 40), ((*range(1, 10), 11), (*range(21, 30), 31)))
    return apply(new_game(2), deal).state


def row_state() -> GameState:
    """Player 0's card 1 is below every row: the table waits for player 0 to choose a row."""
    state = apply(card_state(), PlayCard(1, 21)).state
    state = apply(state, PlayCard(0, 1)).state
    assert state.phase is Phase.CHOOSE_ROW and state.waiting_for == (0,)
    return state


def assert_stopped(bot: ProcessBot) -> None:
    assert bot.pid is not None
    assert not bot.running


def test_node_bot_plays_whole_games_legally() -> None:
    bots = [
        ProcessBot([NODE, str(NODE_BOT)], random.Random(1)),
        RandomBot(random.Random(2)),
        ProcessBot(f"{NODE} {NODE_BOT}", random.Random(3)),
    ]
    try:
        record = play_game(bots, random.Random(7), Rules(rounds=2))
    finally:
        for bot in bots:
            if isinstance(bot, ProcessBot):
                bot.close()
    result = replay(record)  # the record replays through the rules core: every move was legal
    assert result.finished
    node = bots[0]
    assert isinstance(node, ProcessBot)
    assert node.reported_name == "node-example"
    assert len(node.answer_times) >= 20  # ten cards a round, plus any row choices
    assert any("hello" in line for line in node.stderr_lines)  # stderr is captured, not mixed in
    assert_stopped(node)


def test_node_bot_plays_a_card_that_fits_and_takes_the_cheapest_row() -> None:
    with ProcessBot([NODE, str(NODE_BOT)]) as bot:
        # Cards 1 to 9 are below every row; 11 fits on row 0 and takes nothing.
        assert bot.act(view(card_state(), 0)) == PlayCard(0, 11)
        deal = Deal((55, 20, 30, 44), ((*range(1, 10), 11), (*range(21, 30), 31)))
        state = apply(new_game(2), deal).state
        state = apply(apply(state, PlayCard(1, 21)).state, PlayCard(0, 1)).state
        # Rows now hold 7, 2 (20 and 21), 3 and 5 bullheads: the cheapest is row 1.
        assert bot.act(view(state, 0)) == ChooseRow(0, 1)


def test_crash_at_start_reports_exit_code_and_stderr() -> None:
    bot = ProcessBot(script("crash", "start"), label="crasher")
    with bot, pytest.raises(BotFailure) as caught:
        bot.act(view(card_state(), 1))
    failure = caught.value
    assert failure.kind is FailureKind.CRASHED
    assert failure.exit_code == 3
    assert (failure.reason, failure.facts) == ("exit_code", {"code": "3"})
    assert (failure.doing_key, failure.doing_facts) == ("hello", {})
    assert failure.seat == 1 and failure.bot == "crasher"
    assert "bot 'crasher' at seat 1 exited with code 3" in str(failure)
    assert "giving up before hello" in str(failure)
    assert_stopped(bot)


def test_game_with_a_crashing_bot_raises_naming_bot_and_seat() -> None:
    bot = ProcessBot(script("crash", "later"), label="crash-later")
    with bot, pytest.raises(BotFailure) as caught:
        play_game([RandomBot(random.Random(1)), RandomBot(random.Random(2)), bot], random.Random(3))
    failure = caught.value
    assert failure.kind is FailureKind.CRASHED and failure.exit_code == 1
    assert failure.seat == 2
    assert "bot 'crash-later' at seat 2 exited with code 1" in str(failure)
    assert "something broke at decision 3" in str(failure)  # the traceback's last line
    assert_stopped(bot)
    # A failed bot stays failed: no silent move later either.
    with pytest.raises(BotFailure):
        bot.act(view(card_state(), 0))


def test_program_that_does_not_exist() -> None:
    with ProcessBot(["/nonexistent/bot-program"]) as bot, pytest.raises(BotFailure) as caught:
        bot.start()
    assert caught.value.kind is FailureKind.CANNOT_START
    assert "could not be started" in str(caught.value)
    assert (caught.value.reason, caught.value.facts) == ("cannot_start", {"reason": "No such file or directory"})
    assert (caught.value.doing_key, caught.value.doing) == ("start", "starting")


def test_hanging_bot_times_out_and_is_killed_with_its_children() -> None:
    bot = ProcessBot(script("hang", "act", "child"), timeout=0.5)
    began = time.monotonic()
    with bot, pytest.raises(BotFailure) as caught:
        bot.act(view(card_state(), 0))
    assert time.monotonic() - began < 5
    failure = caught.value
    assert failure.kind is FailureKind.TIMEOUT
    assert "did not answer within 0.5 s while choosing a card in round 1, turn 1" in str(failure)
    assert (failure.reason, failure.facts) == ("timeout", {"seconds": "0.5"})
    assert (failure.doing_key, failure.doing_facts) == ("card_in", {"round": "1", "turn": "1"})
    assert "thinking forever" in str(failure)
    assert_stopped(bot)
    child = int(next(line for line in failure.stderr if line.startswith("child")).split()[1])
    for _ in range(50):  # the child dies with the group; give the kernel a moment to reap it
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the bot's child {child} is still running")


def test_bot_that_never_says_ready_times_out_at_start() -> None:
    with ProcessBot(script("hang", "start"), start_timeout=0.5) as bot, pytest.raises(BotFailure) as caught:
        bot.start()
    assert caught.value.kind is FailureKind.TIMEOUT
    assert "while starting" in str(caught.value)


@pytest.mark.parametrize(
    ("mode", "kind", "words", "reason"),
    [
        ("not_held", FailureKind.ILLEGAL_ACTION, "which is not in its hand", "not_in_hand"),
        ("row_unasked", FailureKind.WRONG_KIND, "answered row 0 but was asked to play a card", "row_for_card"),
        ("garbage", FailureKind.INVALID_JSON, "'play the 17 please', which is not JSON", "invalid_json"),
        ("deep", FailureKind.INVALID_JSON, "which is not JSON", "invalid_json"),
        ("long_number", FailureKind.INVALID_JSON, "which is not JSON", "invalid_json"),
        ("huge", FailureKind.TOO_LONG, "longer than", "too_long"),
        ("array", FailureKind.BAD_ANSWER, "must be a JSON object", "not_object"),
        ("bool", FailureKind.BAD_ANSWER, "must be a whole number, not True", "card_not_number"),
        ("both", FailureKind.BAD_ANSWER, 'exactly one of "card" or "row"', "card_or_row"),
        ("bad_ready", FailureKind.BAD_ANSWER, 'answered the hello with {"hello": "there"}', "bad_hello"),
    ],
)
def test_lying_bot_on_a_card_decision(mode: str, kind: FailureKind, words: str, reason: str) -> None:
    bot = ProcessBot(script("liar", mode), label=f"liar-{mode}")
    with bot, pytest.raises(BotFailure) as caught:
        bot.act(view(card_state(), 0))
    assert caught.value.kind is kind
    assert words in str(caught.value)
    assert caught.value.reason == reason
    assert caught.value.detail == detail_text(reason, caught.value.facts)  # the English is made from the keys
    assert caught.value.doing == doing_text(caught.value.doing_key or "", caught.value.doing_facts)
    assert f"bot 'liar-{mode}' at seat 0" in str(caught.value)
    assert_stopped(bot)


@pytest.mark.parametrize(
    ("mode", "kind", "words", "reason", "facts"),
    [
        ("card_for_row", FailureKind.WRONG_KIND, "answered card 2 but was asked to choose a row for card 1",
         "card_for_row", {"card": "2", "asked": "1"}),
        ("row_7", FailureKind.ILLEGAL_ACTION, "chose row 7, which does not exist", "no_such_row",
         {"row": "7", "last": "3"}),
    ],
)
def test_lying_bot_on_a_row_decision(
    mode: str, kind: FailureKind, words: str, reason: str, facts: dict[str, str]
) -> None:
    with ProcessBot(script("liar", mode)) as bot, pytest.raises(BotFailure) as caught:
        bot.act(view(row_state(), 0))
    assert caught.value.kind is kind
    assert words in str(caught.value)
    assert "while choosing a row for card 1" in str(caught.value)
    assert (caught.value.reason, caught.value.facts) == (reason, facts)
    assert (caught.value.doing_key, caught.value.doing_facts) == ("row_for", {"card": "1"})


def test_extra_lines_are_refused_at_the_next_decision() -> None:
    state = card_state()
    with ProcessBot(script("liar", "two_lines")) as bot:
        first = bot.act(view(state, 0))
        assert first == PlayCard(0, 1)
        time.sleep(0.2)  # let the second line arrive
        with pytest.raises(BotFailure) as caught:
            bot.act(view(apply(state, first).state, 1))
    assert caught.value.kind is FailureKind.BAD_ANSWER
    assert "more than one line" in str(caught.value)
    assert caught.value.reason == "extra_line" and caught.value.detail == detail_text("extra_line", caught.value.facts)


def test_make_bot_accepts_a_command_line() -> None:
    bot = make_bot(f"cmd:{NODE} {NODE_BOT}", random.Random(4))
    assert isinstance(bot, ProcessBot)
    with bot:
        assert bot.act(view(card_state(), 0)) in view(card_state(), 0).legal_actions()
        assert bot.running
    assert_stopped(bot)


def test_bad_command_lines_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="needs a command line"):
        make_bot("cmd:  ")
    with pytest.raises(ValueError, match="cannot read the bot's command line"):
        make_bot("cmd:node 'bot.js")


def test_the_python_bot_in_the_protocol_document_plays_a_game(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "protocol-bots.md").read_text(encoding="utf-8")
    code = text.split("## A whole bot in Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    program = tmp_path / "lowest_card.py"
    program.write_text(code, encoding="utf-8")
    with ProcessBot([sys.executable, str(program)]) as bot:
        record = play_game([bot, RandomBot(random.Random(1))], random.Random(2), Rules(rounds=1))
        assert bot.reported_name == "lowest-card"
    assert replay(record).finished
    first_turn = record.rounds[0].turns[0]
    assert first_turn.cards[0] == min(record.rounds[0].hands[0])  # it plays its lowest card


def test_close_says_bye_and_the_program_exits_by_itself() -> None:
    bot = ProcessBot([NODE, str(NODE_BOT)])
    with bot:
        bot.start()
        assert bot.running
        process = bot._process
    assert process is not None and process.returncode == 0  # it left on "bye"; it was not killed
    with pytest.raises(BotFailure, match="was closed and cannot play any more") as caught:
        bot.act(view(card_state(), 0))
    assert (caught.value.reason, caught.value.facts, caught.value.doing_key) == ("was_closed", {}, "start")


def test_a_forgotten_bot_is_stopped_when_it_is_collected() -> None:
    bot = ProcessBot([NODE, str(NODE_BOT)])
    bot.start()
    process = bot._process
    assert process is not None and process.poll() is None
    del bot
    gc.collect()
    assert process.poll() is not None  # killed by the finalizer, not left running

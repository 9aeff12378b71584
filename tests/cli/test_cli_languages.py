"""``nimmt simulate``, ``tournament`` and ``bot-check`` speak the six languages; their JSON does not.

A page is checked two ways: it holds the texts of its language's ``sim`` catalog, and it holds no
word of the English catalog that its own catalogs lack (an English leftover). Data on the page
(bot names, command lines, a program's own answers and error output) is taken out first.
"""

from __future__ import annotations

import json
import os
import pty
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from nimmt.cli._common import failure_fields, failure_message
from nimmt.cli.bot import check_bot
from nimmt.cli.main import app
from nimmt.core import Rules
from nimmt.i18n import LANGUAGES, catalog, translator
from nimmt.protocol.reasons import REASONS, detail_text, doing_text
from nimmt.tournament import tournament
from nimmt.tournament.plot import figure

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "protocol" / "bots"
NODE_BOT = str(ROOT / "examples" / "node-bot" / "bot.js")
NODE = "node"
PYTHON = sys.executable
# Generous limits for programs that do answer: a loaded machine must not turn them into timeouts.
PATIENT = ["--timeout", "30", "--start-timeout", "60"]
OTHERS = [language for language in LANGUAGES if language != "en"]
# The locale is cleared, so that only what a test sets (or --lang) chooses the language.
NO_LOCALE = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "COLUMNS": "250"}
_WORD = re.compile(r"[^\W\d_]+")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def literal(message: str) -> str:
    """A message without its ``{placeholders}``."""
    return " ".join(text for text, _, _, _ in string.Formatter().parse(message))


def fragments(message: str) -> list[str]:
    """The texts between a message's placeholders, trimmed of spaces and brackets."""
    parts = (text.strip(" ()") for text, _, _, _ in string.Formatter().parse(message))
    return [part for part in parts if part]


def english_leftovers(page: str, language: str, data: tuple[str, ...] = ()) -> set[str]:
    """Words of the English ``sim`` catalog on ``page`` that ``language``'s catalogs do not use."""
    for value in data:
        page = page.replace(value, " ")
    english = words(" ".join(literal(m) for m in catalog("en", "sim").values()))
    own = words(" ".join(catalog(language, "sim").values()) + " " + " ".join(catalog(language, "common").values()))
    return words(page) & (english - own)


def flat(text: str) -> str:
    return " ".join(re.sub("[│╭╮╰╯─┃┏┓┗┛━┡┩╇┳┻╋┼┬┴├┤└┘┌┐]", " ", text).split())


def invoke(args: list[str], env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, args, env={**NO_LOCALE, **(env or {})})


def click_message(output: str) -> str:
    """What nimmt said inside Click's "Invalid value for ...: <message>" box."""
    found = re.search(r"Invalid value for [^:]+: (.*)", flat(output))
    assert found, output
    return found.group(1)


# -- pages in a language -------------------------------------------------------------------------

@pytest.mark.parametrize("language", ["fr", "pt-BR"])
def test_simulate_prints_its_table_in_the_language(language: str) -> None:
    _ = translator(language, "sim")
    done = invoke(["simulate", "--games", "2", "--players", "3", "--bots", "heuristic,random,random", "--seed", "2",
                   "--lang", language])
    assert done.exit_code == 0, done.output
    page = flat(done.stdout)
    for key in ("col_seat", "col_bot", "col_penalty_round", "col_penalty_game", "col_win_share"):
        assert _(key) in page
    assert re.search(re.escape(_("sim_title", games=2, rounds="@", seed=2)).replace("@", r"\d+"), page)
    assert re.search(re.escape(_("sim_speed", speed="@", jobs=1)).replace("@", r"[\d,]+"), page)
    assert re.search(r"\d+,\d\d ± \d+,\d\d", page)  # decimal commas in these languages
    assert english_leftovers(page, language, ("heuristic", "random")) == set()


@pytest.mark.parametrize("language", ["de", "es"])
def test_tournament_prints_its_tables_and_chart_note_in_the_language(language: str, tmp_path: Path) -> None:
    _ = translator(language, "sim")
    chart = tmp_path / "chart.png"
    done = invoke(["tournament", "--bots", "beginner,random,beginner", "--games", "3", "--seed", "1",
                   "--plot", str(chart), "--lang", language])
    assert done.exit_code == 0, done.output
    page = flat(done.stdout)
    assert _("tournament_heading", games=3, sets=1, seed=1, seconds="@").split("@")[0] in page
    for key in ("entries_title", "by_bot_title", "tournament_legend"):
        assert _(key) in page
    headers = ("col_bot", "col_rounds", "col_penalty_round_short", "col_vs_first", "col_win_share",
               "col_p95_decision", "col_p95_cpu", "col_rating")
    assert all(words(_(key)) <= words(page) for key in headers)
    assert _("chart_written", file=str(chart)) in page
    assert chart.read_bytes().startswith(b"\x89PNG")
    data = (str(chart), "beginner", "random")
    assert english_leftovers(page, language, data) == set()


@pytest.mark.parametrize("language", ["pt-PT", "fr"])
def test_bot_check_reports_in_the_language(language: str) -> None:
    _ = translator(language, "sim")
    done = invoke(["bot-check", "--players", "3", "--seed", "4", "--lang", language, *PATIENT, "--", NODE, NODE_BOT])
    assert done.exit_code == 0, done.output
    page = flat(done.stdout)
    assert _("check_heading", command=f"{NODE} {NODE_BOT}", seat=0, players=3, seed=4) in page
    assert _("check_started", name="'node-example'") in page
    assert _("check_ok") in page
    assert english_leftovers(page, language, (NODE_BOT, "node-example", NODE)) == set()


@pytest.mark.parametrize(
    ("language", "args"),
    [("pt-BR", ["simulate", "--games", "20", "--players", "3", "--seed", "1"]),
     ("de", ["tournament", "--bots", "beginner,random", "--games", "4", "--seed", "1"])],
)
def test_the_progress_bar_on_a_terminal_is_labelled_in_the_language(language: str, args: list[str]) -> None:
    label = translator(language, "sim")("progress_games")
    main, terminal = pty.openpty()  # stderr is a terminal, so the bar is drawn
    process = subprocess.Popen([PYTHON, "-m", "nimmt", *args, "--lang", language], stdout=subprocess.PIPE,
                               stderr=terminal, stdin=subprocess.DEVNULL, env={**os.environ, **NO_LOCALE})
    os.close(terminal)
    drawn = b""
    while True:  # read until the process has closed the terminal (it has exited)
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: no writer left
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    out = process.communicate(timeout=120)[0].decode()
    assert process.returncode == 0
    bar = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.decode(errors="replace"))
    assert re.search(re.escape(label) + r" ━+", bar), bar
    assert english_leftovers(bar, language) == set()
    assert words(translator(language, "sim")("col_win_share")) <= words(out)


def test_the_chart_titles_are_in_the_language() -> None:
    summary = tournament(["beginner", "random"], games=2, seed=1)
    for language in ("en", "pt-BR"):
        _ = translator(language, "sim")
        chart = figure(summary, language)
        try:
            left, right = chart.axes
            assert (left.get_title(), left.get_ylabel()) == (_("plot_penalty_title"), _("plot_penalty_axis"))
            assert (right.get_title(), right.get_ylabel()) == (_("plot_wins_title"), _("plot_wins_axis"))
            assert chart.get_suptitle() == _("plot_title", games=2, sets=1)
        finally:
            import matplotlib.pyplot as plt

            plt.close(chart)
    assert translator("pt-BR", "sim")("plot_wins_title") != translator("en", "sim")("plot_wins_title")


# -- the language chosen: --lang, the locale, an unknown code ------------------------------------

@pytest.mark.parametrize(
    "args",
    [["simulate", "--games", "1", "--players", "2", "--seed", "1"],
     ["tournament", "--bots", "beginner,random", "--games", "2", "--seed", "1"],
     ["bot-check", "--players", "2", "--seed", "1", *PATIENT, "--", NODE, NODE_BOT]],
    ids=["simulate", "tournament", "bot-check"],
)
def test_the_default_language_is_the_locale_s(args: list[str]) -> None:
    brazil = invoke(args, {"LANG": "pt_BR.UTF-8"})
    assert brazil.exit_code == 0, brazil.output
    page = flat(brazil.stdout)
    assert "partida" in page and "jogo" not in words(page) and "jogos" not in words(page)
    english = invoke(args)
    assert english.exit_code == 0 and "partida" not in english.stdout
    overridden = invoke([args[0], "--lang", "de", *args[1:]], {"LANG": "pt_BR.UTF-8"})
    assert overridden.exit_code == 0 and "partida" not in overridden.stdout and "Spiel" in overridden.stdout


@pytest.mark.parametrize("command", ["simulate", "tournament", "bot-check"])
def test_an_unknown_language_is_refused_in_the_locale_s_language(command: str) -> None:
    args = [command, "--lang", "klingon"] + (["--bots", "random"] if command == "tournament" else [])
    args += ["--", NODE, NODE_BOT] if command == "bot-check" else []
    done = invoke(args, {"LANG": "fr_FR.UTF-8"})
    assert done.exit_code == 2
    told = translator("fr", "common")("unknown_language", code="klingon", choices=", ".join(LANGUAGES))
    assert f"nimmt {command}: {told}" in done.stderr
    assert "Traceback" not in done.output


@pytest.mark.parametrize(
    ("language", "args", "key", "values"),
    [("de", ["simulate", "--players", "11"], "players_range", {"players": 11}),
     ("pt-PT", ["simulate", "--bots", "random,heuristic"], "bots_count", {"count": 2, "seats": 4}),
     ("es", ["tournament", "--bots", "random", "--games", "0"], "games_min", {"games": 0}),
     ("fr", ["tournament", "--bots", "11*random"], "bots_copies", {"part": "'11*random'", "copies": 11}),
     ("pt-BR", ["bot-check", "--players", "3", "--seat", "3", "--", NODE, NODE_BOT], "seat_range",
      {"last": 2, "seat": 3}),
     ("de", ["bot-check", "--opponents", "nobody", "--", NODE, NODE_BOT], "bots_unknown", None)],
)
def test_bad_options_are_refused_in_the_language(
    language: str, args: list[str], key: str, values: dict[str, Any] | None
) -> None:
    done = invoke([args[0], "--lang", language, *args[1:]])
    assert done.exit_code == 2, done.output
    message = click_message(done.output)
    _ = translator(language, "sim")
    if values is not None:
        assert message == _(key, **values)
    else:
        assert all(piece in message for piece in fragments(_(key))), message
    assert english_leftovers(message, language, ("'nobody'", "'cmd:node x'")) == set()


# -- bot programs that fail, told in every language ------------------------------------------------

def _liar(mode: str) -> list[str]:
    return [PYTHON, str(BOTS / "liar.py"), mode]


FAILING = {  # a real program for each way to fail; seed 1 at 10 players asks seat 0 for a row
    "cannot_start": (["/nonexistent/bot-program"], "fail_cannot_start"),
    "crash_at_start": ([PYTHON, str(BOTS / "crash.py"), "start"], "fail_exit_code"),
    "timeout": ([PYTHON, str(BOTS / "hang.py"), "act"], "fail_timeout"),
    "garbage": (_liar("garbage"), "fail_invalid_json"),
    "huge": (_liar("huge"), "fail_too_long"),
    "bad_ready": (_liar("bad_ready"), "fail_bad_hello"),
    "two_lines": (_liar("two_lines"), "fail_extra_line"),
    "array": (_liar("array"), "fail_not_object"),
    "both": (_liar("both"), "fail_card_or_row"),
    "bool": (_liar("bool"), "fail_card_not_number"),
    "card_for_row": (_liar("card_for_row"), "fail_card_for_row"),
    "row_unasked": (_liar("row_unasked"), "fail_row_for_card"),
    "not_held": (_liar("not_held"), "fail_not_in_hand"),
    "row_7": (_liar("row_7"), "fail_no_such_row"),
}
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\{[^{}]*\}|\[[^\[\]]*\]")


@pytest.mark.parametrize("case", sorted(FAILING))
def test_every_bot_failure_is_told_in_every_language(case: str) -> None:
    command, key = FAILING[case]
    limit = 0.5 if key == "fail_timeout" else 30.0  # only the bot that hangs may run out of time
    report, failed = check_bot(command, players=10, seat=0, opponents=["random"] * 9, rules=Rules(rounds=1), games=1,
                               seed=1, timeout=limit, start_timeout=60.0)
    assert not report["ok"] and failed is not None
    fields = failure_fields(failed)
    english = failure_message(fields, translator("en", "sim"))
    assert english.startswith(f"bot {failed.bot!r} at seat 0 ") and " while " in english
    for language in OTHERS:
        told = failure_message(fields, translator(language, "sim"))
        head = told.split("\n")[0]  # the program's own error output follows, as it wrote it
        assert all(piece in head for piece in fragments(catalog(language, "sim")[key])), (language, head)
        assert english_leftovers(_QUOTED.sub(" ", head), language) == set(), (language, head)


@pytest.mark.parametrize(
    ("reason", "facts", "doing", "doing_facts"),
    [("closed_output", {}, "row", {}),
     ("was_closed", {}, "start", {}),
     ("signal", {"signal": "SIGKILL"}, "card", {}),
     ("row_not_number", {"answer": "'two'"}, "row_for", {"card": "3"}),
     ("card_unasked", {"card": "5"}, "card", {}),
     ("row_unasked", {"row": "1"}, "row", {}),
     ("row_for_card_plain", {}, "card", {}),
     ("card_for_row_plain", {}, "row", {})],
)
def test_failures_no_test_bot_shows_are_told_too(
    reason: str, facts: dict[str, str], doing: str, doing_facts: dict[str, str]
) -> None:
    fields = {"bot": "my bot", "seat": 1, "kind": REASONS[reason].kind, "detail": detail_text(reason, facts),
              "doing": doing_text(doing, doing_facts), "exit_code": None, "stderr": [],
              "reason": reason, "facts": facts, "doing_key": doing, "doing_facts": doing_facts}
    key = f"fail_{reason}"
    assert failure_message(fields, translator("en", "sim")).startswith("bot 'my bot' at seat 1 ")
    for language in OTHERS:
        told = failure_message(fields, translator(language, "sim"))
        assert all(piece in told for piece in fragments(catalog(language, "sim")[key])), (language, told)
        assert english_leftovers(_QUOTED.sub(" ", told), language) == set(), (language, told)


def test_an_unforeseen_detail_is_kept_after_the_translated_kind_of_failure() -> None:
    fields = {"bot": "b", "seat": None, "kind": "bad_answer", "detail": "sent a new kind of nonsense",
              "doing": "choosing a card", "exit_code": None, "stderr": ["last words"],
              "reason": None, "facts": {}, "doing_key": "card", "doing_facts": {}}
    told = failure_message(fields, translator("de", "sim"))
    assert told == ("der Bot 'b' hat eine Antwort in falscher Form gegeben (sent a new kind of nonsense), und zwar "
                    "beim Wählen einer Karte; seine letzten Fehlerausgaben:\n  last words")


def test_a_failing_bot_is_reported_in_the_language_by_both_commands() -> None:
    crash = [PYTHON, str(BOTS / "crash.py"), "later"]
    checked = invoke(["bot-check", "--seat", "2", "--seed", "1", "--lang", "es", *PATIENT, "--", *crash])
    assert checked.exit_code == 1
    _ = translator("es", "sim")
    assert _("fail_exit_code", code=1) in checked.stderr and _("check_failed", message="") in checked.stderr
    assert "something broke at decision 3" in checked.stderr  # the program's own words, as it wrote them
    simulated = invoke(["simulate", "--games", "1", "--lang", "fr", "--bots",
                        "cmd:/nonexistent/bot-program,random,random,random"])
    assert simulated.exit_code == 1
    _ = translator("fr", "sim")
    reason = _("os_no_such_file")
    assert _("fail_cannot_start", reason=reason) in simulated.stderr
    assert simulated.stderr.startswith("nimmt simulate: " + _("game_failed", game=1, error=""))


# -- machine output does not change ----------------------------------------------------------------

_MEASURED = {"games_per_second", "seconds", "run_seconds", "timing", "median_ms", "slowest_ms"}


def without_measures(data: Any) -> Any:
    """The JSON without the figures that depend on the machine's speed."""
    if isinstance(data, dict):
        return {k: without_measures(v) for k, v in data.items() if k not in _MEASURED}
    if isinstance(data, list):
        return [without_measures(v) for v in data]
    return data


@pytest.mark.parametrize(
    "args",
    [["simulate", "--games", "2", "--players", "3", "--seed", "7", "--json"],
     ["tournament", "--bots", "beginner,random", "--games", "2", "--seed", "7", "--json"],
     ["bot-check", "--seed", "1", "--json", *PATIENT, "--", PYTHON, str(BOTS / "crash.py"), "later"]],
    ids=["simulate", "tournament", "bot-check"],
)
def test_json_is_the_same_in_every_language(args: list[str]) -> None:
    outputs = []
    for language in ("en", "pt-PT", "de"):
        done = invoke([args[0], "--lang", language, *args[1:]])
        assert done.exit_code in (0, 1), done.output
        outputs.append(without_measures(json.loads(done.stdout)))
    assert outputs[0] == outputs[1] == outputs[2]
    if args[0] == "bot-check":
        assert outputs[0]["failure"]["message"].startswith("bot ")  # the report's message stays English

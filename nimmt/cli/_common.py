"""Helpers shared by ``nimmt play``, ``simulate``, ``tournament`` and ``bot-check``: bot lists, seeds,
table options, the language of a page, numbers and bot failures as people read them.

The messages live in the ``sim`` domain of :mod:`nimmt.i18n`; a helper given no translator speaks
English, so ``nimmt play`` (which passes none) keeps its messages.
"""

from __future__ import annotations

import errno
import math
import os
import random
import re
import secrets
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import typer
from babel.numbers import format_decimal

from nimmt import i18n
from nimmt.bots import BOTS, Bot, make_bot
from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError

EXTERNAL = "cmd:"  # ``cmd:<command line>``: another program speaking nimmt-bot/1 (see docs/protocol-bots.md)
DOMAIN = "sim"

Translate = Callable[..., str]


def english() -> Translate:
    return i18n.translator(i18n.DEFAULT_LANGUAGE, DOMAIN)


def choose_language(lang: str | None, command: str) -> str:
    """The page's language: ``--lang`` if given, else the user's locale.

    An unknown ``--lang`` is reported (exit 2) in the locale's language, as ``nimmt rules`` does,
    since the one asked for cannot be spoken.
    """
    if lang is None:
        return i18n.from_environment()
    try:
        return i18n.check_language(lang)
    except i18n.UnknownLanguage:
        _ = i18n.translator(i18n.from_environment(), "common")
        message = _("unknown_language", code=lang, choices=", ".join(i18n.LANGUAGES))
        stream = sys.stderr
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")  # a narrow terminal encoding must not crash on "ê"
        stream.write(f"nimmt {command}: {message}\n")
        raise typer.Exit(2) from None


def number(value: float | None, digits: int, language: str) -> str:
    """A decimal number as the language writes it ("6.09", "6,09"); "-" when there is none.

    >>> number(6.0912, 2, "en"), number(6.0912, 2, "pt-BR"), number(float("nan"), 1, "de")
    ('6.09', '6,09', '-')
    """
    if value is None or math.isnan(value):
        return "-"
    pattern = "0" if digits == 0 else "0." + "0" * digits
    return str(format_decimal(value, format=pattern, locale=language.replace("-", "_")))


def parse_bots(spec: str, seats: int, option: str = "--bots", _: Translate | None = None) -> list[str]:
    """Bot names for ``seats`` seats from ``"a,b,c"`` (seat order); a single name fills every seat.

    A name may also be ``cmd:<command line>`` (a program; its command line cannot hold a comma).

    >>> parse_bots("heuristic", 3)
    ['heuristic', 'heuristic', 'heuristic']
    >>> parse_bots("random, heuristic", 2)
    ['random', 'heuristic']
    """
    _ = _ or english()
    names = [part.strip() for part in spec.split(",")]
    if any(not name for name in names):
        raise typer.BadParameter(_("bots_empty_name", spec=repr(spec)), param_hint=option)
    if any(name.startswith(EXTERNAL) and not name[len(EXTERNAL):].strip() for name in names):
        raise typer.BadParameter(_("bots_cmd_empty"), param_hint=option)
    unknown = [name for name in names if name not in BOTS and not name.startswith(EXTERNAL)]
    if unknown:
        known = ", ".join(sorted(BOTS))
        raise typer.BadParameter(_("bots_unknown", bot=repr(unknown[0]), known=known), param_hint=option)
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise typer.BadParameter(_("bots_count", count=len(names), seats=seats), param_hint=option)
    return names


def check_players(players: int, _: Translate | None = None) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise typer.BadParameter((_ or english())("players_range", players=players), param_hint="--players")


def make_rules(end_above: int, rounds: int | None, _: Translate | None = None) -> Rules:
    try:
        return Rules(end_above=end_above, rounds=rounds)
    except RulesError as error:
        if _ is None:
            raise typer.BadParameter(str(error)) from None
        if rounds is not None and not rounds >= 1:
            raise typer.BadParameter(_("rounds_min", rounds=rounds), param_hint="--rounds") from None
        raise typer.BadParameter(_("end_above_min", value=end_above), param_hint="--end-above") from None


def fresh_seed() -> int:
    """A base seed when the user gives none (printed, so that the run can be repeated)."""
    return secrets.randbelow(2**32)


# A game's chance is derived from the base seed and the game's index only, so a game plays the same
# whichever process runs it and in whatever order. String seeds are hashed with SHA-512 by
# ``random.Random``, which does not depend on PYTHONHASHSEED.
def deal_rng(seed: int, game: int) -> random.Random:
    return random.Random(f"nimmt:{seed}:{game}:deal")


def bot_rng(seed: int, game: int, seat: int) -> random.Random:
    return random.Random(f"nimmt:{seed}:{game}:seat:{seat}")


def unreadable_command(command: str) -> bool:
    """True when a bot's command line cannot be split (an open quote or a trailing backslash)."""
    try:
        return not shlex.split(command)
    except ValueError:
        return True


def make_bots(names: list[str], seed: int, game: int, first_seat: int = 0, _: Translate | None = None) -> list[Bot]:
    """Bots for consecutive seats from ``first_seat``, each with its own derived random source."""
    if _ is not None:
        for name in names:
            if name.startswith(EXTERNAL) and unreadable_command(name[len(EXTERNAL):]):
                raise typer.BadParameter(_("command_unreadable", command=repr(name)), param_hint="--bots")
    try:
        return [make_bot(name, bot_rng(seed, game, first_seat + i)) for i, name in enumerate(names)]
    except ValueError as error:  # a command line that cannot be read
        raise typer.BadParameter(str(error), param_hint="--bots") from None


def label(name: str) -> str:
    """A short name for a seat's bot: ``cmd`` for a program, else the bot's own name."""
    return "cmd" if name.startswith(EXTERNAL) else name


def close_bots(bots: list[Bot]) -> None:
    """Stop the programs behind external bots (built-in bots have nothing to close)."""
    for bot in bots:
        close = getattr(bot, "close", None)
        if callable(close):
            close()


# -- errors from the operating system and from bot programs, in the page's language ---------------

_OS_REASONS = {
    errno.ENOENT: "os_no_such_file",
    errno.EACCES: "os_permission",
    errno.EPERM: "os_permission",
    errno.ENOTDIR: "os_not_a_folder",
    errno.EISDIR: "os_is_a_folder",
    errno.ENOEXEC: "os_not_a_program",
    errno.EROFS: "os_read_only",
    errno.ENOSPC: "os_disk_full",
    errno.EEXIST: "os_exists",
    errno.ECONNREFUSED: "os_connection_refused",
    errno.EHOSTUNREACH: "os_unreachable",
    errno.ENETUNREACH: "os_unreachable",
}


def os_reason(code: int | None, reason: str, _: Translate) -> str:
    """What the operating system said (an errno), in the page's language when it is a usual reason."""
    key = _OS_REASONS.get(code) if code is not None else None
    return _(key) if key is not None else reason


def reason_from_text(reason: str, _: Translate) -> str:
    """An errno's text (all that some errors keep of it) in the page's language when it is usual."""
    for code in _OS_REASONS:
        if os.strerror(code) == reason:
            return os_reason(code, reason, _)
    return reason


def failure_fields(failure: Any) -> dict[str, Any]:
    """What a :class:`~nimmt.protocol.BotFailure` says, as plain (picklable) values."""
    return {
        "bot": failure.bot, "seat": failure.seat, "kind": str(failure.kind), "detail": failure.detail,
        "doing": failure.doing, "exit_code": failure.exit_code, "stderr": list(failure.stderr),
    }


_SHOWN_STDERR = 8  # as many of the program's last stderr lines as nimmt's own message shows

# (kind, English detail pattern, message key): the details nimmt.protocol writes, with their values.
_DETAILS: tuple[tuple[str, str, str], ...] = (
    ("cannot_start", r"could not be started \((?P<reason>.*)\)", "fail_cannot_start"),
    ("crashed", r"closed its output but kept running", "fail_closed_output"),
    ("crashed", r"was closed and cannot play any more", "fail_was_closed"),
    ("crashed", r"was killed by signal (?P<signal>\S+)", "fail_signal"),
    ("crashed", r"exited with code (?P<code>-?\d+)", "fail_exit_code"),
    ("timeout", r"did not answer within (?P<seconds>\S+) s", "fail_timeout"),
    ("invalid_json", r"answered (?P<answer>.*), which is not JSON that nimmt can read", "fail_invalid_json"),
    ("too_long", r"answered with a line longer than (?P<limit>\d+) bytes", "fail_too_long"),
    ("bad_answer", r"answered the hello with (?P<answer>.*) instead of .*", "fail_bad_hello"),
    ("bad_answer", r"wrote more than one line for its previous answer \((?P<answer>.*)\)", "fail_extra_line"),
    ("bad_answer", r"the answer must be a JSON object like .*, not (?P<answer>.*)", "fail_not_object"),
    ("bad_answer", r"the answer must hold exactly one of .*, not (?P<answer>.*)", "fail_card_or_row"),
    ("bad_answer", r"the card must be a whole number, not (?P<answer>.*)", "fail_card_not_number"),
    ("bad_answer", r"the row must be a whole number, not (?P<answer>.*)", "fail_row_not_number"),
    ("wrong_kind", r"answered card (?P<card>-?\d+) but was asked to choose a row for card (?P<asked>\d+)",
     "fail_card_for_row"),
    ("wrong_kind", r"answered card (?P<card>-?\d+) but no card is expected from it now", "fail_card_unasked"),
    ("wrong_kind", r"answered row (?P<row>-?\d+) but was asked to play a card", "fail_row_for_card"),
    ("wrong_kind", r"answered row (?P<row>-?\d+) but no row is expected from it now", "fail_row_unasked"),
    ("wrong_kind", r"chose a row when a card was asked", "fail_row_for_card_plain"),
    ("wrong_kind", r"played a card when a row was asked", "fail_card_for_row_plain"),
    ("illegal_action", r"played card (?P<card>-?\d+), which is not in its hand (?P<hand>\[.*\])", "fail_not_in_hand"),
    ("illegal_action", r"chose row (?P<row>-?\d+), which does not exist: rows are 0 to (?P<last>\d+)",
     "fail_no_such_row"),
)

_DOINGS: tuple[tuple[str, str], ...] = (
    (r"starting", "doing_start"),
    (r"starting \(answering hello\)", "doing_hello"),
    (r"choosing a row for card (?P<card>\d+)", "doing_row_for"),
    (r"choosing a card in round (?P<round>\d+), turn (?P<turn>\d+)", "doing_card_in"),
    (r"choosing a card", "doing_card"),
    (r"choosing a row", "doing_row"),
)

_GENERIC = {
    "cannot_start": "fail_kind_cannot_start", "crashed": "fail_kind_crashed", "timeout": "fail_kind_timeout",
    "invalid_json": "fail_kind_invalid_json", "too_long": "fail_kind_too_long", "bad_answer": "fail_kind_bad_answer",
    "wrong_kind": "fail_kind_wrong_kind", "illegal_action": "fail_kind_illegal_action",
}


def failure_message(fields: Mapping[str, Any], _: Translate) -> str:
    """A bot program's failure told in the page's language: who, what went wrong, when, its last words.

    The values the program sent (its answer, its hand) are quoted as they were; a detail nimmt does
    not know yet is kept as it is, after the translated kind of failure.
    """
    bot, seat = repr(fields["bot"]), fields["seat"]
    where = _("fail_where_seat", bot=bot, seat=seat) if seat is not None else _("fail_where", bot=bot)
    detail, doing = str(fields["detail"]), str(fields["doing"])
    what = None
    for kind, pattern, key in _DETAILS:
        found = re.fullmatch(pattern, detail)
        if kind == fields["kind"] and found:
            values = found.groupdict()
            if "reason" in values:
                values["reason"] = reason_from_text(values["reason"], _)
            what = _(key, **values) if values else _(key)
            break
    if what is None:
        generic = _GENERIC.get(str(fields["kind"]))
        what = f"{_(generic)} ({detail})" if generic else detail
    when = doing
    for pattern, key in _DOINGS:
        found = re.fullmatch(pattern, doing)
        if found:
            when = _(key, **found.groupdict()) if found.groupdict() else _(key)
            break
    message = _("fail_message", where=where, what=what, when=when)
    shown: Sequence[str] = list(fields.get("stderr") or ())[-_SHOWN_STDERR:]
    if shown:
        message += "; " + _("fail_stderr") + "\n  " + "\n  ".join(shown)
    return message

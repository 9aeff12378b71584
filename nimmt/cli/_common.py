"""Helpers shared by ``nimmt play``, ``simulate``, ``tournament`` and ``bot-check``: bot lists, seeds,
table options, the language of a page, numbers and bot failures as people read them.

The messages live in the ``sim`` domain of :mod:`nimmt.i18n`; :func:`parse_bots` given no
translator speaks English.
"""

from __future__ import annotations

import errno
import math
import os
import random
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


def check_players(players: int, _: Translate) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise typer.BadParameter(_("players_range", players=players), param_hint="--players")


def make_rules(end_above: int, rounds: int | None, _: Translate) -> Rules:
    try:
        return Rules(end_above=end_above, rounds=rounds)
    except RulesError:
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
    if any(name.startswith(EXTERNAL) for name in names):
        import nimmt.protocol  # noqa: F401  # it teaches make_bot the programs (a tenth of a second to load)
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
        "reason": failure.reason, "facts": dict(failure.facts),
        "doing_key": failure.doing_key, "doing_facts": dict(failure.doing_facts),
    }


_SHOWN_STDERR = 8  # as many of the program's last stderr lines as nimmt's own message shows

def failure_message(fields: Mapping[str, Any], _: Translate) -> str:
    """A bot program's failure told in the page's language: who, what went wrong, when, its last words.

    The message comes from the failure's reason and facts (``fail_<reason>``, ``doing_<key>``). The
    values the program sent (its answer, its hand) are quoted as they were; a failure without a reason
    nimmt knows is told by its translated kind of failure, followed by its English detail.
    """
    from nimmt.protocol import FailureKind  # only when a program failed: not loaded by every command
    from nimmt.protocol.reasons import DOINGS, REASONS

    bot, seat = repr(fields["bot"]), fields["seat"]
    where = _("fail_where_seat", bot=bot, seat=seat) if seat is not None else _("fail_where", bot=bot)
    detail, doing = str(fields["detail"]), str(fields["doing"])
    reason, facts = fields.get("reason"), dict(fields.get("facts") or {})
    if reason in REASONS:
        if "reason" in facts:
            facts["reason"] = reason_from_text(facts["reason"], _)
        what = _(f"fail_{reason}", **facts) if facts else _(f"fail_{reason}")
    else:
        kind = str(fields["kind"])
        kinds = {known.value for known in FailureKind}  # each has a message fail_kind_<kind>
        what = f"{_(f'fail_kind_{kind}')} ({detail})" if kind in kinds else detail
    doing_key, doing_facts = fields.get("doing_key"), dict(fields.get("doing_facts") or {})
    if doing_key in DOINGS:
        when = _(f"doing_{doing_key}", **doing_facts) if doing_facts else _(f"doing_{doing_key}")
    else:
        when = doing
    message = _("fail_message", where=where, what=what, when=when)
    shown: Sequence[str] = list(fields.get("stderr") or ())[-_SHOWN_STDERR:]
    if shown:
        message += "; " + _("fail_stderr") + "\n  " + "\n  ".join(shown)
    return message

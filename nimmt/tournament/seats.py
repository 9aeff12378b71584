"""Who takes a tournament's seats: built-in bots, programs (``cmd:``) and bots from a bots file.

A :class:`Seat` is everything needed to make one player in any process (it is pickled to the
process pool and to Ray): a built-in bot's name and options, or a program's exact argument list
with its time limits, folder and environment. Its :attr:`Seat.key` says what plays (two seats
with the same key are copies of one bot), its :attr:`Seat.name` is a short name for tables and
charts: a bots-file name, a built-in bot's name, or the program's file name (``bot.js`` for
``node examples/node-bot/bot.js``).

>>> [s.name for s in parse_seats("expert, 2*cmd:python3 my_bot.py --depth 3")]
['expert', 'my_bot.py', 'my_bot.py']
>>> entry_labels(parse_seats("3*heuristic,random"))
['heuristic#1', 'heuristic#2', 'heuristic#3', 'random']
"""

from __future__ import annotations

import inspect
import json
import os
import random
import re
import shlex
import tomllib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nimmt.bots import BOTS, FIELD, Bot, make_bot
from nimmt.core import NimmtError

EXTERNAL = "cmd:"
KNOWN: dict[str, type[Bot]] = {**BOTS, **FIELD}  # every bot a tournament seats by name
MAX_COPIES = 10  # a table seats at most ten players

# Interpreters whose first plain argument (or ``-m module``) names the bot better than they do.
_INTERPRETERS = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|ruby|perl|php|java|julia|lua|luajit|Rscript|bash|sh|zsh|dotnet|"
    r"uv|uvx|npx|pipx|tsx|ts-node|racket|guile|sbcl|ocaml|elixir|escript|swipl|mono|wine)([0-9.]*)(\.exe)?",
)


class SeatError(NimmtError, ValueError):
    """A seat that cannot be made (an unknown bot, a bad bots file...); ``key`` and ``values`` let
    an interface say it in its own language, ``str()`` says it in English."""

    def __init__(self, key: str, text: str, **values: object) -> None:
        super().__init__(text)
        self.key = key
        self.values = {k: str(v) for k, v in values.items()}


@dataclass(frozen=True, slots=True)
class Seat:
    """One player of a tournament, as made in whatever process plays the game."""

    name: str  # short name: a bots-file name, a built-in bot's name, or the program's file name
    bot: str = ""  # a built-in bot's name; empty for a program
    command: tuple[str, ...] = ()  # a program's arguments, exactly as they are passed
    options: tuple[tuple[str, Any], ...] = ()  # keyword arguments of a built-in bot (time_budget, samples...)
    timeout: float | None = None  # a program's limit per decision (seconds)
    start_timeout: float | None = None  # a program's limit to start and answer hello
    cwd: str | None = None  # a program's working folder
    env: tuple[tuple[str, str], ...] = ()  # variables added to a program's environment
    named: bool = False  # the name was given (bots file), not derived

    @property
    def is_program(self) -> bool:
        return bool(self.command)

    @property
    def key(self) -> str:
        """What plays: the same key, the same bot (the save file's header keeps the keys).

        A built-in bot without options is its name, a program given as ``cmd:`` is ``cmd:`` and its
        command line; anything more is written out as JSON.
        """
        if not self.is_program and not self.options and not self.named:
            return self.bot
        if self.is_program and not self.named and self.timeout is None and self.start_timeout is None \
                and self.cwd is None and not self.env:
            return EXTERNAL + shlex.join(self.command)
        data: dict[str, Any] = {"name": self.name}
        if self.is_program:
            data["command"] = list(self.command)
            for field in ("timeout", "start_timeout", "cwd"):
                if getattr(self, field) is not None:
                    data[field] = getattr(self, field)
            if self.env:
                data["env"] = dict(self.env)
        else:
            data["bot"] = self.bot
            if self.options:
                data["options"] = dict(self.options)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def make(self, rng: random.Random, seat: int | None = None) -> Bot:
        """A new player for one game."""
        if self.is_program:
            from nimmt.protocol import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, ProcessBot

            env = {**os.environ, **dict(self.env)} if self.env else None
            return ProcessBot(
                list(self.command), rng,
                timeout=self.timeout if self.timeout is not None else DEFAULT_TIMEOUT,
                start_timeout=self.start_timeout if self.start_timeout is not None else DEFAULT_START_TIMEOUT,
                label=self.name, cwd=self.cwd, env=env, seat=seat,
            )
        if self.options:
            return KNOWN[self.bot](rng, **dict(self.options))
        return make_bot(self.bot, rng)


def program_name(command: Sequence[str]) -> str:
    """A short name for a program: its script or module after an interpreter, else its file name.

    >>> program_name(["node", "examples/node-bot/bot.js"]), program_name(["python3", "-u", "-m", "mybot.main"])
    ('bot.js', 'mybot.main')
    >>> program_name(["/opt/bots/fast-bot", "--level", "3"]), program_name(["java", "-jar", "b/Bot.jar"])
    ('fast-bot', 'Bot.jar')
    """
    first = os.path.basename(command[0]) or command[0]
    if _INTERPRETERS.fullmatch(first):
        rest = list(command[1:])
        for i, arg in enumerate(rest):
            if arg == "-m" and i + 1 < len(rest):
                return rest[i + 1]
            if arg in ("-jar",) and i + 1 < len(rest):
                return os.path.basename(rest[i + 1]) or rest[i + 1]
            if not arg.startswith("-"):
                return os.path.basename(arg.rstrip("/")) or arg
    return first


def known_bots() -> str:
    return ", ".join([*sorted(BOTS), *FIELD])


def builtin_seat(name: str) -> Seat:
    if name not in KNOWN:
        raise SeatError("bots_unknown", f"unknown bot {name!r}: the bots are {known_bots()}",
                        bot=repr(name), known=known_bots())
    return Seat(name=name, bot=name)


def program_seat(command_line: str) -> Seat:
    """The seat of ``cmd:<command line>`` (the command line split like a shell's)."""
    try:
        argv = shlex.split(command_line)
    except ValueError:
        argv = []
    if not argv:
        raise SeatError("command_unreadable", f"cannot read the command line {EXTERNAL + command_line!r}",
                        command=repr(EXTERNAL + command_line))
    return Seat(name=program_name(argv), command=tuple(argv))


def split_list(spec: str) -> list[str]:
    """Split a list of bots at its commas, except commas inside quotes (``'...'`` or ``"..."``) of a
    ``cmd:`` command line.

    >>> split_list('expert, cmd:python3 bot.py --tag "a,b"')
    ['expert', 'cmd:python3 bot.py --tag "a,b"']
    """
    parts: list[str] = []
    current: list[str] = []
    quote, escaped = "", False
    for char in spec:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == ",":
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


_COPIES = re.compile(r"(\d+)\s*\*\s*(.*)", re.DOTALL)


def parse_seats(spec: str, named: Mapping[str, Seat] | None = None) -> list[Seat]:
    """Seats from ``"expert,3*heuristic"``: built-in bots, ``cmd:<command line>`` programs and the
    names of a bots file (``named``), ``N*`` before a bot for N copies."""
    named = named or {}
    seats: list[Seat] = []
    for part in split_list(spec):
        copies, what = 1, part
        found = _COPIES.fullmatch(part)
        if found:
            copies, what = int(found.group(1)), found.group(2).strip()
            if not 1 <= copies <= MAX_COPIES:
                raise SeatError("bots_copies", f"{part!r}: a bot can fill 1 to {MAX_COPIES} seats, not {copies}",
                                part=repr(part), copies=copies)
        if not what:
            raise SeatError("bots_empty_name", f"{spec!r} has an empty bot name", spec=repr(spec))
        if what in named:
            seat = named[what]
        elif what.startswith(EXTERNAL):
            seat = program_seat(what[len(EXTERNAL):])
        else:
            if what not in KNOWN:
                known = ", ".join([*named, known_bots()])
                raise SeatError("bots_unknown", f"unknown bot {what!r}: the bots are {known}",
                                bot=repr(what), known=known)
            seat = builtin_seat(what)
        seats.extend([seat] * copies)
    return seats


def as_seat(seat: Seat | str) -> Seat:
    """A seat from a seat or from one name (a built-in bot or ``cmd:<command line>``)."""
    if isinstance(seat, Seat):
        return seat
    if seat.startswith(EXTERNAL):
        return program_seat(seat[len(EXTERNAL):])
    return builtin_seat(seat)


def entry_labels(seats: Sequence[Seat | str]) -> list[str]:
    """Names that tell entries apart: copies of one bot are ``name#1``, ``name#2``...; two different
    bots that would share a short name are told by their whole key instead.

    >>> entry_labels(["expert", "random", "random"])
    ['expert', 'random#1', 'random#2']
    >>> entry_labels(["cmd:node a/bot.js", "cmd:node b/bot.js"])
    ['node a/bot.js', 'node b/bot.js']
    """
    names = bot_names(seats)
    keys = [as_seat(s).key for s in seats]
    seen: dict[str, int] = defaultdict(int)
    labels = []
    for key in keys:
        seen[key] += 1
        labels.append(f"{names[key]}#{seen[key]}" if keys.count(key) > 1 else names[key])
    return labels


def bot_names(seats: Sequence[Seat | str]) -> dict[str, str]:
    """A short name for each distinct bot (by key), unique among them."""
    resolved = [as_seat(s) for s in seats]
    distinct = {s.key: s for s in resolved}
    short: dict[str, list[str]] = defaultdict(list)
    for key, seat in distinct.items():
        short[seat.name].append(key)
    names = {}
    for key, seat in distinct.items():
        if len(short[seat.name]) == 1:
            names[key] = seat.name
        elif seat.is_program and not seat.named:
            names[key] = shlex.join(seat.command)
        else:
            names[key] = key
    return names


# -- bots files ---------------------------------------------------------------------------------

_PROGRAM_KEYS = {"name", "command", "args", "timeout", "start_timeout", "cwd", "env", "copies"}
_BUILTIN_KEYS = {"name", "bot", "options", "copies"}


def _bad(file: str, text: str) -> SeatError:
    return SeatError("bots_file_bad", f"{file}: {text}", file=file, reason=text)


def _number(value: Any, what: str, file: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _bad(file, f"{what} is a number of seconds above 0, not {value!r}")
    return float(value)


def _seat_from(entry: Any, index: int, folder: Path, file: str) -> tuple[Seat, int]:
    if not isinstance(entry, dict):
        raise _bad(file, f"bot {index} is not a table of keys (name, command, args...)")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip() or "," in name or "*" in name:
        raise _bad(file, f"bot {index} needs a name (text without commas or stars), not {name!r}")
    name = name.strip()
    copies = entry.get("copies", 1)
    if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= MAX_COPIES:
        raise _bad(file, f"{name}: copies is a whole number from 1 to {MAX_COPIES}, not {copies!r}")
    if "command" in entry:
        unknown = sorted(set(entry) - _PROGRAM_KEYS)
        if unknown:
            raise _bad(file, f"{name}: unknown key {unknown[0]!r} (a program has {', '.join(sorted(_PROGRAM_KEYS))})")
        command = entry["command"]
        if isinstance(command, str):
            try:
                argv = shlex.split(command)
            except ValueError as error:
                raise _bad(file, f"{name}: cannot read the command {command!r}: {error}") from None
        elif isinstance(command, list) and all(isinstance(a, str) for a in command):
            argv = list(command)
        else:
            raise _bad(file, f"{name}: command is a command line or a list of texts, not {command!r}")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise _bad(file, f"{name}: args is a list of texts, not {args!r}")
        argv += args
        if not argv or not argv[0]:
            raise _bad(file, f"{name}: the command is empty")
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise _bad(file, f"{name}: env is a table of texts, not {env!r}")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise _bad(file, f"{name}: cwd is a folder, not {cwd!r}")
        if cwd is not None:
            cwd = str((folder / cwd).resolve())
            if not Path(cwd).is_dir():
                raise _bad(file, f"{name}: the folder {cwd!r} does not exist")
        timeout = None if "timeout" not in entry else _number(entry["timeout"], f"{name}: timeout", file)
        start = None if "start_timeout" not in entry else _number(entry["start_timeout"], f"{name}: start_timeout",
                                                                   file)
        return Seat(name=name, command=tuple(argv), timeout=timeout, start_timeout=start, cwd=cwd,
                    env=tuple(sorted(env.items())), named=True), copies
    if "bot" in entry:
        unknown = sorted(set(entry) - _BUILTIN_KEYS)
        if unknown:
            keys = ", ".join(sorted(_BUILTIN_KEYS))
            raise _bad(file, f"{name}: unknown key {unknown[0]!r} (a built-in bot has {keys})")
        bot = entry["bot"]
        if not isinstance(bot, str) or bot not in KNOWN:
            raise _bad(file, f"{name}: unknown bot {bot!r}: the bots are {known_bots()}")
        options = entry.get("options", {})
        if not isinstance(options, dict):
            raise _bad(file, f"{name}: options is a table, not {options!r}")
        accepted = [p for p in inspect.signature(KNOWN[bot].__init__).parameters if p not in ("self", "rng")]
        for key, value in options.items():
            if key not in accepted:
                raise _bad(file, f"{name}: {bot} has no option {key!r} (its options: {', '.join(accepted) or 'none'})")
            if not isinstance(value, str | int | float | bool):
                raise _bad(file, f"{name}: option {key} is a number or a text, not {value!r}")
        seat = Seat(name=name, bot=bot, options=tuple(sorted(options.items())), named=True)
        try:
            seat.make(random.Random(0))  # an option of the wrong kind is refused now, not in a game
        except (TypeError, ValueError) as error:
            raise _bad(file, f"{name}: {error}") from None
        return seat, copies
    raise _bad(file, f"{name}: give a program (command, and args) or a built-in bot (bot)")


def read_bots_file(path: Path) -> tuple[dict[str, Seat], list[Seat]]:
    """The bots a TOML or JSON file defines, by name, and the seats they fill when ``--bots`` is not
    given (each bot ``copies`` times, in the file's order).

    TOML: ``[[bot]]`` tables; JSON: ``{"bots": [...]}`` or a list. Each bot has a ``name`` and either
    ``command`` (a list of arguments taken as they are, or a command line split like a shell's)
    with ``args`` (more arguments, taken as they are: any characters), ``timeout``,
    ``start_timeout``, ``cwd`` (relative to the file's folder) and ``env``; or ``bot`` (a built-in
    bot) with ``options`` (its keyword arguments: ``time_budget``, ``samples``...). ``copies``
    fills that many seats.
    """
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        reason = str(error.strerror or error)
        raise SeatError("bots_file_unreadable", f"cannot read {file!r}: {reason}", file=repr(file),
                        reason=reason) from None
    try:
        text = raw.decode("utf-8")
        if str(path).lower().endswith(".json"):
            data: Any = json.loads(text)
        else:
            data = tomllib.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise _bad(file, f"not valid {'JSON' if file.lower().endswith('.json') else 'TOML'}: {error}") from None
    entries = data.get("bots", data.get("bot")) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise _bad(file, "no bots: write [[bot]] tables (TOML) or {\"bots\": [...]} (JSON)")
    folder = Path(path).resolve().parent
    named: dict[str, Seat] = {}
    seats: list[Seat] = []
    for index, entry in enumerate(entries, start=1):
        seat, copies = _seat_from(entry, index, folder, file)
        if seat.name in named:
            raise _bad(file, f"two bots are named {seat.name!r}")
        named[seat.name] = seat
        seats.extend([seat] * copies)
    return named, seats

"""A tournament's games kept in a file, one JSON line per finished game, so that a stopped run
loses nothing and the next run with the same file plays only the games still missing.

The first line is a header with the settings that decide the games (bots, players, seed, rounds,
time budget and its clock); every later line is one :class:`MatchResult`. Each line is flushed as
soon as its game ends. A last line cut short (the process killed while writing it) is dropped
with a warning.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "games.jsonl"
>>> settings = Settings(("random", "random"), seed=3)
>>> with SaveFile.open(path, settings) as save:
...     save.done
{}
"""

from __future__ import annotations

import json
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from nimmt.bots.base import DEFAULT_TIME_BUDGET
from nimmt.core import NimmtError

from .play import MatchResult

FORMAT = "nimmt-tournament/1"


class SaveError(NimmtError, ValueError):
    """A save file that cannot be used for this tournament (other settings, not a save file...);
    ``key`` and ``values`` let an interface tell it in its own language."""

    def __init__(self, key: str, text: str, **values: str) -> None:
        super().__init__(text)
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class Settings:
    """What decides a tournament's games: the same settings, the same game for each (deal set, rotation)."""

    bots: tuple[str, ...]  # the key of each entry's bot (nimmt.tournament.seats.Seat.key)
    seed: int
    rounds: int | None = None
    time_budget: float | None = None  # the budget in force: the default's number when none was given
    budget_clock: str | None = None
    field: tuple[str, ...] = ()  # tables drawn from this field for the one bot in ``bots``
    players: int | None = None  # players per game, when tables are drawn from a field

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"format": FORMAT, **asdict(self), "bots": list(self.bots),
                                   "players": self.players or len(self.bots)}
        del data["field"]
        if self.field:
            data["field"] = list(self.field)
        return data


def result_to_json(result: MatchResult) -> dict[str, object]:
    return {
        **result.to_json(),
        "decision_times": [list(t) for t in result.decision_times],
        "decision_cpu": [list(t) for t in result.decision_cpu],
        "seconds": result.seconds,
    }


def result_from_json(data: Any) -> MatchResult:
    """A game read back from its line; a ValueError (KeyError, TypeError) if it is not one."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")

    def ints(value: Any) -> tuple[int, ...]:
        if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
            raise ValueError("not a list of whole numbers")
        return tuple(value)

    def floats(value: Any) -> tuple[tuple[float, ...], ...]:
        if not isinstance(value, list):
            raise ValueError("not a list")
        return tuple(tuple(float(v) for v in seat) for seat in value)

    seats = data["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise ValueError("seats are not bot names")
    deal_set, rotation = data["deal_set"], data["rotation"]
    seconds = data.get("seconds")  # absent from the lines of files saved before it was kept
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)):
        raise ValueError("seconds is not a number")
    if not isinstance(deal_set, int) or not isinstance(rotation, int):
        raise ValueError("deal set and rotation are whole numbers")
    return MatchResult(
        deal_set=deal_set,
        rotation=rotation,
        seats=tuple(seats),
        entries=ints(data["entries"]),
        rounds=tuple(ints(r) for r in data["rounds"]),
        totals=ints(data["totals"]),
        winners=ints(data["winners"]),
        decision_times=floats(data["decision_times"]),
        decision_cpu=floats(data.get("decision_cpu", [])),
        seconds=None if seconds is None else float(seconds),
    )


def saved_seed(path: Path) -> int | None:
    """The seed in the header of the save file at ``path``, if it has one (so a run can go on without ``--seed``)."""
    try:
        with Path(path).open("rb") as file:
            header = json.loads(file.readline())
    except (OSError, ValueError):
        return None
    seed = header.get("seed") if isinstance(header, dict) and header.get("format") == FORMAT else None
    return seed if isinstance(seed, int) else None


def _settings_text(header: dict[str, object]) -> str:
    keys = ("bots", "players", "seed", "rounds", "time_budget", "budget_clock", "field")
    return ", ".join(f"{key}={json.dumps(header.get(key))}" for key in keys)


@dataclass
class SaveFile:
    """An open save file: the games it already holds (``done``), and :meth:`add` for new ones."""

    path: Path
    settings: Settings
    done: dict[tuple[int, int], MatchResult] = field(default_factory=dict)
    cut_short: int | None = None  # the number of a last line cut short, dropped
    _file: IO[str] | None = None

    @classmethod
    def open(cls, path: Path, settings: Settings) -> SaveFile:
        """Read the games ``path`` holds (creating it with a header if it is missing or empty),
        checking that they were played with ``settings``; then keep it open for appending."""
        save = cls(Path(path), settings)
        try:
            raw = save.path.read_bytes() if save.path.exists() else b""
        except OSError as error:
            reason = str(error.strerror or error)
            raise SaveError("save_cannot_read", f"cannot read {str(path)!r}: {reason}", file=repr(str(path)),
                            reason=reason) from None
        keep = save._read(raw)  # bytes of complete, valid lines
        try:
            if keep < len(raw):
                with save.path.open("r+b") as cut:  # drop the cut-short line, so new lines start clean
                    cut.truncate(keep)
            save._file = save.path.open("a", encoding="utf-8")
            if keep == 0:
                save._write(settings.to_json())
        except OSError as error:
            reason = str(error.strerror or error)
            raise SaveError("save_cannot_write", f"cannot write {str(path)!r}: {reason}", file=repr(str(path)),
                            reason=reason) from None
        return save

    def _read(self, raw: bytes) -> int:
        """Parse ``raw``; how many of its bytes to keep (0: write a new header)."""
        lines = raw.split(b"\n")
        # A text ending in a newline splits into complete lines and an empty tail; any other tail
        # is a line the writer did not finish.
        offset = 0
        name = repr(str(self.path))
        for number, line in enumerate(lines, start=1):
            last = number == len(lines)
            if last and not line:
                break
            try:
                data = json.loads(line)
                if last:
                    raise ValueError("no newline")
            except ValueError:
                if last:
                    self.cut_short = number
                    break
                raise SaveError("save_not_json", f"line {number} of {name} is not JSON: is it a tournament save file?",
                                line=str(number), file=name) from None
            if number == 1:
                self._check_header(data)
            else:
                try:
                    result = result_from_json(data)
                except (ValueError, KeyError, TypeError) as error:
                    raise SaveError("save_not_game", f"line {number} of {name} is not a game: {error}",
                                    line=str(number), file=name, reason=str(error)) from None
                if not self._fits(result):
                    raise SaveError("save_other_bots", f"line {number} of {name} seats other bots than its header",
                                    line=str(number), file=name)
                self.done.setdefault((result.deal_set, result.rotation), result)
            offset += len(line) + 1
        return offset

    def _fits(self, result: MatchResult) -> bool:
        """Whether a saved game seats the bots of this tournament."""
        bots, field = self.settings.bots, self.settings.field
        players = self.settings.players or len(bots)
        if sorted(result.entries) != list(range(players)) or len(result.seats) != players:
            return False
        if field:
            return all((key == bots[0]) if entry == 0 else key in field
                       for key, entry in zip(result.seats, result.entries, strict=True))
        return result.seats == tuple(bots[e] for e in result.entries)

    def _check_header(self, data: Any) -> None:
        name = repr(str(self.path))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SaveError("save_not_save_file", f"{name} is not a tournament save file (its first line has no "
                            f"\"format\": \"{FORMAT}\")", file=name, format=FORMAT)
        wanted = self.settings.to_json()
        if data.get("time_budget") is None and wanted.get("time_budget") == DEFAULT_TIME_BUDGET:
            # Files saved before the budget in force was written say null for the default budget.
            wanted["time_budget"] = None
        if any(data.get(key) != wanted.get(key) for key in {*wanted, "field"}):
            theirs, ours = _settings_text(data), _settings_text(wanted)
            raise SaveError(
                "save_other_settings",
                f"{name} holds games of another tournament ({theirs}), not of this one ({ours}): "
                "give the same settings, or another file",
                file=name, theirs=theirs, ours=ours,
            )

    def _write(self, data: dict[str, object]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._file.flush()  # a killed process keeps every line written so far

    def add(self, result: MatchResult) -> None:
        """Append a finished game (and flush it to the disk)."""
        line = result_to_json(result)
        # Ctrl-C or a kill waits until the line is written and counted, so that what a stopped run
        # says it kept is what the file holds.
        blocked = {signal.SIGINT, signal.SIGTERM}
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked) if hasattr(signal, "pthread_sigmask") else None
        try:
            self._write(line)
            self.done.setdefault((result.deal_set, result.rotation), result)
        finally:
            if previous is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def kept(self) -> int:
        """How many finished games the file holds now: what a stopped run says it kept. Counted from
        the file itself, not from :attr:`done`: the signal mask of :meth:`add` holds only in its own
        thread, so a Ctrl-C delivered to another thread (a pool's) can still land between a game's
        line and its count."""
        return len(self.held())

    def held(self) -> list[MatchResult]:
        """The finished games the file holds now, read from the file (see :meth:`kept`), in order."""
        try:
            if self._file is not None:
                self._file.flush()
            again = SaveFile(self.path, self.settings)
            again._read(self.path.read_bytes())
            games = again.done
        except (OSError, SaveError):
            games = self.done
        return sorted(games.values(), key=lambda r: (r.deal_set, r.rotation))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> SaveFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

"""Batch play: many hands or games at once, compiled with Numba when it is there, NumPy otherwise."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, NimmtError, Rules

from . import _kernels as K
from . import _numpy as N
from ._base import HEURISTIC_LATER, HEURISTIC_TIE
from ._kernels import CardPolicy, Policies, RowPolicy

Ints = npt.NDArray[np.int64]
EngineName = Literal["auto", "numba", "numpy"]
Policy = Literal["random", "fewest", "heuristic"]
RowPolicyName = Literal["given", "random", "fewest", "heuristic"]
CardPolicyName = Literal["order", "heuristic"]

ROW_POLICIES: dict[str, RowPolicy] = {
    "given": RowPolicy.GIVEN, "random": RowPolicy.RANDOM, "fewest": RowPolicy.FEWEST, "heuristic": RowPolicy.HEURISTIC,
}
CARD_POLICIES: dict[str, CardPolicy] = {"order": CardPolicy.ORDER, "heuristic": CardPolicy.HEURISTIC}
# A policy for whole tables: how every seat plays its cards and chooses its rows.
POLICIES: dict[str, tuple[CardPolicy, RowPolicy]] = {
    "random": (CardPolicy.ORDER, RowPolicy.RANDOM),
    "fewest": (CardPolicy.ORDER, RowPolicy.FEWEST),
    "heuristic": (CardPolicy.HEURISTIC, RowPolicy.HEURISTIC),
}
# How each seat plays in :func:`seat_games`, by the name of the bot it plays exactly like: its card
# policy and its row policy (``random``: RandomBot, ``beginner``: BeginnerBot, ``heuristic``:
# HeuristicBot; the tests compare each with the bot playing through the step engine).
SEAT_POLICIES: dict[str, tuple[CardPolicy, RowPolicy]] = {
    "random": (CardPolicy.ORDER, RowPolicy.RANDOM),
    "beginner": (CardPolicy.BEGINNER, RowPolicy.FEWEST),
    "heuristic": (CardPolicy.HEURISTIC, RowPolicy.HEURISTIC),
}
DEFAULT_CHUNK = 16_384  # hands per chunk: the NumPy path holds a few (chunk, 104) arrays at once
ENGINE_VARIABLE = "NIMMT_BATCH_ENGINE"  # "numpy" forces the NumPy path


class BatchError(NimmtError, ValueError):
    """Bad input to the batch engine (the message says what is wrong)."""


def engine_name(engine: EngineName | str = "auto") -> str:
    """The engine that runs: "numba" when it is installed (and not turned off), else "numpy".

    ``engine="auto"`` reads the variable NIMMT_BATCH_ENGINE, so NIMMT_BATCH_ENGINE=numpy forces the
    NumPy path everywhere.
    """
    if engine == "auto":
        engine = os.environ.get(ENGINE_VARIABLE, "auto") or "auto"
    if engine == "auto":
        return "numba" if K.HAVE_NUMBA else "numpy"
    if engine == "numba":
        if not K.HAVE_NUMBA:
            raise BatchError("the numba engine needs Numba: pip install 'nimmt[sim]'")
        return "numba"
    if engine == "numpy":
        return "numpy"
    raise BatchError(f"unknown engine {engine!r}: choose auto, numba or numpy")


def seat_policies(cards: npt.ArrayLike, rows: npt.ArrayLike, net: npt.ArrayLike | None = None) -> Policies:
    """Each seat's card policy (:class:`CardPolicy`) and row policy (:class:`RowPolicy`), as the kernels
    take them, with the heuristic bot's weights; ``net``: the learned network's weights
    (:attr:`nimmt.bots.learned.Net.flat`) for seats on ``CardPolicy.NET``."""
    return K.policies(cards, rows, HEURISTIC_TIE, HEURISTIC_LATER, net)


def run_kernel(kernel: Callable[..., Any], *args: Any) -> Any:
    """Call a kernel; without Numba it runs as Python, where the random source's 64-bit arithmetic
    wraps around on purpose."""
    with np.errstate(over="ignore"):
        return kernel(*args)


def _seed(rng: np.random.Generator) -> np.uint64:
    return np.uint64(int(rng.integers(0, 2**63)))


def _check_players(players: int) -> None:
    if isinstance(players, bool) or not isinstance(players, int | np.integer) or not (
        MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise BatchError(f"a table has 2 to 10 players, not {players!r}")


def _policy(policy: str) -> tuple[CardPolicy, RowPolicy]:
    try:
        return POLICIES[policy]
    except KeyError:
        raise BatchError(f"unknown policy {policy!r}: choose {', '.join(POLICIES)}") from None


def chunks(total: int, chunk: int) -> Iterator[int]:
    """Sizes of the chunks that make up ``total`` (memory stays bounded by ``chunk``)."""
    if chunk < 1:
        raise BatchError(f"the chunk size must be at least 1, not {chunk}")
    done = 0
    while done < total:
        size = min(chunk, total - done)
        yield size
        done += size


def deal(
    players: int, count: int, rng: np.random.Generator, engine: EngineName | str = "auto"
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """``count`` random deals: rows (count, 4) and orders (count, players, 10), int16.

    ``orders[b, p]`` is player p's hand in a uniformly random order, so playing it turn by turn
    is random play.
    """
    _check_players(players)
    if engine_name(engine) == "numba":
        rows = np.empty((count, 4), np.int16)
        orders = np.empty((count, players, 10), np.int16)
        K.deal_many(players, count, _seed(rng), rows, orders)
        return rows, orders
    r, o = N.deal(players, count, rng)
    return r.astype(np.int16), o.astype(np.int16)


def check_deals(rows: npt.ArrayLike, orders: npt.ArrayLike) -> tuple[Ints, Ints]:
    """Validate deals (see :func:`play`) and return them as int64 arrays."""
    r = np.asarray(rows)
    o = np.asarray(orders)
    if r.ndim != 2 or r.shape[1] != 4:
        raise BatchError(f"rows must have shape (hands, 4), not {r.shape}")
    if o.ndim != 3 or o.shape[0] != r.shape[0]:
        raise BatchError(f"orders must have shape (hands, players, turns) with {r.shape[0]} hands, not {o.shape}")
    _check_players(int(o.shape[1]))
    if not 1 <= o.shape[2] <= 10:
        raise BatchError(f"a hand is played in 1 to 10 turns, not {o.shape[2]}")
    if not (np.issubdtype(r.dtype, np.integer) and np.issubdtype(o.dtype, np.integer)):
        raise BatchError("cards must be whole numbers")
    cards = np.concatenate([r, o.reshape(o.shape[0], -1)], axis=1).astype(np.int64)
    if cards.size and (cards.min() < 1 or cards.max() > 104):
        raise BatchError("every card must be from 1 to 104")
    ordered = np.sort(cards, axis=1)
    if cards.shape[1] > 1 and (ordered[:, 1:] == ordered[:, :-1]).any():
        bad = int(np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))[0])
        raise BatchError(f"hand {bad} deals a card twice")
    return r.astype(np.int64), o.astype(np.int64)


def play(
    rows: npt.ArrayLike,
    orders: npt.ArrayLike,
    *,
    row_policy: RowPolicyName | str = "fewest",
    card_policy: CardPolicyName | str = "order",
    choices: npt.ArrayLike | None = None,
    rng: np.random.Generator | None = None,
    engine: EngineName | str = "auto",
) -> Ints:
    """Play one hand per deal and return the bullheads each player takes, (hands, players).

    ``rows`` (hands, 4) are the starting cards of rows 0-3; ``orders`` (hands, players, turns) the
    cards each player plays, turn by turn (``card_policy="order"``), or the hand the heuristic bot
    picks from (``card_policy="heuristic"``, 10 turns). A card below every row takes the row that
    ``row_policy`` says: "given" (the k-th such card of hand b takes ``choices[b, k]``; ``choices``
    needs players * turns columns), "random", "fewest" (fewest bullheads, the first on a tie) or
    "heuristic" (what :class:`nimmt.bots.heuristic.HeuristicBot` would choose).
    """
    r, o = check_deals(rows, orders)
    count, players, turns = o.shape
    try:
        rp = ROW_POLICIES[row_policy]
        cp = CARD_POLICIES[card_policy]
    except KeyError:
        raise BatchError(
            f"unknown policy: rows {row_policy!r} (choose {', '.join(ROW_POLICIES)}), "
            f"cards {card_policy!r} (choose {', '.join(CARD_POLICIES)})"
        ) from None
    if rp == RowPolicy.GIVEN:
        if choices is None:
            raise BatchError('row_policy="given" needs choices: the row (0-3) of each low card, in order')
        ch = np.asarray(choices)
        if ch.shape != (count, players * turns):
            raise BatchError(f"choices must have shape {(count, players * turns)}, not {ch.shape}")
        if ch.size and (ch.min() < 0 or ch.max() > 3):
            raise BatchError("every row choice must be a row from 0 to 3")
        ch = ch.astype(np.int64)
    else:
        ch = np.zeros((count, 1), np.int64)
    if cp == CardPolicy.HEURISTIC and turns != 10:
        raise BatchError("the heuristic card policy plays whole hands of 10 turns")
    rng = rng if rng is not None else np.random.default_rng()
    penalties = np.zeros((count, players), np.int64)
    if cp == CardPolicy.HEURISTIC or rp == RowPolicy.HEURISTIC or engine_name(engine) == "numba":
        seats = seat_policies(np.full(players, cp), np.full(players, rp))
        run_kernel(K.hands, r, o, ch, seats, _seed(rng), penalties)
        return penalties
    return N.play_rows(r, o, rp, ch, rng)


@dataclass
class HandStats:
    """What a run of hands gives: the hands played, each seat's summed penalty, and how many hands
    ended with each penalty (``spread[p, k]``: hands in which player p took k bullheads)."""

    players: int
    hands: int = 0
    totals: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    spread: Ints = field(default_factory=lambda: np.zeros((0, 172), np.int64))

    def __post_init__(self) -> None:
        if self.totals.size == 0:
            self.totals = np.zeros(self.players, np.int64)
        if self.spread.size == 0:
            self.spread = np.zeros((self.players, 172), np.int64)

    @property
    def mean(self) -> npt.NDArray[np.float64]:
        return self.totals / max(self.hands, 1)


def play_hands(
    players: int,
    hands: int,
    rng: np.random.Generator,
    *,
    policy: Policy | str = "random",
    chunk: int = DEFAULT_CHUNK,
    engine: EngineName | str = "auto",
) -> HandStats:
    """Deal and play ``hands`` independent hands (rounds) at a table of ``players``, ``chunk`` hands
    at a time (a million hands never sit in memory at once), and return their :class:`HandStats`.

    ``policy``: "random" (random cards, random rows), "fewest" (random cards, the row with the
    fewest bullheads) or "heuristic" (every seat plays like the heuristic bot).
    """
    _check_players(players)
    cp, rp = _policy(policy)
    stats = HandStats(players)
    name = engine_name(engine)
    seats = seat_policies(np.full(players, cp), np.full(players, rp))
    for size in chunks(hands, chunk):
        if name == "numba" and cp == CardPolicy.ORDER:
            K.plain_hands(players, size, int(rp), _seed(rng), stats.totals, stats.spread)
            stats.hands += size
            continue
        if cp != CardPolicy.ORDER:  # hands are games of one round
            games = K.tally(size, players)
            run_kernel(K.games, players, size, 0, 1, seats, _seed(rng), games)
            penalties = games.totals
        else:
            rows, orders = N.deal(players, size, rng)
            penalties = N.play_rows(rows, orders, rp, None, rng)
        stats.totals += penalties.sum(axis=0)
        for p in range(players):
            stats.spread[p] += np.bincount(penalties[:, p], minlength=172)
        stats.hands += size
    return stats


@dataclass
class GameStats:
    """What a run of whole games gives: games and rounds played, each seat's summed final total,
    and its wins (a shared win counts 1/k for each of the k winners)."""

    players: int
    games: int = 0
    rounds: int = 0
    totals: Ints = field(default_factory=lambda: np.zeros(0, np.int64))
    wins: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        if self.totals.size == 0:
            self.totals = np.zeros(self.players, np.int64)
        if self.wins.size == 0:
            self.wins = np.zeros(self.players)

    def add(self, totals: Ints, rounds: Ints) -> None:
        self.games += totals.shape[0]
        self.rounds += int(rounds.sum())
        self.totals += totals.sum(axis=0)
        best = totals == totals.min(axis=1, keepdims=True)
        self.wins += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)


def play_games(
    players: int,
    games: int,
    rng: np.random.Generator,
    *,
    policy: Policy | str = "random",
    rules: Rules | None = None,
    chunk: int = DEFAULT_CHUNK,
    engine: EngineName | str = "auto",
) -> GameStats:
    """Play ``games`` whole games (rounds until a total is above ``rules.end_above``, or
    ``rules.rounds`` rounds) and return their :class:`GameStats`, ``chunk`` games at a time."""
    _check_players(players)
    cp, rp = _policy(policy)
    rules = rules or Rules()
    rounds = rules.rounds or 0
    stats = GameStats(players)
    name = engine_name(engine)
    seats = seat_policies(np.full(players, cp), np.full(players, rp))
    for size in chunks(games, chunk):
        tally = K.tally(size, players)
        if name == "numba" and cp == CardPolicy.ORDER:
            K.plain_games(players, size, rules.end_above, rounds, int(rp), _seed(rng), tally)
        elif cp != CardPolicy.ORDER:
            run_kernel(K.games, players, size, rules.end_above, rounds, seats, _seed(rng), tally)
        else:
            _numpy_games(players, rules.end_above, rounds, rp, rng, tally.totals, tally.played)
        stats.add(tally.totals, tally.played)
    return stats


def _numpy_games(
    players: int, end_above: int, rounds: int, row_policy: int, rng: np.random.Generator, totals: Ints, played: Ints
) -> None:
    """Whole games with the NumPy path: every round, deal and play the games still going."""
    going = np.arange(totals.shape[0])
    while going.size:
        rows, orders = N.deal(players, going.size, rng)
        totals[going] += N.play_rows(rows, orders, row_policy, None, rng)
        played[going] += 1
        over = played[going] >= rounds if rounds > 0 else totals[going].max(axis=1) > end_above
        going = going[~over]


@dataclass(frozen=True)
class SeatGames:
    """Whole games of :func:`seat_games`, one entry per game: final ``totals`` (games, players),
    ``played`` rounds (games), and ``squares`` (games, players), the sum over a game's rounds of
    the square of each player's penalty in the round."""

    totals: Ints
    played: Ints
    squares: Ints


def _seat_policies(seats: list[str] | tuple[str, ...]) -> tuple[Ints, Ints]:
    _check_players(len(seats))
    unknown = [name for name in seats if name not in SEAT_POLICIES]
    if unknown:
        raise BatchError(f"no batch policy plays like {unknown[0]!r}: choose {', '.join(SEAT_POLICIES)}")
    cards = np.array([SEAT_POLICIES[name][0] for name in seats], np.int64)
    rows = np.array([SEAT_POLICIES[name][1] for name in seats], np.int64)
    return cards, rows


def seat_hands(
    rows: npt.ArrayLike, orders: npt.ArrayLike, seats: list[str] | tuple[str, ...], seed: int = 0
) -> Ints:
    """Play one hand per deal (see :func:`play`; 10 turns) where seat p plays like the bot
    ``seats[p]`` (a name of :data:`SEAT_POLICIES`); a random seat plays its cards in the order
    given. Returns the bullheads each player takes, (hands, players)."""
    r, o = check_deals(rows, orders)
    count, players, turns = o.shape
    if len(seats) != players:
        raise BatchError(f"{len(seats)} seats named for deals of {players} players")
    cards, row_pols = _seat_policies(seats)
    if turns != 10 and (cards != CardPolicy.ORDER).any():
        raise BatchError("the beginner and heuristic seats play whole hands of 10 turns")
    penalties = np.zeros((count, players), np.int64)
    run_kernel(K.hands, r, o, np.zeros((count, 1), np.int64), seat_policies(cards, row_pols), np.uint64(seed % 2**64),
               penalties)
    return penalties


def seat_games(
    seats: list[str] | tuple[str, ...],
    games: int,
    seed: int,
    *,
    rules: Rules | None = None,
    engine: EngineName | str = "auto",
) -> SeatGames:
    """Play ``games`` whole games where seat p plays like the bot ``seats[p]`` (a name of
    :data:`SEAT_POLICIES`), from the 64-bit ``seed``. Needs Numba (the NumPy path has no
    per-seat policies): ``engine`` must resolve to "numba"."""
    cards, rows_ = _seat_policies(seats)
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise BatchError(f"the number of games must be a whole number from 0, not {games!r}")
    if engine_name(engine) != "numba":
        raise BatchError("per-seat policies need the numba engine: pip install 'nimmt[sim]'")
    rules = rules or Rules()
    players = len(seats)
    tally = K.tally(games, players)
    plain = bool((cards == CardPolicy.ORDER).all() and (rows_ == rows_[0]).all() and rows_[0] != RowPolicy.HEURISTIC)
    if plain:  # random cards everywhere: the hot loop of random play
        K.plain_games(players, games, rules.end_above, rules.rounds or 0, int(rows_[0]), np.uint64(seed % 2**64),
                      tally)
    else:
        K.games(players, games, rules.end_above, rules.rounds or 0, seat_policies(cards, rows_),
                np.uint64(seed % 2**64), tally)
    return SeatGames(tally.totals, tally.played, tally.squares)

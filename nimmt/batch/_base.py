"""What every kernel of the batch engine shares: Numba or not, the policies, the random source,
card placement and small helpers, written in the subset of Python that Numba compiles.

With Numba installed every kernel is compiled once (``cache=True``: the machine code is kept in
``__pycache__``) and the batch loops run at native speed. Without Numba (or with
``NUMBA_DISABLE_JIT=1``) they stay plain Python: the NumPy path then uses them only for the policies
whose choices depend on each hand.

The rows of a hand are three small arrays indexed by row 0-3: ``ends`` (last card), ``counts``
(cards in the row) and ``heads`` (bullheads in the row), which is all that scoring and the
heuristic look at. Cards are placed on them by :func:`nimmt.core.fast.target` and
:func:`nimmt.core.fast.lay`, compiled here: the core's own compact placement.

Random numbers come from SplitMix64 with Lemire's exact bounded draw; the state is one ``uint64``
passed in and returned.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, fast

try:  # Numba is an optional extra (``nimmt[sim]``); everything works without it.
    import numba  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from numba.cpython.unsafe.numbers import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        trailing_zeros as _intrinsic_trailing_zeros,
    )
except ImportError:  # pragma: no cover - exercised by the test that hides numba
    numba = None  # type: ignore[assignment,unused-ignore]


def _python_trailing_zeros(bits: Any) -> int:
    return (int(bits) & -int(bits)).bit_length() - 1


# The intrinsic only compiles: as plain Python (no Numba, or NUMBA_DISABLE_JIT=1) the kernels count in Python.
trailing_zeros: Callable[..., Any] = (
    _python_trailing_zeros if numba is None or getattr(numba.config, "DISABLE_JIT", False)
    else _intrinsic_trailing_zeros
)

HAVE_NUMBA = numba is not None


def _bare(array):  # type: ignore[no-untyped-def]
    """The same array (the same memory, shape and strides) without its owner, so that compiled code
    counts no references to it: a count is an atomic add, and a rollout's hot loop made some 70 of them
    a turn (every array handed to an inlined helper, every slice), nearly half its time. Only for arrays
    whose owner outlives every use of the bare one: a kernel's arguments (the caller holds them), never
    a temporary. As plain Python, the array itself (compiled: ``_bare_intrinsic``)."""
    return array


if numba is not None:
    from numba.core import cgutils  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from numba.extending import intrinsic, overload  # type: ignore[import-untyped,import-not-found,unused-ignore]

    @intrinsic  # type: ignore[misc,untyped-decorator,unused-ignore]
    def _bare_intrinsic(typingctx: Any, array: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            source = context.make_array(array)(context, builder, value=args[0])
            made = context.make_array(array)(context, builder)
            for name in ("nitems", "itemsize", "data", "shape", "strides"):
                setattr(made, name, getattr(source, name))
            made.meminfo = cgutils.get_null_value(made.meminfo.type)  # type: ignore[no-untyped-call,unused-ignore]
            made.parent = cgutils.get_null_value(made.parent.type)  # type: ignore[no-untyped-call,unused-ignore]
            return made._getvalue()

        return array(array), codegen

    @overload(_bare, inline="always")  # type: ignore[misc,untyped-decorator,unused-ignore]
    def _bare_compiled(array):  # type: ignore[no-untyped-def]
        return lambda array: _bare_intrinsic(array)  # type: ignore[call-arg,unused-ignore]


bare: Callable[..., Any] = _bare

# The kernels' own files and the core's placement they compile: a kernel inlines code from all of them.
KERNEL_SOURCES = tuple(
    str(Path(path).resolve())
    for path in (*(Path(__file__).with_name(name) for name in ("_base.py", "_choices.py", "_plain.py", "_kernels.py",
                                                              "tables.py", "seated.py")), Path(fast.__file__))
)


@functools.cache
def _sources_digest(stamps: tuple[tuple[float, int], ...]) -> bytes:
    digest = hashlib.sha256()
    for path in KERNEL_SOURCES:
        digest.update(Path(path).read_bytes())
    return digest.digest()


def kernels_digest() -> bytes:
    """A digest of every kernel source (re-read when one of them changes on disk)."""
    stamps = tuple((os.stat(path).st_mtime, os.stat(path).st_size) for path in KERNEL_SOURCES)
    return _sources_digest(stamps)


if numba is not None:
    from numba.core import caching  # type: ignore[import-untyped,import-not-found,unused-ignore]

    class _KernelsStamp:
        """Numba keys a cached kernel on its own file; ours inline code from the other kernel files and
        from nimmt.core.fast, so a cached kernel holds only while all of them are unchanged (else an edit
        of a shared routine would leave stale machine code in the kernels that inline it)."""

        def get_source_stamp(self) -> bytes:
            return kernels_digest()

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if str(Path(py_file).resolve()) not in KERNEL_SOURCES:
                return None
            return super().from_function(py_func, py_file)  # type: ignore[misc]

    # Where Numba would keep them (NUMBA_CACHE_DIR when set, else __pycache__), keyed on every source.
    class _KernelsInDir(_KernelsStamp, caching.UserProvidedCacheLocator):  # type: ignore[misc,unused-ignore]
        pass

    class _KernelsInTree(_KernelsStamp, caching.InTreeCacheLocator):  # type: ignore[misc,unused-ignore]
        pass

    if not any(c.__name__ == "_KernelsInTree" for c in caching.CacheImpl._locator_classes):
        caching.CacheImpl._locator_classes[:0] = [_KernelsInDir, _KernelsInTree]


def _jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    if numba is None:
        return fn
    compiled: Callable[..., Any] = numba.njit(cache=True, nogil=True)(fn)
    return compiled


def _jit_inline(fn: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`_jit`, and inlined into its callers by Numba itself: the small helpers of the heuristic
    take array views, and a call that is not inlined pays an atomic reference count per view."""
    if numba is None:
        return fn
    compiled: Callable[..., Any] = numba.njit(cache=True, nogil=True, inline="always")(fn)
    return compiled


class RowPolicy(enum.IntEnum):
    """What a player does with its card when it is below every row (the kernels compare with the
    members: Numba compiles them as constants)."""

    GIVEN = 0  # the k-th low card of a hand takes row choices[k]
    RANDOM = 1  # a uniformly random row
    FEWEST = 2  # the row with the fewest bullheads, the first one on a tie
    HEURISTIC = 3  # what nimmt.bots.heuristic.HeuristicBot.choose_row picks


class CardPolicy(enum.IntEnum):
    """How a player picks the card it plays from its remaining cards."""

    ORDER = 0  # each player plays orders[p, t] in turn t (random play: a random order)
    HEURISTIC = 1  # what HeuristicBot.choose_card picks
    BEGINNER = 2  # what BeginnerBot.choose_card picks
    # A style of the field, for the expert's model of other players (nimmt.bots.styles): the heuristic's
    # expected cost, near ties to the snuggest fit, no look ahead (like field:risk).
    SNUG = 3
    # A noisy chooser, like a Monte-Carlo player with few completions (field:mc10, field:mc50): card c of
    # the hand with chance proportional to exp(MC_COST * cost(c) + MC_CARD * c / 104), cost(c) as SNUG's.
    MC = 4
    # The learned network's card (nimmt.bots.learned, policy mode): the card its policy head likes best,
    # from the features of _choices.net_features, which the learned bot computes with the same kernel.
    NET = 5
    # The same network's card drawn from its softmax over the hand (Gumbel-max), not its likeliest: a model
    # of players who search, whose card is the network's likeliest only about 64% of the time at 4 players.
    NET_DRAWN = 6


MC_COST = -0.56  # fitted to field:mc50's choices at 4 players (docs/ladder.md, "A model of Monte-Carlo players")
MC_CARD = 1.08
# The heuristic's weights, here only (nimmt.bots.heuristic tells what they weigh; its bot takes them from here).
HEURISTIC_TIE = 0.05  # expected bullheads under which two cards count as equally safe
HEURISTIC_LATER = 1.0  # weight of the hand's later risk when choosing a row
HEURISTIC_LOOK = 0.5  # weight of the rest of the hand's cost on the rows a card leaves (small tables)
HEURISTIC_FEW = 3  # tables of at most this many players look one card ahead

BULL = np.array(BULLHEADS, dtype=np.int64)
# comb(n, k) as floats, exactly the numbers math.comb gives (n, k <= 10).
COMB = np.array([[math.comb(n, k) for k in range(11)] for n in range(11)], dtype=np.float64)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@_jit
def below(state, n):  # type: ignore[no-untyped-def]
    """(new state, a uniform integer in [0, n)) for 1 <= n < 2**32: SplitMix64, Lemire's method
    (the rejection that makes it exact is needed with chance below n / 2**32)."""
    bound = np.uint64(n)
    threshold = np.uint64(0)
    first = True
    while True:
        state = state + _GOLDEN
        z = state
        z = (z ^ (z >> _S30)) * _MIX1
        z = (z ^ (z >> _S27)) * _MIX2
        z = z ^ (z >> _S31)
        m = (z >> _S32) * bound
        low = m & _LOW32
        if low >= bound:
            return state, np.int64(m >> _S32)
        if first:
            threshold = (_TWO32 - bound) % bound
            first = False
        if low >= threshold:
            return state, np.int64(m >> _S32)


@_jit
def deal_hand(deck, dealt, state):  # type: ignore[no-untyped-def]
    """Put a uniformly random ordered sample of ``dealt`` cards at the front of ``deck``.

    ``deck`` is any permutation of the 104 cards; a partial Fisher-Yates shuffle keeps it one.
    The first 4 cards start the rows; then player ``p``'s cards, in playing order, are
    ``deck[4 + 10 p : 14 + 10 p]``.
    """
    size = deck.shape[0]
    for i in range(dealt):
        state, j = below(state, size - i)
        j += i
        card = deck[i]
        deck[i] = deck[j]
        deck[j] = card
    return state


# Card placement: the core's own compact copy (nimmt.core.fast), compiled. ``lay`` takes the
# bullheads of the cards as an argument: the kernels pass BULL (an array indexes fast, a tuple not).
target: Callable[..., Any] = _jit_inline(fast.target)
lay: Callable[..., Any] = _jit_inline(fast.lay)


@_jit_inline
def fewest(heads):  # type: ignore[no-untyped-def]
    best = 0
    for r in range(1, 4):
        if heads[r] < heads[best]:
            best = r
    return best


@_jit_inline
def place_fewest(ends, counts, heads, card):  # type: ignore[no-untyped-def]
    """Place ``card`` as the rules do, a low card taking the row with the fewest bullheads (what the
    heuristic assumes of an opponent); returns the bullheads taken."""
    row = target(ends, card)
    low = row < 0
    if low:
        row = fewest(heads)
    return lay(ends, counts, heads, row, card, low, BULL)


@_jit_inline
def unseen_prefix(public, cnt, hb):  # type: ignore[no-untyped-def]
    """cnt[c] / hb[c]: how many cards below c are not public, and their bullheads (c = 0..105)."""
    cnt[0] = 0
    hb[0] = 0
    cnt[1] = 0
    hb[1] = 0
    count = 0  # running sums kept in registers: no store-to-load chain through the arrays
    heads = 0
    for c in range(1, 105):
        unseen = 0 if public[c] else 1  # no branch
        count += unseen
        heads += unseen * BULL[c]
        cnt[c + 1] = count
        hb[c + 1] = heads


@_jit_inline
def power(x, k):  # type: ignore[no-untyped-def]
    """x ** k as Python computes it (C pow), skipping the call where the result is exact anyway."""
    if k == 0:
        return 1.0
    if k == 1:
        return x
    return math.pow(x, float(k))


# The chances of the heuristic's card estimate (card_cost), each computed once per process: a card's
# chance to be the sixth of its row, COMB[n, k] * p ** k * q ** (n - k) with p = gap / total, and a low
# card's chance to be the only one, (1 - lower / total) ** n, depend only on small whole numbers, and
# C's pow was a fifth of a rollout's time. CHANCES[((n * 11 + k) * 105 + total) * 105 + gap] (k = 10:
# the low card's) is that number once computed, 0.0 before (a chance of 0.0 is computed each time: the
# same number). The very numbers card_cost computed: it computes them, the first time. Zeros, so that
# the pages never used are never made; the kernels take it in Policies (a global would be a constant).
CHANCE_OPPONENTS = 10  # n below this: remembered; above (no table has them), computed each time
CHANCES = np.zeros(CHANCE_OPPONENTS * 11 * 105 * 105)


@_jit_inline
def row_chance(chances, n, k, total, gap, p, q):  # type: ignore[no-untyped-def]
    """COMB[n, k] * p ** k * q ** (n - k), p = gap / total and q = 1 - p as the caller computed them,
    from ``chances`` (:data:`CHANCES`; an empty array: computed every time)."""
    at = -1
    if n < CHANCE_OPPONENTS and chances.shape[0] > 0:
        at = ((n * 11 + k) * 105 + total) * 105 + gap
        known = chances[at]
        if known != 0.0:
            return known
    chance = COMB[n, k] * power(p, k) * power(q, n - k)
    if at >= 0:
        chances[at] = chance
    return chance


@_jit_inline
def alone_chance(chances, n, total, lower):  # type: ignore[no-untyped-def]
    """(1 - lower / total) ** n, from ``chances`` as :func:`row_chance`."""
    at = -1
    if n < CHANCE_OPPONENTS and chances.shape[0] > 0:
        at = ((n * 11 + 10) * 105 + total) * 105 + lower
        known = chances[at]
        if known != 0.0:
            return known
    chance = power(1.0 - lower / total, n)
    if at >= 0:
        chances[at] = chance
    return chance


# The room the heuristic works in (``work``, int64): for a hand of ``size`` places, the running
# bullheads of the sorted cards (size + 1 numbers), the per-row counts of own cards below each row's
# end and their bullheads (4 + 4), then the sorted cards (size), then the rows as a card would leave
# them (ends, counts, heads: 4 + 4 + 4): 2 * size + HEURISTIC_ROOM numbers.
# Offsets into one array rather than slices of it: every array view costs an atomic reference count.
HEURISTIC_ROOM = 21  # 9, then 12 for a copy of the rows (ends, counts, heads) at 2 * size + 9
PREFIX = 106  # unseen_prefix's counts: one per card 0-104, and one past the last
NO_NET = np.zeros(2, np.float32)  # no learned network: its sizes, 0 and 0


class Room(NamedTuple):
    """The scratch space of every kernel, made once per kernel call by :func:`room`: the deck, the rows
    and public cards of the hand in play, its orders and penalties, and what the policies work in."""

    deck: npt.NDArray[np.int64]  # the 104 cards, dealt at its front (deal_hand), or a deal copied there
    orders: npt.NDArray[np.int64]  # the hand in play, (players, turns): orders[p, t] is p's card of turn t
    ends: npt.NDArray[np.int64]  # the rows' last cards (4)
    counts: npt.NDArray[np.int64]  # their lengths (4)
    heads: npt.NDArray[np.int64]  # their bullheads (4)
    public: npt.NDArray[np.bool_]  # the cards everybody has seen (105)
    fixed: npt.NDArray[np.bool_]  # no player's first card is fixed (players, all False)
    penalties: npt.NDArray[np.int64]  # each player's bullheads of the hand in play (players)
    choices: npt.NDArray[np.int64]  # no row given (1 zero): for the loops whose rows no caller gives

    owner: npt.NDArray[np.int64]  # random play's hot loop: the player of each card this turn (105)
    keys: npt.NDArray[np.int64]  # this turn's cards, card * 16 + player, lowest first (players)
    picks: npt.NDArray[np.int64]  # each player's chosen card, as an index into its remaining cards (players)
    cnt: npt.NDArray[np.int64]  # unseen_prefix's counts (PREFIX)
    hb: npt.NDArray[np.int64]  # and bullheads (PREFIX)
    work: npt.NDArray[np.int64]  # the heuristic's room (2 * turns + HEURISTIC_ROOM)
    costs: npt.NDArray[np.float64]  # a cost (or logit) per card of a hand (turns)
    targets: npt.NDArray[np.int64]  # a row per card of a hand (turns)
    feats: npt.NDArray[np.float32]  # the network's features, (turns, features)
    x: npt.NDArray[np.float32]  # the same, standardised
    h1: npt.NDArray[np.float32]  # its hidden layers, (turns, hidden units)
    h2: npt.NDArray[np.float32]
    still: npt.NDArray[np.int64]  # the cards of a turn still to be placed after a low card (players)


@_jit
def room(players, turns, net):  # type: ignore[no-untyped-def]
    """A :class:`Room` for hands of ``players`` and up to ``turns`` turns (``net``: the learned network's
    weights, as in :class:`nimmt.batch.Policies`, for the sizes of its layers)."""
    features = max(1, int(net[0]))
    hidden = max(1, int(net[1]))
    return Room(
        np.arange(1, 105).astype(np.int64), np.zeros((players, turns), np.int64), np.empty(4, np.int64),
        np.empty(4, np.int64), np.empty(4, np.int64), np.zeros(105, np.bool_), np.zeros(players, np.bool_),
        np.zeros(players, np.int64), np.zeros(1, np.int64), np.empty(105, np.int64), np.empty(players, np.int64),
        np.empty(players, np.int64), np.empty(PREFIX, np.int64), np.empty(PREFIX, np.int64),
        np.empty(2 * turns + HEURISTIC_ROOM, np.int64), np.empty(turns), np.empty(turns, np.int64),
        np.empty((turns, features), np.float32), np.empty((turns, features), np.float32),
        np.empty((turns, hidden), np.float32), np.empty((turns, hidden), np.float32), np.empty(players, np.int64),
    )


@_jit_inline
def bare_room(scratch):  # type: ignore[no-untyped-def]
    """``scratch`` (a :class:`Room`) with every array :func:`bare`."""
    return Room(
        bare(scratch.deck), bare(scratch.orders), bare(scratch.ends), bare(scratch.counts), bare(scratch.heads),
        bare(scratch.public), bare(scratch.fixed), bare(scratch.penalties), bare(scratch.choices), bare(scratch.owner),
        bare(scratch.keys), bare(scratch.picks), bare(scratch.cnt), bare(scratch.hb), bare(scratch.work),
        bare(scratch.costs), bare(scratch.targets), bare(scratch.feats), bare(scratch.x), bare(scratch.h1),
        bare(scratch.h2), bare(scratch.still),
    )


class Tally(NamedTuple):
    """What whole games give, one entry per game: final ``totals`` (games, players), ``played`` rounds
    (games), and ``squares`` (games, players): the sum over a game's rounds of the square of each
    player's penalty in the round (for confidence intervals)."""

    totals: npt.NDArray[np.int64]
    played: npt.NDArray[np.int64]
    squares: npt.NDArray[np.int64]


def tally(games: int, players: int) -> Tally:
    return Tally(np.zeros((games, players), np.int64), np.zeros(games, np.int64), np.zeros((games, players), np.int64))


@_jit_inline
def _add_round(tally, g, penalties, done, end_above, rounds):  # type: ignore[no-untyped-def]
    """Count a round of game g; is the game over after these ``done`` rounds (``rounds`` played when
    rounds > 0, else a total above ``end_above``)?"""
    totals = tally.totals[g]
    squares = tally.squares[g]
    top = 0
    for p in range(penalties.shape[0]):
        totals[p] += penalties[p]
        squares[p] += penalties[p] * penalties[p]
        top = max(top, totals[p])
    if rounds > 0:
        return done >= rounds
    return top > end_above


@_jit_inline
def whole_games(play, how, scratch, players, count, end_above, rounds, seed, tally):  # type: ignore[no-untyped-def]
    """The one loop of whole games: deal and play rounds of ``count`` games into the :class:`Tally`
    until a total is above ``end_above`` (or exactly ``rounds`` rounds when rounds > 0), each hand
    played by ``play(deck, ends, counts, heads, owner, players, turns, how, choices, penalties,
    scratch, state)`` from the :class:`Room` ``scratch``. Numba compiles this loop once for each hand
    player passed (a dispatcher is a type of its own): the call is chosen when compiling, not in each
    hand. Returns the random state."""
    deck, ends, counts, heads, owner = scratch.deck, scratch.ends, scratch.counts, scratch.heads, scratch.owner
    penalties, choices = scratch.penalties, scratch.choices
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, 4 + 10 * players, state)
            penalties[:] = 0
            state = play(deck, ends, counts, heads, owner, players, 10, how, choices, penalties, scratch, state)
            done += 1
            if _add_round(tally, g, penalties, done, end_above, rounds):
                break
        tally.played[g] = done
    return state

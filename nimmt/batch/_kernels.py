"""Scalar kernels: one hand at a time, written in the subset of Python that Numba compiles.

With Numba installed every function here is compiled once (``cache=True``: the machine code is kept
in ``__pycache__``) and the batch loops run at native speed. Without Numba they stay plain Python:
the NumPy path then uses them only for the heuristic policies, whose choices depend on each hand.

Two hand players share the work. :func:`play_plain` is the hot loop of random play (cards in a
given order; rows given, random or by fewest bullheads): rows packed into four 64-bit numbers,
see its docstring. :func:`play_hand` plays any policy, the heuristic ones included, from any
position: there the rows are three small arrays indexed by row 0-3, ``ends`` (last card),
``counts`` (cards in the row) and ``heads`` (bullheads in the row), which is all that scoring and
the heuristic bot look at, and orders are ``(players, turns)`` arrays of cards, ``orders[p, t]``
being the card player ``p`` plays in turn ``t``; a 0 means "no card" (a player whose card of the
first turn was already placed when a rollout starts).

Random numbers come from SplitMix64 with Lemire's exact bounded draw; the state is one ``uint64``
passed in and returned. The heuristic kernels repeat :mod:`nimmt.bots.heuristic` float operation
for float operation, so that they choose exactly what the bot chooses (the tests check it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from nimmt.core import BULLHEADS

try:  # Numba is an optional extra (``nimmt[sim]``); everything works without it.
    import numba  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from numba.cpython.unsafe.numbers import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        trailing_zeros as _trailing_zeros,
    )
except ImportError:  # pragma: no cover - exercised by the test that hides numba
    numba = None  # type: ignore[assignment,unused-ignore]

    def _trailing_zeros(bits: Any) -> int:  # type: ignore[misc,unused-ignore]
        return (int(bits) & -int(bits)).bit_length() - 1


trailing_zeros: Callable[..., Any] = _trailing_zeros

HAVE_NUMBA = numba is not None


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


# Row policies (what a player does with a card below every row) and card policies.
ROW_GIVEN = 0  # the k-th low card of a hand takes row choices[k]
ROW_RANDOM = 1  # a uniformly random row
ROW_FEWEST = 2  # the row with the fewest bullheads, the first one on a tie
ROW_HEURISTIC = 3  # what nimmt.bots.heuristic.HeuristicBot.choose_row picks
CARD_ORDER = 0  # each player plays orders[p, t] in turn t (random play: a random order)
CARD_HEURISTIC = 1  # each player plays what HeuristicBot.choose_card picks from its remaining cards
CARD_BEGINNER = 2  # each player plays what BeginnerBot.choose_card picks from its remaining cards
# A style of the field, for the expert's model of other players (nimmt.bots.styles):
CARD_SNUG = 3  # the heuristic's expected cost, near ties to the snuggest fit, no look ahead (like field:risk)
# A noisy chooser, like a Monte-Carlo player with few completions (field:mc10, field:mc50): card c of the
# hand with chance proportional to exp(MC_COST * cost(c) + MC_CARD * c / 104), cost(c) as CARD_SNUG's.
CARD_MC = 4
# The learned network's card (nimmt.bots.learned, policy mode): the card its policy head likes best, from
# the same features as nimmt.bots.learned.card_features, computed here (the tests hold them equal).
CARD_NET = 5
MC_COST = -0.56  # fitted to field:mc50's choices at 4 players (docs/ladder.md, "A model of Monte-Carlo players")
MC_CARD = 1.08
# HeuristicBot.LOOK and HeuristicBot.FEW (tests/batch/test_exact.py holds them equal): at tables of at
# most HEURISTIC_FEW players the heuristic weighs what a card leaves for the rest of its hand.
HEURISTIC_LOOK = 0.5
HEURISTIC_FEW = 3

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


@_jit_inline
def target(ends, card):  # type: ignore[no-untyped-def]
    """The row ``card`` goes to (the highest last card below it), or -1: below every row."""
    best = -1
    best_end = 0
    for r in range(4):
        end = ends[r]
        if best_end < end < card:
            best = r
            best_end = end
    return best


@_jit_inline
def fewest(heads):  # type: ignore[no-untyped-def]
    best = 0
    for r in range(1, 4):
        if heads[r] < heads[best]:
            best = r
    return best


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
        if not public[c]:
            count += 1
            heads += BULL[c]
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


# The room the heuristic works in (``work``, int64): for a hand of ``size`` places, the running
# bullheads of the sorted cards at ``PREFIX`` (size + 1 numbers), the per-row counts of own cards
# below each row's end and their bullheads (4 + 4), then the sorted cards (size). Offsets into one
# array rather than slices of it: every array view costs an atomic reference count.


@_jit_inline
def own_rows(ends, work, mine, held, below):  # type: ignore[no-untyped-def]
    """For each row r: how many of the player's ``held`` cards (sorted, at ``work[mine:]``) lie at or
    below its last card, at ``work[below + r]``, and their bullheads, at ``work[below + 4 + r]``."""
    for r in range(4):
        end = ends[r]
        count = 0
        heads = 0
        for i in range(held):  # sorted: the cards below the row's end come first
            c = work[mine + i]
            if c > end:  # the end itself counts: it is the player's own card when it looks ahead
                break
            count += 1
            heads += BULL[c]
        work[below + r] = count
        work[below + 4 + r] = heads


@_jit_inline
def card_cost(ends, counts, heads, card, rank, held, work, below, cnt, hb, opponents):  # type: ignore[no-untyped-def]
    """:func:`nimmt.bots.heuristic.card_cost`, the same float operations in the same order.

    The player's unseen cards are the cards not public and not its own: it holds ``held`` cards,
    ``rank`` of them below ``card``, the first i of them (sorted) worth ``work[i]`` bullheads;
    ``work[below:below + 8]`` come from :func:`own_rows`. ``cnt``/``hb`` from :func:`unseen_prefix`.
    """
    total = cnt[105] - held
    row = target(ends, card)
    if row < 0:
        cheapest = heads[0]
        for r in range(1, 4):
            if heads[r] < cheapest:
                cheapest = heads[r]
        if total == 0:
            return float(cheapest)
        lower = cnt[card] - rank
        alone = power(1.0 - lower / total, opponents)
        return alone * cheapest
    end = ends[row]
    length = counts[row]
    row_heads = heads[row]
    gap = cnt[card] - cnt[end + 1] - (rank - work[below + row])
    if gap == 0 or total == 0:
        return float(row_heads) if length >= 5 else 0.0
    mean_gap = (hb[card] - hb[end + 1] - (work[rank] - work[below + 4 + row])) / gap
    p = min(1.0, gap / total)
    q = 1.0 - p
    expected = 0.0
    for k in range(opponents + 1):
        if (length - 1 + k) % 5 + 1 != 5:
            continue
        chance = COMB[opponents, k] * power(p, k) * power(q, opponents - k)
        if chance == 0.0:
            continue
        if length + k <= 5:
            expected += chance * (row_heads + k * mean_gap)
        else:
            expected += chance * 5 * mean_gap
    return expected


@_jit_inline
def own_cards(hand, work, mine):  # type: ignore[no-untyped-def]
    """Sort the cards of ``hand`` (0 = none) into ``work[mine:]``, their running bullheads into
    ``work[0:]`` (``work[i]``: the first i cards); returns how many cards there are."""
    held = 0
    for c in hand:
        if c > 0:
            i = held
            while i > 0 and work[mine + i - 1] > c:
                work[mine + i] = work[mine + i - 1]
                i -= 1
            work[mine + i] = c
            held += 1
    work[0] = 0
    for i in range(held):
        work[i + 1] = work[i] + BULL[work[mine + i]]
    return held


@_jit_inline
def place_own(e2, c2, h2, ends, counts, heads, card):  # type: ignore[no-untyped-def]
    """The rows ``ends``/``counts``/``heads`` copied to ``e2``/``c2``/``h2`` with ``card`` placed as the
    rules do (below every row: it takes the row with the fewest bullheads)."""
    for r in range(4):
        e2[r] = ends[r]
        c2[r] = counts[r]
        h2[r] = heads[r]
    r = target(e2, card)
    if r < 0:
        r = fewest(h2)
        c2[r] = 1
        h2[r] = BULL[card]
    elif c2[r] >= 5:
        c2[r] = 1
        h2[r] = BULL[card]
    else:
        c2[r] += 1
        h2[r] += BULL[card]
    e2[r] = card


@_jit_inline
def heuristic_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs):  # type: ignore[no-untyped-def]
    """Index in ``hand`` (0 = no card) of the card HeuristicBot.choose_card plays (see
    :func:`nimmt.bots.heuristic.choose`): the lowest expected cost, at tables of at most
    ``HEURISTIC_FEW`` players plus ``HEURISTIC_LOOK`` times the mean cost of the rest of the hand on
    the rows the card leaves; on a near tie (within ``tie``) the highest card, or at those small
    tables the snuggest fit. ``work``: 19 + 2 * len(hand) numbers of room, ``costs``: len(hand)."""
    few = opponents + 1 <= HEURISTIC_FEW
    return heuristic_pick(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, few, few)


@_jit_inline
def heuristic_pick(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, look, snug):  # type: ignore[no-untyped-def]
    """:func:`heuristic_card` with its two choices given: ``look`` (weigh the rest of the hand on the
    rows the card leaves) and ``snug`` (near ties to the snuggest fit, not the highest card)."""
    size = hand.shape[0]
    below = size + 1
    mine = size + 9
    held = own_cards(hand, work, mine)
    own_rows(ends, work, mine, held, below)
    for i in range(held):
        costs[i] = card_cost(ends, counts, heads, work[mine + i], i, held, work, below, cnt, hb, opponents)
    if look and held > 1:
        # Heads-up, a later card of the hand meets about half the opponent's remaining cards.
        ahead = opponents * max(1, held // 2) if opponents == 1 else opponents
        e2 = np.empty(4, np.int64)
        c2 = np.empty(4, np.int64)
        h2 = np.empty(4, np.int64)
        for i in range(held):
            place_own(e2, c2, h2, ends, counts, heads, work[mine + i])
            own_rows(e2, work, mine, held, below)
            total = 0.0
            for j in range(held):
                if j != i:
                    total += card_cost(e2, c2, h2, work[mine + j], j, held, work, below, cnt, hb, ahead)
            costs[i] = costs[i] + HEURISTIC_LOOK * (total / (held - 1))
    best = np.inf
    for i in range(held):
        best = min(best, costs[i])
    card = 0
    if snug:
        # The shortest row, then the smallest gap, then the lowest card; below every row comes last.
        best_length = 7
        best_gap = 0
        for i in range(held):
            if costs[i] <= best + tie:
                c = work[mine + i]
                r = target(ends, c)
                length = 6 if r < 0 else counts[r]
                gap = 0 if r < 0 else c - ends[r]
                if length < best_length or (length == best_length and gap < best_gap):
                    best_length = length
                    best_gap = gap
                    card = c
    else:
        for i in range(held - 1, -1, -1):
            if costs[i] <= best + tie:
                card = work[mine + i]
                break
    for i in range(hand.shape[0]):
        if hand[i] == card:
            return i
    return -1


@_jit_inline
def mc_card(ends, counts, heads, hand, cnt, hb, opponents, work, costs, state):  # type: ignore[no-untyped-def]
    """(new state, index in ``hand`` of the card CARD_MC plays): a Gumbel-max draw, so card c comes
    with chance exp(u(c)) / sum of exp(u), u(c) = MC_COST * cost(c) + MC_CARD * c / 104, the costs of
    :func:`card_cost` (no look ahead). Room as :func:`heuristic_pick`."""
    size = hand.shape[0]
    below_at = size + 1
    mine = size + 9
    held = own_cards(hand, work, mine)
    own_rows(ends, work, mine, held, below_at)
    best = -np.inf
    card = 0
    for i in range(held):
        c = work[mine + i]
        cost = card_cost(ends, counts, heads, c, i, held, work, below_at, cnt, hb, opponents)
        state, k = below(state, 1 << 30)
        u = (k + 0.5) / float(1 << 30)
        score = MC_COST * cost + MC_CARD * c / 104.0 - math.log(-math.log(u))
        if score > best:
            best = score
            card = c
    for i in range(hand.shape[0]):
        if hand[i] == card:
            return state, i
    return state, -1


# The learned network (nimmt.bots.learned) as a card policy. Its weights come as one flat float32
# array: F and H (features, hidden units), then shift (F), scale (F), w1 (F x H), b1 (H), w2 (H x H),
# b2 (H), w3 (H x 2), b3 (2); nimmt.bots.learned.Net.flat writes it. TAKE_ROW as there.
NET_TAKE_ROW = 20.0
NET_CARD_FEATURES = 22


@_jit_inline
def at_least(n, p, k):  # type: ignore[no-untyped-def]
    """P(X >= k) for X ~ Binomial(n, p): nimmt.bots.learned._at_least, the same float operations."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    q = 1.0 - p
    total = 0.0
    for i in range(k, n + 1):
        total += COMB[n, i] * power(p, i) * power(q, n - i)
    return total


@_jit_inline
def own_below(work, mine, held, card):  # type: ignore[no-untyped-def]
    """How many of the player's cards (sorted, at ``work[mine:]``) are below ``card``."""
    count = 0
    for i in range(held):
        if work[mine + i] >= card:
            break
        count += 1
    return count


@_jit_inline
def net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats):  # type: ignore[no-untyped-def]
    """Fill ``feats[i]`` with nimmt.bots.learned.card_features of the i-th lowest card of ``hand`` (0 =
    no card), float operation for float operation; returns how many cards there are. Room as
    :func:`heuristic_pick`; ``targets``: len(hand) numbers."""
    size = hand.shape[0]
    below_at = size + 1
    mine = size + 9
    usual = hand[heuristic_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs)]
    held = own_cards(hand, work, mine)
    own_rows(ends, work, mine, held, below_at)
    n = held
    u = cnt[105] - held
    cheapest = heads[0]
    lowest_end = ends[0]
    for r in range(1, 4):
        cheapest = min(cheapest, heads[r])
        lowest_end = min(lowest_end, ends[r])
    best_cost = np.inf
    total_cost = 0.0
    lows = 0
    for i in range(n):
        c = work[mine + i]
        costs[i] = card_cost(ends, counts, heads, c, i, held, work, below_at, cnt, hb, opponents)
        targets[i] = target(ends, c)
        best_cost = min(best_cost, costs[i])
        total_cost += costs[i]
        if targets[i] < 0:
            lows += 1
    # The table part, the same for every card: the rows sorted by their last card.
    t = NET_CARD_FEATURES
    feats[0, t] = (opponents + 1) / 10
    feats[0, t + 1] = n / 10
    feats[0, t + 2] = u / 100
    done = 0
    for k in range(4):
        row = -1
        for r in range(4):
            if not (done >> r) & 1 and (row < 0 or ends[r] < ends[row]):
                row = r
        done |= 1 << row
        feats[0, t + 3 + 3 * k] = ends[row] / 104
        feats[0, t + 4 + 3 * k] = counts[row] / 5
        feats[0, t + 5 + 3 * k] = heads[row] / NET_TAKE_ROW
    feats[0, t + 15] = cheapest / NET_TAKE_ROW
    feats[0, t + 16] = total_cost / n / 10
    feats[0, t + 17] = best_cost / 10
    feats[0, t + 18] = lows / n
    e2 = np.empty(4, np.int64)
    c2 = np.empty(4, np.int64)
    h2 = np.empty(4, np.int64)
    for i in range(n):
        c = work[mine + i]
        later_mean = 0.0
        later_sum = 0.0
        if n > 1:
            place_own(e2, c2, h2, ends, counts, heads, c)
            own_rows(e2, work, mine, held, below_at)
            for j in range(n):
                if j != i:
                    later_sum += card_cost(e2, c2, h2, work[mine + j], j, held, work, below_at, cnt, hb, opponents)
            later_mean = later_sum / (n - 1)
        lower = cnt[c] - i
        row = targets[i]
        same = 0
        if row < 0:
            share = lower / u if u else 0.0
            length = 0.0
            row_heads = cheapest / NET_TAKE_ROW
            danger = 1.0 - power(1.0 - share, opponents)
            distance = (lowest_end - c) / 104
            own_gap = i / 5
            for j in range(i + 1, n):
                if targets[j] < 0:
                    same += 1
            low = 1.0
        else:
            end = ends[row]
            under = own_below(work, mine, held, end)
            gap = lower - (cnt[end] - under)
            share = gap / u if u else 0.0
            length = counts[row] / 5
            row_heads = heads[row] / NET_TAKE_ROW
            danger = at_least(opponents, share, 5 - counts[row])
            distance = (c - end) / 104
            own_gap = (i - under) / 5
            for j in range(i + 1, n):
                if targets[j] == row:
                    same += 1
            low = 0.0
        top = 105
        for r in range(4):
            if c < ends[r] < top:
                top = ends[r]
        room = (cnt[top] - own_below(work, mine, held, top) if top < 105 else u) - (cnt[c + 1] - (i + 1))
        feats[i, 0] = c / 104
        feats[i, 1] = BULL[c] / 7
        feats[i, 2] = low
        feats[i, 3] = costs[i] / 10
        feats[i, 4] = later_mean / 10
        feats[i, 5] = later_sum / 20
        feats[i, 6] = length
        feats[i, 7] = row_heads
        feats[i, 8] = share
        feats[i, 9] = min(opponents * share, 10.0) / 5
        feats[i, 10] = danger
        feats[i, 11] = distance
        feats[i, 12] = own_gap
        feats[i, 13] = same / 5
        feats[i, 14] = i / max(1, n - 1)
        feats[i, 15] = room / max(1, u)
        feats[i, 16] = (costs[i] - best_cost) / 10
        feats[i, 17] = 1.0 if costs[i] == best_cost else 0.0
        feats[i, 18] = (costs[i] + 0.5 * later_mean - best_cost) / 10
        feats[i, 19] = (n - 1 - i) / 10
        feats[i, 20] = lower / max(1, u)
        feats[i, 21] = 1.0 if c == usual else 0.0
        if i > 0:
            for k in range(t, feats.shape[1]):
                feats[i, k] = feats[0, k]
    return n


@_jit_inline
def net_logits(feats, n, net, out, x, h1, h2):  # type: ignore[no-untyped-def]
    """``out[i]``: the network's policy logit for the card of ``feats[i]``, i < n (float32, as
    NumPy computes it up to the order of the sums). ``x``: room of ``feats``' shape, ``h1``, ``h2``:
    (len(feats), H) float32. Layer by layer over the whole hand: the inner loops run over contiguous
    weights, which the compiler turns into vector instructions."""
    f = int(net[0])
    h = int(net[1])
    at = 2
    shift = net[at : at + f]
    at += f
    scale = net[at : at + f]
    at += f
    w1 = net[at : at + f * h].reshape((f, h))
    at += f * h
    b1 = net[at : at + h]
    at += h
    w2 = net[at : at + h * h].reshape((h, h))
    at += h * h
    b2 = net[at : at + h]
    at += h
    w3 = net[at : at + 2 * h].reshape((h, 2))
    at += 2 * h
    b3 = net[at + 1]
    zero = np.float32(0.0)
    for i in range(n):
        for k in range(f):
            x[i, k] = (feats[i, k] - shift[k]) * scale[k]
        for j in range(h):
            h1[i, j] = b1[j]
        for k in range(f):
            a = x[i, k]
            for j in range(h):
                h1[i, j] += a * w1[k, j]
        for j in range(h):
            h2[i, j] = b2[j]
        for k in range(h):
            a = max(h1[i, k], zero)
            for j in range(h):
                h2[i, j] += a * w2[k, j]
        logit = b3
        for j in range(h):
            logit += max(h2[i, j], zero) * w3[j, 1]
        out[i] = logit


@_jit_inline
def net_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, net, feats, x, h1, h2):  # type: ignore[no-untyped-def]
    """Index in ``hand`` (0 = no card) of the card LearnedBot (policy mode) plays: the highest logit,
    the lowest card on a tie. ``feats``, ``x``: (len(hand), F) float32; ``h1``, ``h2``: (len(hand), H)
    float32; ``costs`` has room for the logits."""
    n = net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats)
    mine = hand.shape[0] + 9
    pick = 0
    if n > 1:
        net_logits(feats, n, net, costs, x, h1, h2)
        best = -np.inf
        for i in range(n):
            if costs[i] > best:
                best = costs[i]
                pick = i
    card = work[mine + pick]
    for i in range(hand.shape[0]):
        if hand[i] == card:
            return i
    return -1


@_jit
def net_choice(ends, counts, heads, hand, public, players, tie, net, feats):  # type: ignore[no-untyped-def]
    """:func:`net_card` from a position (``public``: 105 flags, as :func:`play_hand` keeps them),
    with the features in ``feats`` (len(hand), F): for the tests that hold it to the Python network."""
    size = hand.shape[0]
    cnt = np.empty(106, np.int64)
    hb = np.empty(106, np.int64)
    unseen_prefix(public, cnt, hb)
    work = np.empty(2 * size + 19, np.int64)
    costs = np.empty(size)
    targets = np.empty(size, np.int64)
    x = np.empty_like(feats)
    h1 = np.empty((size, int(net[1])), np.float32)
    h2 = np.empty((size, int(net[1])), np.float32)
    return net_card(ends, counts, heads, hand, cnt, hb, players - 1, tie, work, costs, targets, net, feats, x, h1, h2)


@_jit_inline
def heuristic_row(ends, counts, heads, card, still, hand, cnt, hb, opponents, later_weight, work):  # type: ignore[no-untyped-def]
    """The row HeuristicBot.choose_row takes for ``card``: bullheads now plus ``later_weight``
    times the mean cost of its remaining ``hand`` on the rows left after the cards ``still`` to
    resolve this turn (an opponent's low card takes the cheapest row). ``cnt``/``hb`` count the
    cards not public once this turn's cards are revealed. ``work``: room as for heuristic_card."""
    e2 = np.empty(4, np.int64)
    c2 = np.empty(4, np.int64)
    h2 = np.empty(4, np.int64)
    size = hand.shape[0]
    below = size + 1
    mine = size + 9
    held = own_cards(hand, work, mine)
    best_score = np.inf
    best_now = 0
    best_row = 0
    for row in range(4):
        for r in range(4):
            e2[r] = ends[r]
            c2[r] = counts[r]
            h2[r] = heads[r]
        now = heads[row]
        e2[row] = card
        c2[row] = 1
        h2[row] = BULL[card]
        for c in still:
            r = target(e2, c)
            if r < 0:
                r = fewest(h2)
                c2[r] = 1
                h2[r] = BULL[c]
            elif c2[r] >= 5:
                c2[r] = 1
                h2[r] = BULL[c]
            else:
                c2[r] += 1
                h2[r] += BULL[c]
            e2[r] = c
        later = 0.0
        if held > 0:
            own_rows(e2, work, mine, held, below)
            total = 0.0
            for i in range(held):
                total += card_cost(e2, c2, h2, work[mine + i], i, held, work, below, cnt, hb, opponents)
            later = total / held
        score = now + later_weight * later
        if score < best_score or (score == best_score and now < best_now):
            best_score = score
            best_now = now
            best_row = row
    return best_row


@_jit_inline
def beginner_card(ends, counts, hand):  # type: ignore[no-untyped-def]
    """Index in ``hand`` (0 = no card) of the card BeginnerBot.choose_card plays: the card closest
    above a row's last card that is not the row's sixth (the lowest such card on a tie of gaps),
    else the lowest card."""
    best = -1
    best_gap = 105
    lowest = -1
    for i in range(hand.shape[0]):
        c = hand[i]
        if c <= 0:
            continue
        if lowest < 0 or c < hand[lowest]:
            lowest = i
        r = target(ends, c)
        if r < 0 or counts[r] >= 5:
            continue
        gap = c - ends[r]
        if gap < best_gap or (gap == best_gap and c < hand[best]):
            best = i
            best_gap = gap
    return best if best >= 0 else lowest


@_jit
def play_hand(ends, counts, heads, orders, fixed, public, choices, row_pols, card_pols,  # type: ignore[no-untyped-def]
              tie, later_weight, penalties, scratch, state, net):
    """Play ``orders`` (players, turns) from the rows ``ends``/``counts``/``heads`` (changed in place)
    and add each player's bullheads to ``penalties``. Returns the random state.

    ``row_pols[p]`` / ``card_pols[p]``: player p's row and card policy (seats may differ).

    ``fixed[p]``: player p's card of the first turn is given even under CARD_HEURISTIC (a rollout's
    candidate card, or cards already revealed). ``public`` (105 flags) marks the cards everybody has
    seen; it is kept up to date only when a heuristic policy needs it. ``choices`` holds the rows of
    the low cards, in order, for ROW_GIVEN. ``scratch``: room for 212 + 2 * players numbers. ``net``:
    the learned network's weights for CARD_NET (see :func:`net_logits`; any float32 array otherwise).
    """
    players = orders.shape[0]
    turns = orders.shape[1]
    keys = scratch[0:players]
    picks = scratch[players : 2 * players]
    cnt = scratch[2 * players : 2 * players + 106]
    hb = scratch[2 * players + 106 : 2 * players + 212]
    heuristic = False
    choosing = False
    card_heuristic = False
    learned = False
    for p in range(players):
        if card_pols[p] == 1 or card_pols[p] == 3 or card_pols[p] == 4 or card_pols[p] == 5 or row_pols[p] == 3:
            heuristic = True
        if card_pols[p] == 1 or card_pols[p] == 3 or card_pols[p] == 4 or card_pols[p] == 5:
            card_heuristic = True
        if card_pols[p] == 5:
            learned = True
        if card_pols[p] != 0:
            choosing = True
    work = np.empty(2 * turns + 19 if heuristic else 1, np.int64)
    costs = np.empty(turns if heuristic else 1)
    targets = np.empty(turns if learned else 1, np.int64)
    feats = np.empty((turns if learned else 1, int(net[0]) if learned else 1), np.float32)
    x = np.empty_like(feats)
    h1 = np.empty((turns if learned else 1, int(net[1]) if learned else 1), np.float32)
    h2 = np.empty_like(h1)
    opponents = players - 1
    event = 0
    for t in range(turns):
        if choosing:
            if card_heuristic:
                unseen_prefix(public, cnt, hb)
            for p in range(players):
                picks[p] = -1
                if (t > 0 or not fixed[p]) and orders[p, t] > 0:
                    if card_pols[p] == 1:
                        picks[p] = heuristic_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie,
                                                  work, costs)
                    elif card_pols[p] == 2:
                        picks[p] = beginner_card(ends, counts, orders[p, t:])
                    elif card_pols[p] == 3:
                        picks[p] = heuristic_pick(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie,
                                                  work, costs, False, True)
                    elif card_pols[p] == 4:
                        state, picks[p] = mc_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, work,
                                                  costs, state)
                    elif card_pols[p] == 5:
                        picks[p] = net_card(ends, counts, heads, orders[p, t:], cnt, hb, opponents, tie, work,
                                            costs, targets, net, feats, x, h1, h2)
            # Everybody chooses from the same rows, then the chosen cards move to turn t.
            for p in range(players):
                if picks[p] > 0:  # the card chosen moves to turn t
                    i = t + picks[p]
                    c = orders[p, i]
                    orders[p, i] = orders[p, t]
                    orders[p, t] = c
        n = 0
        for p in range(players):
            c = orders[p, t]
            if c > 0:
                key = c * 16 + p
                i = n
                while i > 0 and keys[i - 1] > key:
                    keys[i] = keys[i - 1]
                    i -= 1
                keys[i] = key
                n += 1
                if heuristic:
                    public[c] = True
        fresh = False
        for i in range(n):
            key = keys[i]
            card = key >> 4
            p = key & 15
            r = target(ends, card)
            if r >= 0:
                if counts[r] == 5:
                    penalties[p] += heads[r]
                    counts[r] = 1
                    heads[r] = BULL[card]
                else:
                    counts[r] += 1
                    heads[r] += BULL[card]
                ends[r] = card
                continue
            rp = row_pols[p]
            if rp == 0:
                r = choices[event]
            elif rp == 1:
                state, r = below(state, 4)
            elif rp == 2:
                r = fewest(heads)
            else:
                if not fresh:
                    unseen_prefix(public, cnt, hb)
                    fresh = True
                still = np.empty(n - i - 1, np.int64)
                for j in range(i + 1, n):
                    still[j - i - 1] = keys[j] >> 4
                r = heuristic_row(ends, counts, heads, card, still, orders[p, t + 1 :], cnt, hb, opponents,
                                  later_weight, work)
            event += 1
            penalties[p] += heads[r]
            counts[r] = 1
            heads[r] = BULL[card]
            ends[r] = card
    return state


@_jit
def play_plain(rows, turns, choices, row_policy, penalties, owner, state):  # type: ignore[no-untyped-def]
    """The hot loop of random play: each player plays the given cards; a low card's row comes from
    ``choices`` (ROW_GIVEN), the random source (ROW_RANDOM) or the fewest bullheads (ROW_FEWEST).

    ``rows``: the 4 starting cards; ``turns`` (turns, players): the cards of each turn. Adds each
    player's bullheads to ``penalties`` and returns the random state; ``owner`` is scratch (105).

    Each row is one number, ``end << 16 | row << 12 | bullheads << 4 | count``, and the four are
    kept sorted by their last card in ``v0 < v1 < v2 < v3``: the row a card goes to is then the
    count of rows below it, and placing a card there keeps the order (only a low card, which
    starts its row again below all others, moves a row to the front). Everything stays in
    registers and the common case has no branch to mispredict. Each turn's cards are put in
    order by setting their bits in two 64-bit words and reading them back lowest first.
    """
    turn_count = turns.shape[0]
    players = turns.shape[1]
    a0 = np.int64(rows[0])
    a1 = np.int64(rows[1])
    a2 = np.int64(rows[2])
    a3 = np.int64(rows[3])
    w0 = (a0 << 16) | (BULL[a0] << 4) | 1
    w1 = (a1 << 16) | (1 << 12) | (BULL[a1] << 4) | 1
    w2 = (a2 << 16) | (2 << 12) | (BULL[a2] << 4) | 1
    w3 = (a3 << 16) | (3 << 12) | (BULL[a3] << 4) | 1
    # A sorting network for four.
    lo = min(w0, w1)
    w1 = max(w0, w1)
    w0 = lo
    lo = min(w2, w3)
    w3 = max(w2, w3)
    w2 = lo
    lo = min(w0, w2)
    w2 = max(w0, w2)
    w0 = lo
    lo = min(w1, w3)
    w3 = max(w1, w3)
    w1 = lo
    v0 = w0
    v1 = min(w1, w2)
    v2 = max(w1, w2)
    v3 = w3
    event = 0
    one = np.uint64(1)
    zero = np.uint64(0)
    for t in range(turn_count):
        cards = turns[t]
        low_bits = zero
        high_bits = zero
        for p in range(players):
            c = np.int64(cards[p])
            owner[c] = p
            bit = one << np.uint64(c & 63)
            if c >= 64:
                high_bits |= bit
            else:
                low_bits |= bit
        for word in range(2):
            bits = low_bits if word == 0 else high_bits
            base = 0 if word == 0 else 64
            while bits != zero:
                card = base + np.int64(trailing_zeros(bits))
                bits &= bits - one
                p = owner[card]
                key = card << 16
                slot = int(v0 < key) + int(v1 < key) + int(v2 < key) + int(v3 < key)
                b = BULL[card]
                if slot > 0:
                    m0 = -np.int64(slot == 1)
                    m1 = -np.int64(slot == 2)
                    m2 = -np.int64(slot == 3)
                    m3 = -np.int64(slot == 4)
                    w = (v0 & m0) | (v1 & m1) | (v2 & m2) | (v3 & m3)
                    count = w & 15
                    h = (w >> 4) & 255
                    full = -np.int64(count == 5)  # all ones when this card is the sixth
                    penalties[p] += h & full
                    new = key | (w & 0x3000) | (((h & ~full) + b) << 4) | ((count + 1) & ~full) | (1 & full)
                    v0 = (new & m0) | (v0 & ~m0)
                    v1 = (new & m1) | (v1 & ~m1)
                    v2 = (new & m2) | (v2 & ~m2)
                    v3 = (new & m3) | (v3 & ~m3)
                    continue
                if row_policy == 0:
                    r = np.int64(choices[event])
                elif row_policy == 1:
                    state, r = below(state, 4)
                else:  # fewest bullheads, the lowest row number on a tie
                    f0 = (v0 & 0xFF0) | ((v0 >> 12) & 3)
                    f1 = (v1 & 0xFF0) | ((v1 >> 12) & 3)
                    f2 = (v2 & 0xFF0) | ((v2 >> 12) & 3)
                    f3 = (v3 & 0xFF0) | ((v3 >> 12) & 3)
                    r = min(min(f0, f1), min(f2, f3)) & 3
                event += 1
                new = key | (r << 12) | (b << 4) | 1
                if ((v0 >> 12) & 3) == r:
                    penalties[p] += (v0 >> 4) & 255
                    v0 = new
                elif ((v1 >> 12) & 3) == r:
                    penalties[p] += (v1 >> 4) & 255
                    v1 = v0
                    v0 = new
                elif ((v2 >> 12) & 3) == r:
                    penalties[p] += (v2 >> 4) & 255
                    v2 = v1
                    v1 = v0
                    v0 = new
                else:
                    penalties[p] += (v3 >> 4) & 255
                    v3 = v2
                    v2 = v1
                    v1 = v0
                    v0 = new
    return state


@_jit
def plain_many(rows, orders, choices, row_policy, seed, penalties):  # type: ignore[no-untyped-def]
    """Play hands from their deals, each player's cards in the given order: rows (B, 4), orders
    (B, players, turns), choices (B, events); penalties (B, players) receives the bullheads."""
    count = rows.shape[0]
    players = orders.shape[1]
    turn_count = orders.shape[2]
    turns = np.empty((turn_count, players), np.int64)
    owner = np.empty(105, np.int64)
    state = np.uint64(seed)
    for b in range(count):
        for p in range(players):
            for t in range(turn_count):
                turns[t, p] = orders[b, p, t]
        state = play_plain(rows[b], turns, choices[b], row_policy, penalties[b], owner, state)
    return state


@_jit
def deal_many(players, count, seed, rows, orders):  # type: ignore[no-untyped-def]
    """Deal ``count`` random hands into rows (count, 4) and orders (count, players, 10), exactly as
    the batch loops deal them (player p's card of turn t is deck[4 + t * players + p])."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    state = np.uint64(seed)
    for b in range(count):
        state = deal_hand(deck, dealt, state)
        for r in range(4):
            rows[b, r] = deck[r]
        for p in range(players):
            for t in range(10):
                orders[b, p, t] = deck[4 + t * players + p]
    return state


@_jit
def plain_hands(players, count, row_policy, seed, totals, spread):  # type: ignore[no-untyped-def]
    """Deal and play ``count`` hands of random play; add each player's penalty to ``totals`` and
    count the hands by each player's penalty in ``spread`` (players, 172). Holds one hand at a time."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    owner = np.empty(105, np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    state = np.uint64(seed)
    for _ in range(count):
        state = deal_hand(deck, dealt, state)
        penalties[:] = 0
        state = play_plain(deck[0:4], deck[4:dealt].reshape((10, players)), choices, row_policy, penalties,
                           owner, state)
        for p in range(players):
            totals[p] += penalties[p]
            spread[p, penalties[p]] += 1
    return state


@_jit_inline
def _game_over(totals, done, end_above, rounds):  # type: ignore[no-untyped-def]
    """After ``done`` rounds with these ``totals``: is the game over (``rounds`` played when rounds > 0,
    else a total above ``end_above``)?"""
    if rounds > 0:
        return done >= rounds
    top = 0
    for p in range(totals.shape[0]):
        top = max(top, totals[p])
    return top > end_above


@_jit
def plain_games(players, count, end_above, rounds, row_policy, seed, totals, played):  # type: ignore[no-untyped-def]
    """Play ``count`` whole games of random play: rounds until a total is above ``end_above`` (or
    exactly ``rounds`` rounds when rounds > 0). Final totals go to ``totals`` (count, players), the
    number of rounds to ``played`` (count)."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    owner = np.empty(105, np.int64)
    choices = np.zeros(1, np.int64)
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            state = play_plain(deck[0:4], deck[4:dealt].reshape((10, players)), choices, row_policy, totals[g],
                               owner, state)
            done += 1
            if _game_over(totals[g], done, end_above, rounds):
                break
        played[g] = done
    return state


@_jit
def _play_policy(deck, players, row_pols, card_pols, tie, later_weight, choices, penalties, ends, counts,  # type: ignore[no-untyped-def]
                 heads, fixed, public, scratch, state):
    """Play the hand dealt at the front of ``deck`` with :func:`play_hand` (heuristic policies)."""
    dealt = 4 + 10 * players
    public[:] = False
    for r in range(4):
        c = deck[r]
        ends[r] = c
        counts[r] = 1
        heads[r] = BULL[c]
        public[c] = True
    orders = deck[4:dealt].reshape((10, players)).T.copy()
    return play_hand(ends, counts, heads, orders, fixed, public, choices, row_pols, card_pols, tie,
                     later_weight, penalties, scratch, state, np.zeros(2, np.float32))


@_jit
def policy_many(rows, orders, choices, row_pols, card_pols, tie, later_weight, seed, penalties):  # type: ignore[no-untyped-def]
    """:func:`plain_many` for any policy (the heuristic ones included), seat by seat: ``row_pols[p]``
    and ``card_pols[p]`` are player p's policies; orders (B, players, 10)."""
    count = rows.shape[0]
    players = orders.shape[1]
    deck = np.empty(4 + 10 * players, np.int64)
    ends = np.empty(4, np.int64)
    counts = np.empty(4, np.int64)
    heads = np.empty(4, np.int64)
    fixed = np.zeros(players, np.bool_)
    public = np.zeros(105, np.bool_)
    scratch = np.empty(212 + 2 * players, np.int64)
    state = np.uint64(seed)
    for b in range(count):
        for r in range(4):
            deck[r] = rows[b, r]
        for p in range(players):
            for t in range(10):
                deck[4 + t * players + p] = orders[b, p, t]
        state = _play_policy(deck, players, row_pols, card_pols, tie, later_weight, choices[b], penalties[b],
                             ends, counts, heads, fixed, public, scratch, state)
    return state


@_jit
def policy_games(players, count, end_above, rounds, row_policy, card_policy, tie, later_weight, seed,  # type: ignore[no-untyped-def]
                 totals, played):
    """:func:`plain_games` for any policy. Random hands are policy_games with rounds=1."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    ends = np.empty(4, np.int64)
    counts = np.empty(4, np.int64)
    heads = np.empty(4, np.int64)
    fixed = np.zeros(players, np.bool_)
    public = np.zeros(105, np.bool_)
    scratch = np.empty(212 + 2 * players, np.int64)
    choices = np.zeros(1, np.int64)
    row_pols = np.full(players, row_policy, np.int64)
    card_pols = np.full(players, card_policy, np.int64)
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            state = _play_policy(deck, players, row_pols, card_pols, tie, later_weight, choices, totals[g],
                                 ends, counts, heads, fixed, public, scratch, state)
            done += 1
            if _game_over(totals[g], done, end_above, rounds):
                break
        played[g] = done
    return state


@_jit_inline
def _tally_round(totals, squares, penalties):  # type: ignore[no-untyped-def]
    for p in range(penalties.shape[0]):
        totals[p] += penalties[p]
        squares[p] += penalties[p] * penalties[p]


@_jit
def plain_seat_games(players, count, end_above, rounds, row_policy, seed, totals, played, squares):  # type: ignore[no-untyped-def]
    """:func:`seat_games` when every seat plays its cards in the dealt order (random cards) and takes
    rows by the same ``row_policy``: the hot loop :func:`play_plain` only, which compiles fast."""
    deck = np.arange(1, 105).astype(np.int64)
    dealt = 4 + 10 * players
    owner = np.empty(105, np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            penalties[:] = 0
            state = play_plain(deck[0:4], deck[4:dealt].reshape((10, players)), choices, row_policy, penalties,
                               owner, state)
            _tally_round(totals[g], squares[g], penalties)
            done += 1
            if _game_over(totals[g], done, end_above, rounds):
                break
        played[g] = done
    return state


@_jit
def seat_games(players, count, end_above, rounds, card_pols, row_pols, tie, later_weight, seed,  # type: ignore[no-untyped-def]
               totals, played, squares):
    """Whole games where each seat has its own policy (``card_pols[p]``, ``row_pols[p]``), as
    ``nimmt simulate`` plays them. Like :func:`policy_games`, plus ``squares[g, p]``: the sum over
    the rounds of game g of the square of player p's penalty in the round (for confidence
    intervals)."""
    deck = np.arange(1, 105).astype(np.int64)
    ends = np.empty(4, np.int64)
    counts = np.empty(4, np.int64)
    heads = np.empty(4, np.int64)
    fixed = np.zeros(players, np.bool_)
    public = np.zeros(105, np.bool_)
    scratch = np.empty(212 + 2 * players, np.int64)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    dealt = 4 + 10 * players
    state = np.uint64(seed)
    for g in range(count):
        done = 0
        while True:
            state = deal_hand(deck, dealt, state)
            penalties[:] = 0
            state = _play_policy(deck, players, row_pols, card_pols, tie, later_weight, choices, penalties,
                                 ends, counts, heads, fixed, public, scratch, state)
            _tally_round(totals[g], squares[g], penalties)
            done += 1
            if _game_over(totals[g], done, end_above, rounds):
                break
        played[g] = done
    return state


@_jit
def rollouts(ends0, counts0, heads0, public0, first, fixed, mine, pool, sizes, me, samples,  # type: ignore[no-untyped-def]
             row_policy, card_policy, tie, later_weight, seed, out, rest):
    """:func:`rollouts_seats` with every player on the same row and card policy."""
    players = first.shape[1]
    row_pols = np.full(players, row_policy, np.int64)
    card_pols = np.full(players, card_policy, np.int64)
    return rollouts_seats(ends0, counts0, heads0, public0, first, fixed, mine, pool, sizes, me, samples,
                          row_pols, card_pols, tie, later_weight, seed, out, rest, np.zeros(2, np.float32))


@_jit
def rollouts_seats(ends0, counts0, heads0, public0, first, fixed, mine, pool, sizes, me, samples,  # type: ignore[no-untyped-def]
                   row_pols, card_pols, tie, later_weight, seed, out, rest, net):
    """Complete the round ``samples`` times from each of ``candidates`` starting points, player ``p``
    playing by ``row_pols[p]`` and ``card_pols[p]``.

    Candidate k starts from the rows ``ends0[k]``/``counts0[k]``/``heads0[k]`` with the cards
    ``first[k]`` (one per player, 0 = none) given for the current turn where ``fixed[p]``.
    ``mine``: the cards player ``me`` holds; when ``first[k, me] > 0`` that card is one of them and
    is played now, else ``mine`` are the cards for the later turns. Each sample shuffles ``mine``
    and deals the unseen ``pool``: ``sizes[p]`` cards to each other player (from the current turn
    on when its card is not fixed, from the next turn on when it is). The same deal serves every
    candidate (common random numbers). ``out[k, s]``: the bullheads ``me`` takes from this point
    to the end of the round in sample ``s`` of candidate ``k``; ``rest[k, s]``: what all the other
    players take together (the same shape as ``out``; any other shape, e.g. (0, 0): not wanted).
    ``net``: the learned network's weights for seats on CARD_NET (see :func:`play_hand`).
    """
    candidates = first.shape[0]
    players = first.shape[1]
    now_mine = first[0, me] > 0
    turns = mine.shape[0] if now_mine else mine.shape[0] + 1
    for p in range(players):
        if p != me:
            span = sizes[p] + 1 if fixed[p] else sizes[p]
            if span > turns:
                turns = span
    orders = np.zeros((players, turns), np.int64)
    work = np.empty((players, turns), np.int64)
    ends = np.empty(4, np.int64)
    counts = np.empty(4, np.int64)
    heads = np.empty(4, np.int64)
    public = np.empty(105, np.bool_)
    choices = np.zeros(1, np.int64)
    penalties = np.zeros(players, np.int64)
    scratch = np.empty(212 + 2 * players, np.int64)
    cards = pool.copy()
    own = mine.copy()
    need = 0
    for p in range(players):
        if p != me:
            need += sizes[p]
    state = np.uint64(seed)
    keep_rest = rest.shape[0] == out.shape[0] and rest.shape[1] == out.shape[1]
    for s in range(samples):
        state = deal_hand(cards, need, state)
        state = deal_hand(own, own.shape[0], state)
        orders[:, :] = 0
        at = 0
        for p in range(players):
            if p == me:
                start = 0 if now_mine else 1
                for t in range(own.shape[0]):
                    orders[p, start + t] = own[t]
            else:
                start = 1 if fixed[p] else 0
                for t in range(sizes[p]):
                    orders[p, start + t] = cards[at]
                    at += 1
        for k in range(candidates):
            work[:, :] = orders
            for p in range(players):
                if fixed[p] and p != me:
                    work[p, 0] = first[k, p]
            if now_mine:
                for t in range(turns):
                    if work[me, t] == first[k, me]:
                        work[me, t] = work[me, 0]
                        work[me, 0] = first[k, me]
                        break
            for r in range(4):
                ends[r] = ends0[k, r]
                counts[r] = counts0[k, r]
                heads[r] = heads0[k, r]
            public[:] = public0
            penalties[:] = 0
            state = play_hand(ends, counts, heads, work, fixed, public, choices, row_pols, card_pols,
                              tie, later_weight, penalties, scratch, state, net)
            out[k, s] = penalties[me]
            if keep_rest:
                rest[k, s] = penalties.sum() - penalties[me]
    return state

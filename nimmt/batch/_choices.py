"""The policies' choices, one hand at a time: the heuristic bot's card and row, the beginner's card,
the styles the expert models other players with, and the learned network's features and card.

This is the one implementation of these policies. The bots of :mod:`nimmt.bots` (``heuristic``,
``learned``, the expert's styles) pack their view into these arrays and call the entries at the end
of this module through :mod:`nimmt.batch.decide`; the whole-table kernels inline the same functions.
The idea behind each choice is told in the bots' docstrings (:mod:`nimmt.bots.heuristic`,
:mod:`nimmt.bots.learned`).

Written in the subset of Python that Numba compiles, and only with operations that also work on
Python lists: without Numba (or before the kernels are compiled) :mod:`nimmt.batch.decide` runs
these functions as plain Python on lists, which is quicker there than NumPy's scalars.
"""

from __future__ import annotations

import math

import numpy as np

from nimmt.core import ROW_LIMIT

from ._base import (
    BULL,
    COMB,
    HEURISTIC_FEW,
    HEURISTIC_LOOK,
    HEURISTIC_ROOM,
    MC_CARD,
    MC_COST,
    _jit,
    _jit_inline,
    alone_chance,
    below,
    lay,
    place_fewest,
    power,
    row_chance,
    target,
    unseen_prefix,
)


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
def card_cost(ends, counts, heads, card, rank, held, work, below, cnt, hb, opponents, chances):  # type: ignore[no-untyped-def]
    """The bullheads ``card`` is expected to take if played now: the heuristic's estimate, told in
    :mod:`nimmt.bots.heuristic` ("The idea, card by card").

    The player's unseen cards are the cards not public and not its own: it holds ``held`` cards,
    ``rank`` of them below ``card``, the first i of them (sorted) worth ``work[i]`` bullheads;
    ``work[below:below + 8]`` come from :func:`own_rows`. ``cnt``/``hb`` from :func:`unseen_prefix`.
    ``chances``: the chances already computed (:data:`nimmt.batch._base.CHANCES`, or np.empty(0)).
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
        return alone_chance(chances, opponents, total, lower) * cheapest
    end = ends[row]
    length = counts[row]
    row_heads = heads[row]
    gap = cnt[card] - cnt[end + 1] - (rank - work[below + row])
    if gap == 0 or total == 0:
        return float(row_heads) if length >= ROW_LIMIT else 0.0
    mean_gap = (hb[card] - hb[end + 1] - (work[rank] - work[below + 4 + row])) / gap
    p = min(1.0, gap / total)
    q = 1.0 - p
    expected = 0.0
    # Only the k that make the card a sixth, (length - 1 + k) % ROW_LIMIT == ROW_LIMIT - 1, lowest first.
    for k in range((ROW_LIMIT - length) % ROW_LIMIT, opponents + 1, ROW_LIMIT):
        chance = row_chance(chances, opponents, k, total, gap, p, q)
        if chance == 0.0:
            continue
        if length + k <= ROW_LIMIT:
            expected += chance * (row_heads + k * mean_gap)
        else:
            expected += chance * ROW_LIMIT * mean_gap
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
def rows_room(work, size):  # type: ignore[no-untyped-def]
    """Room for a copy of the rows (ends, counts, heads) in ``work``, after what a hand of ``size``
    places uses (see HEURISTIC_ROOM): no array made in a hot loop."""
    at = 2 * size + 9
    return work[at : at + 4], work[at + 4 : at + 8], work[at + 8 : at + 12]


@_jit_inline
def place_own(e2, c2, h2, ends, counts, heads, card):  # type: ignore[no-untyped-def]
    """The rows ``ends``/``counts``/``heads`` copied to ``e2``/``c2``/``h2`` with ``card`` placed as the
    rules do (below every row: it takes the row with the fewest bullheads)."""
    for r in range(4):
        e2[r] = ends[r]
        c2[r] = counts[r]
        h2[r] = heads[r]
    place_fewest(e2, c2, h2, card)


@_jit_inline
def costs_now(ends, counts, heads, hand, cnt, hb, opponents, work, costs, chances):  # type: ignore[no-untyped-def]
    """``costs[i]``: :func:`card_cost` of the i-th lowest card of ``hand`` (no look ahead), with the
    hand sorted into ``work`` as :func:`own_cards` and :func:`own_rows` lay it out; returns how many
    cards there are. Room as :func:`heuristic_pick`."""
    size = len(hand)
    below = size + 1
    mine = size + 9
    held = own_cards(hand, work, mine)
    own_rows(ends, work, mine, held, below)
    for i in range(held):
        costs[i] = card_cost(ends, counts, heads, work[mine + i], i, held, work, below, cnt, hb, opponents, chances)
    return held


@_jit_inline
def heuristic_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, chances):  # type: ignore[no-untyped-def]
    """Index in ``hand`` (0 = no card) of the card the heuristic bot plays (the idea is told in
    :mod:`nimmt.bots.heuristic`): the lowest expected cost, at tables of at most
    ``HEURISTIC_FEW`` players plus ``HEURISTIC_LOOK`` times the mean cost of the rest of the hand on
    the rows the card leaves; on a near tie (within ``tie``) the highest card, or at those small
    tables the snuggest fit. ``work``: 2 * len(hand) + HEURISTIC_ROOM numbers of room, ``costs``: len(hand)."""
    few = opponents + 1 <= HEURISTIC_FEW
    return heuristic_pick(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, few, few, chances)


@_jit_inline
def heuristic_pick(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, look, snug, chances):  # type: ignore[no-untyped-def]
    """:func:`heuristic_card` with its two choices given: ``look`` (weigh the rest of the hand on the
    rows the card leaves) and ``snug`` (near ties to the snuggest fit, not the highest card)."""
    size = len(hand)
    below = size + 1
    mine = size + 9
    held = costs_now(ends, counts, heads, hand, cnt, hb, opponents, work, costs, chances)
    if look and held > 1:
        # Heads-up, a later card of the hand meets about half the opponent's remaining cards.
        ahead = opponents * max(1, held // 2) if opponents == 1 else opponents
        e2, c2, h2 = rows_room(work, size)
        for i in range(held):
            place_own(e2, c2, h2, ends, counts, heads, work[mine + i])
            own_rows(e2, work, mine, held, below)
            total = 0.0
            for j in range(held):
                if j != i:
                    total += card_cost(e2, c2, h2, work[mine + j], j, held, work, below, cnt, hb, ahead, chances)
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
    for i in range(len(hand)):
        if hand[i] == card:
            return i
    return -1


@_jit_inline
def mc_pick(ends, counts, heads, hand, cnt, hb, opponents, work, costs, state, chances):  # type: ignore[no-untyped-def]
    """(new state, index in ``hand`` of the card CARD_MC plays): a Gumbel-max draw, so card c comes
    with chance exp(u(c)) / sum of exp(u), u(c) = MC_COST * cost(c) + MC_CARD * c / 104, the costs of
    :func:`card_cost` (no look ahead). Room as :func:`heuristic_pick`, ``chances`` as :func:`card_cost`."""
    size = len(hand)
    below_at = size + 1
    mine = size + 9
    held = own_cards(hand, work, mine)
    own_rows(ends, work, mine, held, below_at)
    best = -np.inf
    card = 0
    for i in range(held):
        c = work[mine + i]
        cost = card_cost(ends, counts, heads, c, i, held, work, below_at, cnt, hb, opponents, chances)
        state, k = below(state, 1 << 30)
        u = (k + 0.5) / float(1 << 30)
        score = MC_COST * cost + MC_CARD * c / 104.0 - math.log(-math.log(u))
        if score > best:
            best = score
            card = c
    for i in range(len(hand)):
        if hand[i] == card:
            return state, i
    return state, -1


@_jit_inline
def mc_card(ends, counts, heads, hand, cnt, hb, opponents, work, costs, state):  # type: ignore[no-untyped-def]
    """:func:`mc_pick`, every chance computed anew."""
    return mc_pick(ends, counts, heads, hand, cnt, hb, opponents, work, costs, state, np.empty(0))


# The learned network (nimmt.bots.learned) as a card policy. Its weights come as one flat float32
# array: F and H (features, hidden units), then shift (F), scale (F), w1 (F x H), b1 (H), w2 (H x H),
# b2 (H), w3 (H x 2), b3 (2); nimmt.bots.learned.Net.flat writes it. TAKE_ROW as there.
NET_TAKE_ROW = 20.0
NET_CARD_FEATURES = 22  # the card's own numbers, then the table's
NET_TABLE_FEATURES = 19
NET_FEATURES = NET_CARD_FEATURES + NET_TABLE_FEATURES


@_jit_inline
def at_least(n, p, k):  # type: ignore[no-untyped-def]
    """P(X >= k) for X ~ Binomial(n, p) (Python's own float operations: math.comb's numbers, C pow)."""
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
def net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats, chances):  # type: ignore[no-untyped-def]
    """Fill ``feats[i]`` (NET_FEATURES numbers) with what the learned network sees of the i-th lowest
    card of ``hand`` (0 = no card) and of the table; returns how many cards there are. Room as
    :func:`heuristic_pick`; ``targets``: len(hand) numbers. What the numbers are:
    :mod:`nimmt.bots.learned`."""
    size = len(hand)
    below_at = size + 1
    mine = size + 9
    usual = hand[heuristic_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, chances)]
    n = costs_now(ends, counts, heads, hand, cnt, hb, opponents, work, costs, chances)
    for i in range(n):
        targets[i] = target(ends, work[mine + i])
    net_table(ends, counts, heads, n, cnt[105] - n, opponents, costs, targets, feats)
    e2, c2, h2 = rows_room(work, size)
    for i in range(n):
        c = work[mine + i]
        later_mean = 0.0
        later_sum = 0.0
        if n > 1:
            place_own(e2, c2, h2, ends, counts, heads, c)
            own_rows(e2, work, mine, n, below_at)
            for j in range(n):
                if j != i:
                    later_sum += card_cost(e2, c2, h2, work[mine + j], j, n, work, below_at, cnt, hb, opponents,
                                           chances)
            later_mean = later_sum / (n - 1)
        net_card_features(ends, counts, heads, cnt, opponents, work, mine, n, costs, targets, feats, i,
                          later_mean, later_sum, c == usual)
    return n


@_jit_inline
def net_table(ends, counts, heads, n, u, opponents, costs, targets, feats):  # type: ignore[no-untyped-def]
    """The table's part of the features (the same for every card), in ``feats[0, NET_CARD_FEATURES:]``:
    players, cards in hand, unseen cards ``u``, the rows sorted by their last card (end, length,
    bullheads), the cheapest row, the hand's mean and lowest ``costs``, its share of low cards."""
    cheapest = heads[0]
    for r in range(1, 4):
        cheapest = min(cheapest, heads[r])
    best_cost = np.inf
    total_cost = 0.0
    lows = 0
    for i in range(n):
        best_cost = min(best_cost, costs[i])
        total_cost += costs[i]
        if targets[i] < 0:
            lows += 1
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
        feats[0, t + 4 + 3 * k] = counts[row] / ROW_LIMIT
        feats[0, t + 5 + 3 * k] = heads[row] / NET_TAKE_ROW
    feats[0, t + 15] = cheapest / NET_TAKE_ROW
    feats[0, t + 16] = total_cost / n / 10
    feats[0, t + 17] = best_cost / 10
    feats[0, t + 18] = lows / n


@_jit_inline
def net_card_features(ends, counts, heads, cnt, opponents, work, mine, n, costs, targets, feats, i, later_mean,  # type: ignore[no-untyped-def]
                      later_sum, usual):
    """The i-th lowest card's part of the features in ``feats[i]`` (and the table's part copied from
    ``feats[0]``), ``later_mean``/``later_sum`` the cost of the rest of the hand on the rows it
    leaves, ``usual`` whether the heuristic plays it."""
    c = work[mine + i]
    u = cnt[105] - n
    cheapest = heads[0]
    lowest_end = ends[0]
    for r in range(1, 4):
        cheapest = min(cheapest, heads[r])
        lowest_end = min(lowest_end, ends[r])
    best_cost = np.inf
    for j in range(n):
        best_cost = min(best_cost, costs[j])
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
        low = 1.0
    else:
        end = ends[row]
        under = own_below(work, mine, n, end)
        gap = lower - (cnt[end] - under)
        share = gap / u if u else 0.0
        length = counts[row] / ROW_LIMIT
        row_heads = heads[row] / NET_TAKE_ROW
        danger = at_least(opponents, share, ROW_LIMIT - counts[row])
        distance = (c - end) / 104
        own_gap = (i - under) / 5
        low = 0.0
    for j in range(i + 1, n):
        if targets[j] == row:  # below every row (-1) too: the cards that take a row after it
            same += 1
    top = 105
    for r in range(4):
        if c < ends[r] < top:
            top = ends[r]
    room = (cnt[top] - own_below(work, mine, n, top) if top < 105 else u) - (cnt[c + 1] - (i + 1))
    numbers = (
        c / 104, BULL[c] / 7, low, costs[i] / 10, later_mean / 10, later_sum / 20, length, row_heads, share,
        min(opponents * share, 10.0) / 5, danger, distance, own_gap, same / 5, i / max(1, n - 1), room / max(1, u),
        (costs[i] - best_cost) / 10, 1.0 if costs[i] == best_cost else 0.0,
        (costs[i] + 0.5 * later_mean - best_cost) / 10, (n - 1 - i) / 10, lower / max(1, u), 1.0 if usual else 0.0,
    )
    for k in range(NET_CARD_FEATURES):
        feats[i, k] = numbers[k]
    if i > 0:
        for k in range(NET_CARD_FEATURES, feats.shape[1]):
            feats[i, k] = feats[0, k]


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
def net_card(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, net, feats, x, h1, h2,  # type: ignore[no-untyped-def]
             chances):
    """Index in ``hand`` (0 = no card) of the card LearnedBot (policy mode) plays: the highest logit,
    the lowest card on a tie. ``feats``, ``x``: (len(hand), F) float32; ``h1``, ``h2``: (len(hand), H)
    float32; ``costs`` has room for the logits."""
    n = net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats, chances)
    mine = len(hand) + 9
    pick = 0
    if n > 1:
        net_logits(feats, n, net, costs, x, h1, h2)
        best = -np.inf
        for i in range(n):
            if costs[i] > best:
                best = costs[i]
                pick = i
    card = work[mine + pick]
    for i in range(len(hand)):
        if hand[i] == card:
            return i
    return -1


@_jit_inline
def net_draw(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, net, feats, x, h1, h2,  # type: ignore[no-untyped-def]
             chances, state):
    """(new state, index in ``hand`` of the card CardPolicy.NET_DRAWN plays): a Gumbel-max draw over the
    network's logits, so card c comes with the chance the learned bot's policy gives it (its softmax over
    the hand), where :func:`net_card` plays the likeliest. Arguments as there, ``state`` as
    :func:`mc_pick`'s."""
    n = net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats, chances)
    mine = len(hand) + 9
    pick = 0
    if n > 1:
        net_logits(feats, n, net, costs, x, h1, h2)
        best = -np.inf
        for i in range(n):
            state, k = below(state, 1 << 30)
            u = (k + 0.5) / float(1 << 30)
            score = costs[i] - math.log(-math.log(u))
            if score > best:
                best = score
                pick = i
    card = work[mine + pick]
    for i in range(len(hand)):
        if hand[i] == card:
            return state, i
    return state, -1


@_jit
def net_position(ends, counts, heads, hand, public, players, tie, net, feats, draws, state):  # type: ignore[no-untyped-def]
    """(:func:`net_card`'s index, how many times each card of ``hand`` comes in ``draws`` draws of
    :func:`net_draw`) from a position (``public``: 105 flags, as :func:`play_hand` keeps them), with the
    features in ``feats`` (len(hand), F): for the tests that hold the rollouts' network to the learned
    bot, whose network runs in NumPy."""
    size = len(hand)
    cnt = np.empty(106, np.int64)
    hb = np.empty(106, np.int64)
    unseen_prefix(public, cnt, hb)
    work = np.empty(2 * size + HEURISTIC_ROOM, np.int64)
    costs = np.empty(size)
    targets = np.empty(size, np.int64)
    x = np.empty_like(feats)
    h1 = np.empty((size, int(net[1])), np.float32)
    h2 = np.empty((size, int(net[1])), np.float32)
    seen = np.zeros(size, np.int64)
    for _ in range(draws):
        state, i = net_draw(ends, counts, heads, hand, cnt, hb, players - 1, tie, work, costs, targets, net, feats, x,
                            h1, h2, np.empty(0), state)
        seen[i] += 1
    index = net_card(ends, counts, heads, hand, cnt, hb, players - 1, tie, work, costs, targets, net, feats, x, h1, h2,
                     np.empty(0))
    return index, seen


def net_choice(ends, counts, heads, hand, public, players, tie, net, feats):  # type: ignore[no-untyped-def]
    """:func:`net_card` from a position, as :func:`net_position` takes it."""
    return net_position(ends, counts, heads, hand, public, players, tie, net, feats, 0, np.uint64(0))[0]


def net_draws(ends, counts, heads, hand, public, players, tie, net, feats, draws, state):  # type: ignore[no-untyped-def]
    """How many times each card of ``hand`` comes in ``draws`` draws of :func:`net_draw` (``state``: a
    np.uint64 seed), from a position as :func:`net_position` takes it."""
    return net_position(ends, counts, heads, hand, public, players, tie, net, feats, draws, state)[1]


@_jit_inline
def heuristic_row(ends, counts, heads, card, still, hand, cnt, hb, opponents, later_weight, work, chances):  # type: ignore[no-untyped-def]
    """The row the heuristic bot takes for ``card``: bullheads now plus ``later_weight``
    times the mean cost of its remaining ``hand`` on the rows left after the cards ``still`` to
    resolve this turn (an opponent's low card takes the cheapest row). ``cnt``/``hb`` count the
    cards not public once this turn's cards are revealed. ``work``: room as for heuristic_card."""
    size = len(hand)
    e2, c2, h2 = rows_room(work, size)
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
        now = lay(e2, c2, h2, row, card, True, BULL)
        for c in still:
            place_fewest(e2, c2, h2, c)
        later = 0.0
        if held > 0:
            own_rows(e2, work, mine, held, below)
            total = 0.0
            for i in range(held):
                total += card_cost(e2, c2, h2, work[mine + i], i, held, work, below, cnt, hb, opponents, chances)
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
    for i in range(len(hand)):
        c = hand[i]
        if c <= 0:
            continue
        if lowest < 0 or c < hand[lowest]:
            lowest = i
        r = target(ends, c)
        if r < 0 or counts[r] >= ROW_LIMIT:
            continue
        gap = c - ends[r]
        if gap < best_gap or (gap == best_gap and c < hand[best]):
            best = i
            best_gap = gap
    return best if best >= 0 else lowest


# The entries the bots call, one decision from one packed hand (nimmt.batch.decide packs it): compiled
# on their own, each with the helpers above inlined. ``nimmt prepare`` compiles them.


@_jit
def decide_card(ends, counts, heads, hand, cnt, hb, opponents, tie, look, snug, work, costs):  # type: ignore[no-untyped-def]
    """:func:`heuristic_pick`."""
    return heuristic_pick(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, look, snug, np.empty(0))


@_jit
def decide_row(ends, counts, heads, card, still, hand, cnt, hb, opponents, later_weight, work):  # type: ignore[no-untyped-def]
    """:func:`heuristic_row`."""
    return heuristic_row(ends, counts, heads, card, still, hand, cnt, hb, opponents, later_weight, work, np.empty(0))


@_jit
def hand_costs(ends, counts, heads, hand, cnt, hb, opponents, work, costs):  # type: ignore[no-untyped-def]
    """:func:`costs_now`."""
    return costs_now(ends, counts, heads, hand, cnt, hb, opponents, work, costs, np.empty(0))


@_jit
def hand_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats):  # type: ignore[no-untyped-def]
    """:func:`net_features`."""
    return net_features(ends, counts, heads, hand, cnt, hb, opponents, tie, work, costs, targets, feats, np.empty(0))

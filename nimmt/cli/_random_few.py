"""A few games at tables of random seats in plain Python, exactly as :mod:`nimmt.cli._random_tables`
plays them with NumPy: the same chance, the same games, the same figures, without loading NumPy.

NumPy costs about five times Python's own start-up to load (and starts its threads); ``nimmt
simulate --games 1`` plays in a few milliseconds. So up to :data:`FEW` games, the run draws its
chance here as NumPy would (its ``SeedSequence``, its ``SFC64`` generator, ``random_raw`` and
``Generator.integers(0, 4)``) and plays every hand as :func:`~nimmt.cli._random_tables.play_deals`
does; ``tests/cli/test_simulate_random.py`` holds the two to the same games, seed by seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle

from nimmt.core import BULLHEADS

FEW = 100  # up to this many games (some 40 ms of CPU), plain Python plays them sooner than NumPy loads

M32 = 0xFFFF_FFFF
M64 = 0xFFFF_FFFF_FFFF_FFFF
DECKS = 64  # _random_tables.DECKS: keys are drawn for a multiple of 64 hands


def _seed_state(seed: int, words: int) -> list[int]:
    """``np.random.SeedSequence(seed).generate_state(words, np.uint64)``."""
    entropy = []
    while True:
        entropy.append(seed & M32)
        seed >>= 32
        if not seed:
            break
    hash_a = 0x43B0_D7E5

    def hashmix(value: int) -> int:
        nonlocal hash_a
        value ^= hash_a
        hash_a = (hash_a * 0x931E_8875) & M32
        value = (value * hash_a) & M32
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        result = (0xCA01_F9DD * x - 0x4973_F715 * y) & M32
        return result ^ (result >> 16)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(4)]
    for source in range(4):
        for target in range(4):
            if source != target:
                pool[target] = mix(pool[target], hashmix(pool[source]))
    for extra in entropy[4:]:
        for target in range(4):
            pool[target] = mix(pool[target], hashmix(extra))
    hash_b = 0x8B51_F9DD
    halves = []
    for value, _ in zip(cycle(pool), range(2 * words)):
        value ^= hash_b
        hash_b = (hash_b * 0x58F3_8DED) & M32
        value = (value * hash_b) & M32
        halves.append(value ^ (value >> 16))
    return [halves[2 * i] | halves[2 * i + 1] << 32 for i in range(words)]


class SFC64:
    """NumPy's ``Generator(SFC64(seed))``, for what the random tables draw."""

    def __init__(self, seed: int) -> None:
        a, b, c = _seed_state(seed, 3)
        self.state = [a, b, c, 1]
        self.half: int | None = None  # the upper half of a 64-bit draw, kept for the next 32-bit one
        for _ in range(12):
            self.next64()

    def next64(self) -> int:
        a, b, c, counter = self.state
        out = (a + b + counter) & M64
        self.state = [b ^ (b >> 11), (c + (c << 3)) & M64, (((c << 24) | (c >> 40)) + out) & M64,
                      (counter + 1) & M64]
        return out

    def raw(self, count: int) -> list[int]:
        """``bit_generator.random_raw(count)``."""
        a, b, c, counter = self.state
        out = []
        for _ in range(count):
            tmp = (a + b + counter) & M64
            counter += 1
            a, b, c = b ^ (b >> 11), (c + (c << 3)) & M64, (((c << 24) & M64 | (c >> 40)) + tmp) & M64
            out.append(tmp)
        self.state = [a, b, c, counter & M64]
        return out

    def next32(self) -> int:
        if self.half is not None:
            half, self.half = self.half, None
            return half
        value = self.next64()
        self.half = value >> 32
        return value & M32

    def row(self) -> int:
        """One value of ``integers(0, 4, n, dtype=np.uint64)``: Lemire's method on 32 bits (never
        rejecting for a range of 4)."""
        return (self.next32() * 4) >> 32


def deal(players: int, hands: int, rng: SFC64) -> list[list[int]]:
    """:func:`nimmt.cli._random_tables.deal`: four row cards, then each turn's cards seat by seat."""
    dealt = 4 + 10 * players
    seen = min(dealt + 1, 104)
    out: list[list[int]] = [[] for _ in range(hands)]
    todo = list(range(hands))
    while todo:
        count = -(-len(todo) // DECKS)
        raws = rng.raw(count * DECKS * 52)
        again = []
        for place, hand in enumerate(todo):
            words = raws[place * 52:(place + 1) * 52]
            keys = sorted([(word >> shift & 0xFFFF_FF80) | (2 * i + k + 1)
                           for i, word in enumerate(words) for k, shift in ((0, 0), (1, 32))])
            out[hand] = [key & 127 for key in keys[:dealt]]
            if any(keys[i] >> 7 == keys[i + 1] >> 7 for i in range(seen - 1)):
                again.append(hand)
        todo = again
    return out


def play_round(players: int, hands: int, rng: SFC64) -> list[list[int]]:
    """:func:`nimmt.cli._random_tables.play_round`: each seat's bullheads, (players, hands)."""
    deals = deal(players, hands, rng)
    rows = [sorted([card, BULLHEADS[card], 1] for card in dealt[:4]) for dealt in deals]  # lowest end first
    orders = [sorted((t, dealt[4 + players * t + p], p) for t in range(10) for p in range(players))
              for dealt in deals]
    taken = [[0] * hands for _ in range(players)]
    for step in range(10 * players):
        for hand in range(hands):
            _, card, seat = orders[hand][step]
            lanes = rows[hand]
            below = sum(1 for lane in lanes if lane[0] < card)
            if below == 0:
                chosen = rng.row()
                taken[seat][hand] += lanes[chosen][1]
                del lanes[chosen]
                lanes.insert(0, [card, BULLHEADS[card], 1])
                continue
            lane = lanes[below - 1]
            if lane[2] == 5:
                taken[seat][hand] += lane[1]
                lanes[below - 1] = [card, BULLHEADS[card], 1]
            else:
                lane[0], lane[1], lane[2] = card, lane[1] + BULLHEADS[card], lane[2] + 1
    return taken


@dataclass(frozen=True)
class FewGames:
    """:class:`~nimmt.cli._random_tables.RandomGames` as lists: ``totals`` and ``squares`` (games,
    players), ``played`` rounds (games)."""

    totals: list[list[int]]
    played: list[int]
    squares: list[list[int]]


def random_games(players: int, games: int, seed: int, end_above: int = 66, rounds: int = 0) -> FewGames:
    """:func:`nimmt.cli._random_tables.random_games`, game for game."""
    rng = SFC64(seed)
    totals = [[0] * players for _ in range(games)]
    squares = [[0] * players for _ in range(games)]
    played = [0] * games
    going = list(range(games))
    while going:
        penalties = play_round(players, len(going), rng)
        for place, game in enumerate(going):
            for seat in range(players):
                penalty = penalties[seat][place]
                totals[game][seat] += penalty
                squares[game][seat] += penalty * penalty
            played[game] += 1
        going = [game for game in going
                 if not (played[game] >= rounds if rounds > 0 else max(totals[game]) > end_above)]
    return FewGames(totals, played, squares)

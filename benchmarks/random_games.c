/* Whole random games of 6 nimmt!, as nimmt simulate plays them with every seat random: the C
 * reference of benchmarks/bench_start.py (compiled there with cc -O2).
 *
 *     cc -O2 -o random_games benchmarks/random_games.c && ./random_games 50000 4 1
 *
 * Each round deals 4 row cards and 10 cards a player from a shuffled deck; each turn every player
 * plays a uniformly random card of its hand (the dealt order is already random), the cards are
 * placed lowest first: on the row with the highest last card below it (the sixth card takes the
 * five), or, below every row, the player takes a uniformly random row. A game ends after a round
 * in which some total is above 66. Prints the games, the rounds and each seat's total penalty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t next(void) { /* SplitMix64 */
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) { /* uniform in [0, n): Lemire's bounded draw, no bias */
    uint64_t m = (uint64_t)(uint32_t)next() * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t floor = (uint32_t)(-n) % n;
        while (low < floor) {
            m = (uint64_t)(uint32_t)next() * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

static int heads(int card) {
    if (card == 55) return 7;
    if (card % 11 == 0) return 5;
    if (card % 10 == 0) return 3;
    if (card % 5 == 0) return 2;
    return 1;
}

int main(int argc, char **argv) {
    long games = argc > 1 ? atol(argv[1]) : 50000;
    int players = argc > 2 ? atoi(argv[2]) : 4;
    state = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (games < 1 || players < 2 || players > 10) {
        fprintf(stderr, "usage: random_games GAMES PLAYERS(2-10) SEED\n");
        return 2;
    }
    int bull[105], deck[104];
    for (int c = 1; c <= 104; c++) bull[c] = heads(c);
    long rounds = 0, sums[10] = {0};
    for (long g = 0; g < games; g++) {
        int total[10] = {0};
        for (;;) {
            rounds++;
            for (int i = 0; i < 104; i++) deck[i] = i + 1;
            int dealt = 4 + 10 * players; /* partial Fisher-Yates: only the cards dealt */
            for (int i = 0; i < dealt; i++) {
                int j = i + (int)below((uint32_t)(104 - i));
                int t = deck[i]; deck[i] = deck[j]; deck[j] = t;
            }
            int end[4], count[4], pile[4];
            for (int r = 0; r < 4; r++) { end[r] = deck[r]; count[r] = 1; pile[r] = bull[deck[r]]; }
            for (int turn = 0; turn < 10; turn++) {
                int card[10], who[10];
                for (int p = 0; p < players; p++) { card[p] = deck[4 + 10 * p + turn]; who[p] = p; }
                for (int i = 1; i < players; i++) { /* lowest first */
                    int c = card[i], w = who[i], k = i - 1;
                    while (k >= 0 && card[k] > c) { card[k + 1] = card[k]; who[k + 1] = who[k]; k--; }
                    card[k + 1] = c; who[k + 1] = w;
                }
                for (int i = 0; i < players; i++) {
                    int c = card[i], best = -1;
                    for (int r = 0; r < 4; r++)
                        if (end[r] < c && (best < 0 || end[r] > end[best])) best = r;
                    if (best < 0) { /* below every row: a random row */
                        best = (int)below(4);
                        total[who[i]] += pile[best];
                        end[best] = c; count[best] = 1; pile[best] = bull[c];
                    } else if (count[best] == 5) {
                        total[who[i]] += pile[best];
                        end[best] = c; count[best] = 1; pile[best] = bull[c];
                    } else {
                        end[best] = c; count[best]++; pile[best] += bull[c];
                    }
                }
            }
            int over = 0;
            for (int p = 0; p < players; p++) over |= total[p] > 66;
            if (over) break;
        }
        for (int p = 0; p < players; p++) sums[p] += total[p];
    }
    printf("{\"games\": %ld, \"rounds\": %ld, \"totals\": [", games, rounds);
    for (int p = 0; p < players; p++) printf("%s%ld", p ? ", " : "", sums[p]);
    printf("]}\n");
    return 0;
}

"""Train the learned policy and value of ``nimmt.bots.learned`` on the CPU, reproducibly.

    pip install -e '.[train,tournament]'
    nice -n 10 python scripts/train_policy.py                     # the first run in docs/ladder.md
    git show 1876f54:nimmt/bots/data/policy.npz > start.npz       # its weights, then the second run:
    nice -n 10 python scripts/train_policy.py --start start.npz --own learned --positions 20000,20000 \
        --log docs/figures/learned-training-pi.json --plot docs/figures/learned-training-pi.png  # shipped
    python scripts/train_policy.py --positions 2000,1000 --eval-games 8 --out /tmp/policy.npz  # a quick look

What it does, generation by generation (``--positions`` gives the number of positions of each):

1. **Positions.** Rounds are played with the rules core, every seat a bot drawn from a pool: nimmt's
   ``heuristic``, ``beginner``, ``random`` and the field's simple styles (``field:risk``, ``safe``,
   ``gap``, ``careless``, ``lowest``, ``highest``); from the second generation on, the network of
   the generation before takes seats too, so the positions come from self-play and from games
   against the field. A card choice of a seat is kept with probability ``--keep`` (the view only).
   Table sizes: 2 to 10 players, more weight on 2 and 4.
2. **Targets: a distillation of search.** For each position the compiled rollouts of the batch
   engine (:func:`nimmt.bots.styles.seat_card_penalties`) play the round to its end ``--samples``
   times for every card of the hand, all cards on the same deals; the player plays on like
   ``heuristic`` (with ``--own learned``, like the network of the generation before, compiled into
   the rollouts: policy iteration), every other player in a style drawn for each block of 16 samples (``heuristic``
   40%, ``snug`` 40%, ``random`` 20%: the styles of the ``expert``'s opponent model). A card's target
   ``q`` is its mean bullheads from now to the end of the round; the policy's target is the
   softmax of ``-q / TAU`` over the hand.
3. **Training.** The network of :mod:`nimmt.bots.learned` (features standardised, two hidden
   layers) is fitted with Adam on all positions so far (a tenth held out): squared error of ``q``
   plus the cross-entropy of the policy. PyTorch on one thread; the weights are saved as NumPy
   arrays (inference needs no PyTorch).
4. **Strength.** Duplicate-deal tournaments (:func:`nimmt.tournament.tournament`) of the network's
   bot against ``heuristic`` (2 and 4 players) and ``field:risk`` (4 players): its lead per round.

Everything is seeded (``--seed``): the same command gives the same weights. Written to ``--out``
(default: the package's ``nimmt/bots/data/policy.npz``) and a log (``--log``, JSON: per generation
the positions, rollouts, CPU seconds of each stage, losses and strength).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from nimmt.bots import Bot, make_bot
from nimmt.bots.learned import FEATURES, HIDDEN, LearnedBot, Net, view_features
from nimmt.bots.styles import seat_card_penalties, seats_of
from nimmt.core import Phase, Rules, View, apply, deal_cards, new_game, view
from nimmt.tournament import Seat, tournament

ROOT = Path(__file__).resolve().parent.parent
POOL = {  # seats of the games the positions come from, with their weights
    "heuristic": 3.0, "field:risk": 2.0, "field:safe": 2.0, "field:gap": 1.0, "field:careless": 1.0,
    "beginner": 1.0, "random": 1.0, "field:lowest": 0.5, "field:highest": 0.5,
}
SELF_WEIGHT = 4.0  # weight of the network's own seat in the pool, from the second generation on
TABLES = {2: 4.0, 3: 1.5, 4: 4.0, 5: 1.5, 6: 1.0, 7: 1.0, 8: 1.0, 9: 0.5, 10: 1.0}  # table sizes
STYLES = {"heuristic": 0.4, "snug": 0.4, "random": 0.2}  # the others' styles in the rollouts
BLOCK = 16  # samples per style draw
TAU = 0.5  # temperature of the policy's target (bullheads)
MAX_HAND = 10


def draw(weights: dict[str, float], rng: random.Random) -> str:
    names = list(weights)
    return rng.choices(names, weights=[weights[n] for n in names])[0]


class Recorder(Bot):
    """Plays like ``inner`` and keeps some of its card choices' views."""

    name = "recorder"
    description = "records views"

    def __init__(self, inner: Bot, keep: float, rng: random.Random, kept: list[View]) -> None:
        super().__init__(rng)
        self.inner, self.keep, self.kept = inner, keep, kept

    def choose_card(self, view: View) -> int:
        if len(view.hand) > 1 and self.rng.random() < self.keep:
            self.kept.append(view)
        return self.inner.choose_card(view)

    def choose_row(self, view: View) -> int:
        return self.inner.choose_row(view)


def play_round(bots: list[Bot], rng: random.Random) -> None:
    """One round with the rules core, each bot seeing its own view only."""
    state = apply(new_game(len(bots), Rules(rounds=1)), deal_cards(len(bots), rng)).state
    while state.phase is not Phase.OVER:
        player = state.waiting_for[0]
        state = apply(state, bots[player].act(view(state, player))).state


def positions(count: int, rng: random.Random, keep: float, weights: str | None) -> tuple[list[View], int]:
    """``count`` views of card choices from rounds of bots of the pool (and of the network of
    ``weights`` when given); also the number of rounds played."""
    pool = dict(POOL)
    if weights is not None:
        pool["learned"] = SELF_WEIGHT
    kept: list[View] = []
    rounds = 0
    while len(kept) < count:
        players = int(draw({str(k): v for k, v in TABLES.items()}, rng))
        bots: list[Bot] = []
        for _ in range(players):
            name = draw(pool, rng)
            seed = random.Random(rng.getrandbits(64))
            inner = LearnedBot(seed, weights=weights) if name == "learned" else make_bot(name, seed)
            bots.append(Recorder(inner, keep, random.Random(rng.getrandbits(64)), kept))
        play_round(bots, rng)
        rounds += 1
    return kept[:count], rounds


def targets(view: View, samples: int, rng: random.Random, gen: np.random.Generator,
            own: str = "heuristic", net: Net | None = None) -> npt.NDArray[np.float64]:
    """Each card's mean bullheads to the end of the round (cards in sorted order), the player
    playing on like ``own``: ``heuristic``, or ``learned`` (the network ``net``, compiled into the
    rollouts)."""
    cards = sorted(view.hand)
    total = np.zeros(len(cards))
    blocks = max(1, samples // BLOCK)
    for _ in range(blocks):
        styles = [own if p == view.player else draw(STYLES, rng) for p in range(view.players)]
        total += seat_card_penalties(view, cards, BLOCK, gen, seats_of(styles), net=net).sum(axis=1)
    return total / (blocks * BLOCK)


def encode(views: list[View], samples: int, rng: random.Random, own: str = "heuristic",
           net: Net | None = None) -> dict[str, npt.NDArray[Any]]:
    """Features (P, 10, F), targets (P, 10), mask (P, 10) and table sizes (P) of the views."""
    gen = np.random.default_rng(rng.getrandbits(64))
    x = np.zeros((len(views), MAX_HAND, FEATURES), np.float32)
    q = np.zeros((len(views), MAX_HAND), np.float32)
    mask = np.zeros((len(views), MAX_HAND), np.bool_)
    players = np.zeros(len(views), np.int64)
    for i, v in enumerate(views):
        n = len(v.hand)
        x[i, :n] = view_features(v)
        q[i, :n] = targets(v, samples, rng, gen, own, net)
        mask[i, :n] = True
        players[i] = v.players
    return {"x": x, "q": q, "mask": mask, "players": players}


class Model(torch.nn.Module):
    def __init__(self, shift: npt.NDArray[np.float32], scale: npt.NDArray[np.float32]) -> None:
        super().__init__()
        self.shift = torch.nn.Parameter(torch.tensor(shift), requires_grad=False)
        self.scale = torch.nn.Parameter(torch.tensor(scale), requires_grad=False)
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
            torch.nn.Linear(HIDDEN, 2),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers((x - self.shift) * self.scale)  # type: ignore[no-any-return]

    def net(self, meta: str) -> Net:
        linear = [m for m in self.layers if isinstance(m, torch.nn.Linear)]

        def arr(t: torch.Tensor) -> npt.NDArray[np.float32]:
            return t.detach().numpy().astype(np.float32).copy()

        return Net(
            shift=arr(self.shift), scale=arr(self.scale),
            w1=arr(linear[0].weight.T), b1=arr(linear[0].bias), w2=arr(linear[1].weight.T), b2=arr(linear[1].bias),
            w3=arr(linear[2].weight.T), b3=arr(linear[2].bias), meta=meta,
        )


def losses(model: Model, x: torch.Tensor, q: torch.Tensor, mask: torch.Tensor, policy_weight: float
           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    out = model(x)
    pred, logits = out[..., 0], out[..., 1]
    m = mask.float()
    mse = ((pred - q) ** 2 * m).sum() / m.sum()
    # The differences between the cards of a hand decide the play: weigh them apart from the level.
    size = m.sum(dim=1, keepdim=True)
    gap = (pred - q) - ((pred - q) * m).sum(dim=1, keepdim=True) / size
    spread = (gap**2 * m).sum() / m.sum()
    # Soft target: the cards ranked by their rollout means.
    target = torch.softmax(torch.where(mask, -q / TAU, torch.tensor(-1e9)), dim=1)
    logp = torch.log_softmax(torch.where(mask, logits, torch.tensor(-1e9)), dim=1)
    ce = -(target * torch.where(mask, logp, torch.tensor(0.0))).sum(dim=1).mean()
    # How often the policy's card is the rollouts' best card.
    chosen = torch.where(mask, logits, torch.tensor(-1e9)).argmax(1)
    best = chosen == torch.where(mask, q, torch.tensor(1e9)).argmin(1)
    return mse + 2.0 * spread + policy_weight * ce, mse, best.float().mean()


def train(
    data: dict[str, npt.NDArray[Any]], epochs: int, seed: int, meta: dict[str, Any]
) -> tuple[Net, dict[str, float]]:
    torch.manual_seed(seed)
    x, q, mask = data["x"], data["q"], data["mask"]
    rows = x[mask]
    shift = rows.mean(axis=0).astype(np.float32)
    scale = (1.0 / np.maximum(rows.std(axis=0), 1e-3)).astype(np.float32)
    order = np.random.default_rng(seed).permutation(len(x))
    held = order[: len(x) // 10]
    used = order[len(x) // 10 :]
    tx, tq, tm = (torch.tensor(a[used]) for a in (x, q, mask))
    vx, vq, vm = (torch.tensor(a[held]) for a in (x, q, mask))
    model = Model(shift, scale)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-5)
    steps = epochs * max(1, len(used) // 256)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(used), generator=g)
        for start in range(0, len(used) - 255, 256):
            batch = perm[start : start + 256]
            loss, _, _ = losses(model, tx[batch], tq[batch], tm[batch], 1.0)
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            schedule.step()
    with torch.no_grad():
        _, train_mse, _ = losses(model, tx, tq, tm, 1.0)
        loss, mse, best = losses(model, vx, vq, vm, 1.0)
    figures = {"train_mse": float(train_mse), "held_out_mse": float(mse), "held_out_loss": float(loss),
               "held_out_best_card": float(best)}
    return model.net(json.dumps({**meta, **figures}, sort_keys=True)), figures


def strength(weights: Path, games: int, seed: int) -> dict[str, dict[str, float | None]]:
    """The network's bot's lead per round (95% interval) over duplicate deals, playing by its value
    (the card with the lowest q) and by its policy (the likeliest card)."""
    out = {}
    for mode in LearnedBot.MODES:
        me = Seat(name="learned", bot="learned", options=(("mode", mode), ("weights", str(weights))))
        tables: tuple[tuple[str, list[Seat | str]], ...] = (
            ("heuristic-2p", [me, "heuristic"]), ("heuristic-4p", [me, *["heuristic"] * 3]),
            ("risk-4p", [me, *["field:risk"] * 3]),
        )
        for label, bots in tables:
            lead = tournament(bots, games=games, seed=seed).lead
            assert lead is not None
            out[f"{mode}:{label}"] = {"lead": lead.mean, "low": lead.low, "high": lead.high, "games": games}
    return out


def plot(log: dict[str, Any], path: Path) -> None:
    """Strength over training: each check's lead per round (95% interval) against the positions and
    CPU time so far, playing by the value and by the policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    generations = log["generations"]
    if not generations or not generations[0]["strength"]:
        return
    x = [g["positions"] / 1000 for g in generations]
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, mode in zip(axes, ("value", "policy"), strict=True):
        for i, check in enumerate(("heuristic-2p", "heuristic-4p", "risk-4p")):
            key = f"{mode}:{check}"
            lead = [g["strength"][key]["lead"] for g in generations]
            low = [g["strength"][key]["lead"] - g["strength"][key]["low"] for g in generations]
            high = [g["strength"][key]["high"] - g["strength"][key]["lead"] for g in generations]
            ax.errorbar([v + 0.012 * max(x) * (i - 1) for v in x], lead, yerr=[low, high], marker="o", capsize=3,
                        label={"heuristic-2p": "vs heuristic, 2 players", "heuristic-4p": "vs 3 heuristic",
                               "risk-4p": "vs 3 field:risk"}[check])
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_title(f"learned bot playing by its {mode}")
        ax.set_xlabel("positions trained on (thousands)")
        ax.set_xticks(x, [f"{v:g}k\n{g['cpu_total'] / 60:.0f} CPU min" for v, g in zip(x, generations, strict=True)])
    axes[0].set_ylabel("lead, bullheads per round (95% interval)")
    axes[1].legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", default="16000,12000,12000", help="positions of each generation")
    parser.add_argument("--samples", type=int, default=64, help="rollouts per card and position")
    parser.add_argument("--keep", type=float, default=0.25, help="share of card choices kept as positions")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--eval-games", type=int, default=80, help="games of each strength check (0: none)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--start", type=Path, default=None,
                        help="weights of a generation before the first: its network plays seats from the start")
    parser.add_argument("--own", choices=("heuristic", "learned"), default="heuristic",
                        help="how the player plays on in the target rollouts: like heuristic, or like the "
                             "network of the generation before (policy iteration; needs --start or a second "
                             "generation)")
    parser.add_argument("--out", type=Path, default=ROOT / "nimmt" / "bots" / "data" / "policy.npz")
    parser.add_argument("--log", type=Path, default=ROOT / "docs" / "figures" / "learned-training.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "figures" / "learned-training.png",
                        help="chart of the strength over training (needs matplotlib)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rng = random.Random(args.seed)
    counts = [int(c) for c in args.positions.split(",")]
    log: dict[str, Any] = {"command": " ".join(sys.argv), "seed": args.seed, "samples": args.samples,
                           "epochs": args.epochs, "generations": []}
    data: dict[str, npt.NDArray[Any]] | None = None
    weights: Path | None = args.start
    total_rounds = total_positions = total_rollouts = 0
    cpu0 = time.process_time()
    for generation, count in enumerate(counts):
        t0 = time.process_time()
        views, rounds = positions(count, rng, args.keep, None if weights is None else str(weights))
        t1 = time.process_time()
        # Policy iteration: the targets of a generation play on like the network before it.
        own = args.own if weights is not None else "heuristic"
        fresh = encode(views, args.samples, rng, own, None if weights is None else Net.from_bytes(weights.read_bytes()))
        t2 = time.process_time()
        data = fresh if data is None else {k: np.concatenate([data[k], fresh[k]]) for k in fresh}
        rollouts = int(fresh["mask"].sum()) * (args.samples // BLOCK) * BLOCK
        total_rounds += rounds
        total_positions += count
        total_rollouts += rollouts
        meta = {"generation": generation, "positions": total_positions, "rounds": total_rounds,
                "rollouts": total_rollouts, "seed": args.seed, "own": own,
                "start": None if args.start is None else args.start.name}
        net, figures = train(data, args.epochs, args.seed + generation, meta)
        t3 = time.process_time()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        path = args.out.with_name(f"{args.out.stem}-g{generation}.npz") if generation < len(counts) - 1 else args.out
        net.save(path)
        weights = path
        check = strength(path, args.eval_games, args.seed) if args.eval_games else {}
        t4 = time.process_time()
        entry = {**meta, **figures, "rounds_played": rounds, "new_positions": count, "new_rollouts": rollouts,
                 "cpu_positions": t1 - t0, "cpu_rollouts": t2 - t1, "cpu_training": t3 - t2,
                 "cpu_strength": t4 - t3, "cpu_total": t4 - cpu0, "strength": check}
        log["generations"].append(entry)
        print(json.dumps(entry), flush=True)
        args.log.parent.mkdir(parents=True, exist_ok=True)
        args.log.write_text(json.dumps(log, indent=1) + "\n")
        plot(log, args.plot)
    for generation in range(len(counts) - 1):  # only the last generation's weights ship
        args.out.with_name(f"{args.out.stem}-g{generation}.npz").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

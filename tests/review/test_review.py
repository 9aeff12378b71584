"""The review engine: options are the legal ones, losses are sound, nothing hidden leaks, seeds repeat."""

from __future__ import annotations

import json
import pickle
import random
import statistics
from dataclasses import replace

import pytest

from nimmt.bots import make_bot
from nimmt.core import ChooseRow, Deal, GameState, Phase, PlayCard, Rules, view
from nimmt.match import play_game
from nimmt.records import GameRecord, Recorder, replay
from nimmt.review import (
    ACCURACY_HALF,
    FORGIVEN,
    MARKS,
    NOISE_Z,
    Decision,
    Option,
    ReviewError,
    decision_accuracy,
    finish,
    from_store,
    merge,
    moments,
    review,
    review_steps,
    to_store,
)

SAMPLES = 64  # enough for the properties below; the budget of real reviews is in docs/review.md


def _game(seed: int, players: int = 4, rounds: int = 1) -> GameRecord:
    names = ["random", "beginner", "heuristic", "random", "heuristic"][:players]
    bots = [make_bot(name, random.Random(seed * 10 + i)) for i, name in enumerate(names)]
    return play_game(bots, random.Random(seed), Rules(rounds=rounds))


def test_every_decision_has_the_legal_options_the_best_at_zero_and_the_choice_marked() -> None:
    record = _game(1, rounds=2)
    result = review(record, samples=SAMPLES)
    expected = [m for m, _ in moments(record)]
    assert len(result.decisions) == len(expected) > 2 * 10 * 4  # every card, and the row choices
    assert any(d.kind == "row" for d in result.decisions)
    for decision, moment in zip(result.decisions, expected, strict=True):
        legal = view(moment.state, moment.player).legal_actions()
        options = [o.option for o in decision.options]
        if decision.kind == "card":
            assert sorted(options) == sorted(a.card for a in legal if isinstance(a, PlayCard))
        else:
            assert options == [a.row for a in legal if isinstance(a, ChooseRow)] == [0, 1, 2, 3]
        assert (decision.player, decision.kind, decision.chosen) == (moment.player, moment.kind, moment.chosen)
        assert all(o.loss >= 0 for o in decision.options)
        assert min(o.loss for o in decision.options) == 0
        best = min(o.expected for o in decision.options)
        assert all(o.loss == pytest.approx(o.expected - best) for o in decision.options)
        assert [o.option for o in decision.options if o.chosen] == [decision.chosen]
        assert decision.forced == (len(options) == 1)
        assert decision.loss == decision.choice.loss
    for player in result.players:
        free = [d for d in result.decisions if d.player == player.player and not d.forced]
        assert player.decisions == len(free)
        assert player.accuracy == pytest.approx(sum(decision_accuracy(d.counted_loss) for d in free) / len(free))
        assert all(d.counted_loss == max(0.0, d.loss - FORGIVEN) for d in free)
        assert 0 <= player.accuracy <= 100
        scores = [decision_accuracy(d.counted_loss) for d in free]  # how sure: the 95 % interval's half-width
        assert player.accuracy_margin == pytest.approx(1.96 * statistics.stdev(scores) / len(scores) ** 0.5)
        assert player.costliest is not None
        assert result.decisions[player.costliest].loss == max(d.loss for d in free)


def test_what_each_decision_took_is_what_the_turn_took() -> None:
    record = _game(2)
    result = review(record, samples=8)
    taken: dict[tuple[int, int, int], int] = {}
    for decision in result.decisions:
        taken.setdefault((decision.round, decision.turn, decision.player), decision.took)
        assert taken[(decision.round, decision.turn, decision.player)] == decision.took
    # each turn's card decisions together took what the game's totals hold
    assert sum(d.took for d in result.decisions if d.kind == "card") == sum(replay(record).totals) > 0


def _scrambled(record: GameRecord, player: int, upto: int, rng: random.Random) -> GameRecord:
    """``record`` up to the end of the turn of decision ``upto`` of ``player``, with every card that
    player had not seen at that moment (the other hands, the cards not dealt) shared out anew among
    the same places; the other players play any card of their new hands in that turn."""
    target = [m for m, _ in moments(record) if m.player == player][upto]
    state = target.state
    seen = view(state, player)
    unseen = set(seen.unseen_cards())
    index = len(state.history) if state.phase is not Phase.OVER else 0
    round_record = record.rounds[index]
    pool = [c for hand in round_record.hands for c in hand if c in unseen]
    pool += [c for c in range(1, 105) if c in unseen and c not in pool]
    shuffled = pool[:]
    rng.shuffle(shuffled)
    swap = dict(zip(pool, shuffled, strict=True))
    hands = tuple(tuple(swap.get(c, c) for c in hand) if p != player else hand
                  for p, hand in enumerate(round_record.hands))
    recorder = Recorder(GameRecord(players=record.players, rules=record.rules))
    for earlier in record.rounds[:index]:
        for action in GameRecord(record.players, record.rules, (earlier,)).actions():
            recorder.add(action)
    recorder.add(Deal(round_record.rows, hands))
    for turn in round_record.turns[: state.turn]:
        for p, card in enumerate(turn.cards):
            recorder.add(PlayCard(p, card))
        while recorder.state.phase is Phase.CHOOSE_ROW:
            waiting = recorder.state.waiting_for[0]
            recorder.add(ChooseRow(waiting, turn.row_for(waiting) or 0))
    # The turn of the decision: the player's own card (and row) as played, the others' from their new hands.
    turn = round_record.turns[state.turn]
    revealed = target.kind == "row"
    for p in range(len(record.players)):
        hand = recorder.state.hands[p]
        card = turn.cards[p] if p == player or revealed else rng.choice(hand)
        recorder.add(PlayCard(p, card))
    while recorder.state.phase is Phase.CHOOSE_ROW:
        waiting = recorder.state.waiting_for[0]
        row = turn.row_for(waiting) if revealed or waiting == player else rng.randrange(4)
        recorder.add(ChooseRow(waiting, 0 if row is None else row))
    return recorder.record


def _state_before(record: GameRecord, player: int, upto: int) -> GameState:
    return [m for m, _ in moments(record) if m.player == player][upto].state


@pytest.mark.parametrize(("player", "upto"), [(0, 3), (2, 7), (1, 12), (3, 16)])
def test_no_hidden_card_leaks_into_a_review(player: int, upto: int) -> None:
    record = _game(3, rounds=2)
    original = [d for d in review(record, samples=SAMPLES, players=[player]).decisions][: upto + 1]
    rng = random.Random(upto)
    for _ in range(2):
        other = _scrambled(record, player, upto, rng)
        assert other != record
        before = _state_before(other, player, upto)
        assert before.hands != _state_before(record, player, upto).hands  # the other hands did change
        again = review(other, samples=SAMPLES, players=[player]).decisions[: upto + 1]
        assert [replace(d, took=0) for d in again] == [replace(d, took=0) for d in original]


def test_a_seeded_review_repeats_and_another_seed_differs() -> None:
    record = _game(4)
    first = review(record, samples=SAMPLES, seed=5).to_json()
    assert review(record, samples=SAMPLES, seed=5).to_json() == first
    other = review(record, samples=SAMPLES, seed=6).to_json()
    assert other["decisions"] != first["decisions"]
    assert [d["chosen"] for d in other["decisions"]] == [d["chosen"] for d in first["decisions"]]


def test_the_sixth_card_onto_a_full_row_is_a_blunder() -> None:
    # Row 4 (40 41 42 45 46: 8 bullheads) is full; Ana plays 47, its sixth card, with safe cards in hand.
    recorder = Recorder(GameRecord(players=("Ana", "Bruno")))
    ana = (41, 45, 47, 11, 12, 13, 14, 15, 16, 17)
    bruno = (42, 46, 21, 22, 23, 24, 25, 26, 27, 28)
    actions = [Deal((10, 20, 30, 40), (ana, bruno)), PlayCard(0, 41), PlayCard(1, 42), PlayCard(0, 45),
               PlayCard(1, 46), PlayCard(0, 47), PlayCard(1, 21)]
    for action in actions:
        recorder.add(action)
    decision = review(recorder.record, samples=256, players=[0]).decisions[-1]
    assert (decision.chosen, decision.took) == (47, 8)
    assert decision.mark == "blunder"
    assert decision.loss >= 8 - 3  # 8 bullheads now; a safe card costs less than 3 later, whatever happens
    assert decision.best.option != 47


def _decision(loss: float, loss_stderr: float, options: int = 3) -> Decision:
    chosen = Option(1, 5.0 + loss, 0.3, loss, loss_stderr, True)
    rest = [Option(2 + i, 5.0 + i, 0.3, float(i), 0.2 if i else 0.0, False) for i in range(options - 1)]
    return Decision(0, 1, 1, "card", 1, ((1,), (2,), (3,), (4,)), (1, 2, 3), None, (chosen, *rest))


def test_marks_need_their_threshold_and_a_loss_beyond_the_noise() -> None:
    thresholds = dict(MARKS)
    assert _decision(thresholds["blunder"], 0.1).mark == "blunder"
    assert _decision(thresholds["mistake"], 0.1).mark == "mistake"
    assert _decision(thresholds["inaccuracy"], 0.1).mark == "inaccuracy"
    assert _decision(thresholds["inaccuracy"] * 0.9, 0.01).mark is None
    big = thresholds["blunder"] * 2
    assert _decision(big, big / NOISE_Z).mark is None  # within the estimate's noise: never marked
    assert _decision(big, big / NOISE_Z * 0.99).mark == "blunder"
    assert _decision(big, 0.1, options=1).mark is None  # forced


def test_accuracy_curve() -> None:
    assert decision_accuracy(0) == 100
    assert decision_accuracy(ACCURACY_HALF) == pytest.approx(50)
    assert decision_accuracy(2 * ACCURACY_HALF) == pytest.approx(25)


def test_a_broken_record_or_budget_is_refused_clearly() -> None:
    record = _game(5)
    with pytest.raises(ReviewError, match="at least 2 samples"):
        review(record, samples=1)
    bad = replace(record, rounds=(replace(record.rounds[0], turns=record.rounds[0].turns[1:]),))
    with pytest.raises(ReviewError, match="round 1"):
        review(bad, samples=SAMPLES)


def test_a_review_made_in_parts_is_the_whole_review() -> None:
    record = _game(6, players=3, rounds=2)
    whole = review(record, samples=SAMPLES, seed=2)
    parts = [review(record, samples=SAMPLES, seed=2, players=[p], rounds=[r]) for p in (2, 0, 1) for r in (2, 1)]
    assert merge(record, parts) == whole
    with pytest.raises(ReviewError, match="same samples"):
        merge(record, [*parts, review(record, samples=SAMPLES + 1, seed=2, players=[0], rounds=[1])])


def test_the_stored_form_gives_the_review_back() -> None:
    record = _game(7, rounds=2)
    result = review(record, samples=SAMPLES)
    stored = json.loads(json.dumps(to_store(result)))
    again = from_store(record, stored)
    for mine, theirs in zip(again.to_json()["decisions"], result.to_json()["decisions"], strict=True):
        for key in mine.keys() - {"loss", "options"}:
            assert mine[key] == theirs[key]
        assert mine["loss"] == pytest.approx(theirs["loss"], abs=2e-3)
        for a, b in zip(mine["options"], theirs["options"], strict=True):
            assert (a["option"], a["chosen"]) == (b["option"], b["chosen"])
            assert [a[k] for k in ("expected", "stderr", "loss", "loss_stderr")] == pytest.approx(
                [b[k] for k in ("expected", "stderr", "loss", "loss_stderr")], abs=2e-3)
    for mine, theirs in zip(again.players, result.players, strict=True):
        assert mine.accuracy == pytest.approx(theirs.accuracy, abs=0.01)
        assert (mine.marks, mine.costliest) == (theirs.marks, theirs.costliest)
    assert len(json.dumps(stored)) < len(json.dumps(result.to_json())) / 2
    for broken in ({}, {**stored, "format": 9}, {**stored, "decisions": [[1, 1, 0]]}, []):
        with pytest.raises(ReviewError):
            from_store(record, broken)


def test_a_review_made_turn_by_turn_during_the_game_is_the_review_made_after_it() -> None:
    """As a table reviews a game while it is played: after each action, the decisions of the turns
    completed so far, each player's model carried from step to step (pickled, as between a server's
    worker processes); then the whole review. Same seed, same figures."""
    record = _game(8, players=4, rounds=2)
    recorder = Recorder(GameRecord(players=record.players, rules=record.rules))
    done, models, made, steps = 0, None, [], 0
    for action in record.actions():
        recorder.add(action)
        found, done, kept, _ = review_steps(recorder.record, done, pickle.loads(pickle.dumps(models)),
                                            samples=SAMPLES, seed=3, budget=60)
        models = kept
        made += found
        steps += bool(found)
    while True:  # the last steps of the game over: what the budget left
        found, done, models, ended = review_steps(recorder.record, done, models, samples=SAMPLES, seed=3, budget=60)
        made += found
        if done == ended:
            break
    assert steps > 20
    whole = review(record, samples=SAMPLES, seed=3)
    assert finish(record, made, samples=SAMPLES, seed=3) == whole
    assert finish(record, made, samples=SAMPLES, seed=3).to_json() == whole.to_json()


def test_steps_cut_by_the_clock_give_the_same_review() -> None:
    """A busy worker makes shorter steps (``seconds``: one decision each at 0 s), never other figures."""
    record = _game(5, players=3)
    done, models, made, steps = 0, None, [], 0
    while True:
        found, done, models, ended = review_steps(record, done, models, samples=SAMPLES, seed=1, seconds=0.0)
        assert len(found) == 1
        made += found
        steps += 1
        if done == ended:
            break
    assert steps == len(list(moments(record)))
    assert finish(record, made, samples=SAMPLES, seed=1) == review(record, samples=SAMPLES, seed=1)


@pytest.mark.parametrize("kind", ["card", "row"])
def test_a_sample_is_the_same_deal_for_every_option_whichever_are_played(kind: str) -> None:
    """Common random numbers: sample s of an option is the same number whether the other options are
    played beside it or not, and wherever the run of samples starts."""
    from nimmt.batch import review_penalties as penalties
    from nimmt.bots.styles import policies_of, seats_of

    record = _game(2, players=4)
    wanted = next((m for m, _ in moments(record) if m.kind == kind), None)
    if wanted is None:
        pytest.skip("no row choice in this game")
    seen = view(wanted.state, wanted.player)
    labels = list(seen.hand) if kind == "card" else [0, 1, 2, 3]
    seats = policies_of(seats_of(("mc", "random", "snug", "heuristic")), None)
    every = penalties(seen, kind, labels, 0, 40, 7, seats)
    for i in (0, len(labels) - 1):
        alone = penalties(seen, kind, [labels[i]], 10, 30, 7, seats)
        assert alone[0].tolist() == every[i, 10:].tolist()
    assert penalties(seen, kind, labels, 0, 40, 8, seats).tolist() != every.tolist()

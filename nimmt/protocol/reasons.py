"""Why a bot program failed, and what it was doing then, as keys with facts.

A reason names one way a program fails (``"timeout"``, ``"not_in_hand"``...); its facts are the values
the message shows (seconds, a card, a hand, the program's answer as quoted), all as text. The English
detail of a :class:`~nimmt.protocol.BotFailure` is made from them here, so the English text (for logs,
``str()`` and ``--json``) and the translated one (``fail_<reason>`` and ``doing_<key>`` in the ``sim``
messages of :mod:`nimmt.i18n`) can never drift apart.

>>> detail_text("timeout", {"seconds": "0.5"}), doing_text("row_for", {"card": "7"})
('did not answer within 0.5 s', 'choosing a row for card 7')
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import NamedTuple


class Reason(NamedTuple):
    kind: str  # the FailureKind value
    text: str  # English, with the facts as {placeholders}


REASONS: Mapping[str, Reason] = {
    "cannot_start": Reason("cannot_start", "could not be started ({reason})"),
    "closed_output": Reason("crashed", "closed its output but kept running"),
    "was_closed": Reason("crashed", "was closed and cannot play any more"),
    "signal": Reason("crashed", "was killed by signal {signal}"),
    "exit_code": Reason("crashed", "exited with code {code}"),
    "timeout": Reason("timeout", "did not answer within {seconds} s"),
    "invalid_json": Reason("invalid_json", "answered {answer}, which is not JSON that nimmt can read"),
    "too_long": Reason("too_long", "answered with a line longer than {limit} bytes"),
    "bad_hello": Reason("bad_answer", 'answered the hello with {answer} instead of {{"type": "ready"}}'),
    "extra_line": Reason("bad_answer", "wrote more than one line for its previous answer ({answer})"),
    "not_object": Reason(
        "bad_answer", 'the answer must be a JSON object like {{"card": 17}} or {{"row": 2}}, not {answer}'
    ),
    "card_or_row": Reason("bad_answer", 'the answer must hold exactly one of "card" or "row", not {answer}'),
    "card_not_number": Reason("bad_answer", "the card must be a whole number, not {answer}"),
    "row_not_number": Reason("bad_answer", "the row must be a whole number, not {answer}"),
    "card_for_row": Reason("wrong_kind", "answered card {card} but was asked to choose a row for card {asked}"),
    "card_unasked": Reason("wrong_kind", "answered card {card} but no card is expected from it now"),
    "row_for_card": Reason("wrong_kind", "answered row {row} but was asked to play a card"),
    "row_unasked": Reason("wrong_kind", "answered row {row} but no row is expected from it now"),
    "row_for_card_plain": Reason("wrong_kind", "chose a row when a card was asked"),
    "card_for_row_plain": Reason("wrong_kind", "played a card when a row was asked"),
    "not_in_hand": Reason("illegal_action", "played card {card}, which is not in its hand {hand}"),
    "no_such_row": Reason("illegal_action", "chose row {row}, which does not exist: rows are 0 to {last}"),
}

DOINGS: Mapping[str, str] = {  # what the program was asked to do, in English, with its facts as {placeholders}
    "start": "starting",
    "hello": "starting (answering hello)",
    "row_for": "choosing a row for card {card}",
    "card_in": "choosing a card in round {round}, turn {turn}",
    "card": "choosing a card",
    "row": "choosing a row",
}


def facts_of(values: Mapping[str, object]) -> dict[str, str]:
    """Facts as text, the form a failure keeps them in (plain, picklable, JSON-ready)."""
    return {name: str(value) for name, value in values.items()}


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def detail_text(reason: str, facts: Mapping[str, str]) -> str:
    """The English detail of ``reason`` with its facts; a missing fact is a bug, so it raises KeyError."""
    return REASONS[reason].text.format_map(facts)


def doing_text(key: str, facts: Mapping[str, str]) -> str:
    return DOINGS[key].format_map(facts)

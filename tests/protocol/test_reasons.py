"""A bot program's failure carries its reason and facts as keys, set where it is raised, with a message for
each in every language; the English text is made from the same keys."""

from __future__ import annotations

import ast
import signal
from pathlib import Path
from typing import Any

import pytest

from nimmt.cli._common import failure_message
from nimmt.i18n import LANGUAGES, catalog, translator
from nimmt.protocol import FailureKind
from nimmt.protocol.process import _exit_reason
from nimmt.protocol.reasons import DOINGS, REASONS, placeholders

PROTOCOL = Path(__file__).resolve().parents[2] / "nimmt" / "protocol"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_and_doing_has_a_message_with_the_same_facts_in_every_language(language: str) -> None:
    messages = catalog(language, "sim")
    for reason, (kind, text) in REASONS.items():
        assert kind in set(FailureKind), reason
        assert placeholders(messages[f"fail_{reason}"]) == placeholders(text), (language, reason)
    for key, text in DOINGS.items():
        assert placeholders(messages[f"doing_{key}"]) == placeholders(text), (language, key)


def _reasons_raised(path: Path) -> tuple[set[str], int]:
    """The reasons ``path`` raises by name, and how many raise sites give a reason that is not a literal."""
    named: set[str] = set()
    computed = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("_fail", "refused")):
            continue
        first = node.args[0]
        choices = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
        for choice in choices:
            if isinstance(choice, ast.Constant) and isinstance(choice.value, str):
                named.add(choice.value)
            else:
                computed += 1
    return named, computed


def test_every_raise_site_names_a_known_reason_and_every_reason_is_raised_somewhere() -> None:
    from_process, computed = _reasons_raised(PROTOCOL / "process.py")
    from_answers, none_computed = _reasons_raised(PROTOCOL / "encoding.py")
    assert computed == 1 and none_computed == 0  # the one computed reason: how the program stopped
    stopped = {_exit_reason(code)[0] for code in (None, -signal.SIGKILL, 1)}
    assert from_process | from_answers | stopped == set(REASONS)
    # BotFailure is built in one place only, which is handed a reason by every path to it
    source = (PROTOCOL / "process.py").read_text(encoding="utf-8")
    assert source.count("BotFailure(\n") == 1 and source.count("self._failed(") == 2


@pytest.mark.parametrize(
    ("code", "reason", "facts"),
    [(None, "closed_output", {}), (-signal.SIGKILL, "signal", {"signal": "SIGKILL"}), (-200, "signal", {"signal": 200}),
     (0, "exit_code", {"code": 0}), (3, "exit_code", {"code": 3})],
)
def test_how_a_program_stopped(code: int | None, reason: str, facts: dict[str, object]) -> None:
    assert _exit_reason(code) == (reason, facts)


def test_the_translation_follows_the_reason_not_the_english_words() -> None:
    facts = {"card": "17", "hand": "[1, 2, 3]"}
    fields: dict[str, Any] = {"bot": "b", "seat": 0, "kind": "illegal_action", "detail": "tried to sneak in card 17",
              "doing": "choosing a card in round 2, turn 5", "exit_code": None, "stderr": [],
              "reason": "not_in_hand", "facts": facts,
              "doing_key": "card_in", "doing_facts": {"round": "2", "turn": "5"}}
    for language in LANGUAGES:
        _ = translator(language, "sim")
        what, when = _("fail_not_in_hand", **facts), _("doing_card_in", round="2", turn="5")
        assert failure_message(fields, _) == _("fail_message", where=_("fail_where_seat", bot="'b'", seat=0),
                                               what=what, when=when)


def test_a_failure_without_a_reason_keeps_its_english_detail_after_the_translated_kind() -> None:
    fields: dict[str, Any] = {"bot": "b", "seat": None, "kind": "bad_answer", "detail": "a spectator cannot act",
              "doing": "choosing a card", "exit_code": None, "stderr": [], "reason": None, "facts": {},
              "doing_key": "card", "doing_facts": {}}
    _ = translator("fr", "sim")
    what = f"{_('fail_kind_bad_answer')} (a spectator cannot act)"
    assert failure_message(fields, _) == _("fail_message", where=_("fail_where", bot="'b'"), what=what,
                                           when=_("doing_card"))

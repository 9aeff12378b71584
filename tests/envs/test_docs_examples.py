"""The examples in docs/environments.md run as written."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def examples() -> list[str]:
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def test_the_document_has_its_three_examples() -> None:
    assert len(examples()) == 3


@pytest.mark.parametrize("index", [0, 1, 2])
def test_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the example starts examples/node-bot/bot.js by a relative path
    scope: dict[str, object] = {}
    exec(compile(examples()[index], f"environments.md example {index + 1}", "exec"), scope)
    if index == 0:
        env = scope["env"]
        assert env.agents == []  # type: ignore[attr-defined]  # the game ran to its end
    elif index == 1:
        assert scope["terminated"] is True
        assert "winners" in scope["info"]  # type: ignore[operator]
    else:
        assert scope["games"] >= 300  # type: ignore[operator]

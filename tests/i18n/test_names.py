"""Players' names: what is refused, removed and kept (UTS #39, UAX #9), and how they are drawn."""

from __future__ import annotations

import unicodedata

import pytest

from nimmt.names import FSI, PDI, NameRefused, clean_name, isolated, needs_isolation, shown


@pytest.mark.parametrize("name", [
    "Ana", "Zoé", "Ναυσικά", "Бруно", "محمد", "דוד", "明美", "김민준", "प्रिया", "ศรีสุข", "Ана-Мария",
    "👩\u200d👩\u200d👧", "می\u200cخواهم", "O'Brien", "Jean Luc",
])
def test_letters_of_every_script_stay(name: str) -> None:
    assert clean_name(name) == unicodedata.normalize("NFC", name)


@pytest.mark.parametrize("name, key", [
    ("Ana\x00", "control"), ("Ana\tB", "control"), ("Ana\nB", "control"), ("\x1b[2JAna", "control"),
    ("Ana\x85", "control"), ("Ana\x9b", "control"), ("Ana\x7f", "control"),
    ("Ana\u202e", "direction"), ("\u202dAna", "direction"), ("\u202aA\u202c", "direction"), ("A\u2067B", "direction"),
    ("\u2068Ana\u2069", "direction"),
    ("x" + "\u0301" * 5, "marks"), ("A" * 25, "long"), ("   ", "empty"), ("\u200b\u2060\ufeff", "empty"),
    ("\u00a0\u3000\u2029", "empty"),
])
def test_refused_names_say_why(name: str, key: str) -> None:
    with pytest.raises(NameRefused) as caught:
        clean_name(name)
    assert caught.value.key == key


def test_invisible_characters_and_spaces_are_made_plain() -> None:
    assert clean_name("  Ana\u00a0\u00a0 Maria\u3000") == "Ana Maria"
    assert clean_name("A\u200bn\u00ada\u200e\u200f\ufeff") == "Ana"
    assert clean_name("Zoe\u0301") == "Zoé"  # NFC: one name however it was typed
    assert clean_name("a" + "\u0301" * 3) == unicodedata.normalize("NFC", "a" + "\u0301" * 3)
    assert clean_name("A" * 24) == "A" * 24


def test_any_name_can_be_drawn() -> None:
    assert shown("Ana\u202eonim") == "Anaonim"
    assert shown("Ana\x1b[31m") == "Ana\ufffd[31m"
    assert shown("x" + "\u0301" * 50) == "x" + "\u0301" * 4
    assert shown("\u202e") == "\ufffd"  # never an empty name
    assert isolated("Ana\u202eBruno") == f"{FSI}AnaBruno{PDI}"
    assert isolated("Ana", always=False) == "Ana"
    assert isolated("محمد", always=False) == f"{FSI}محمد{PDI}"
    assert isolated("Ana 42", always=False) == "Ana 42"
    assert needs_isolation("Ana\u202e") and needs_isolation("٣") and not needs_isolation("Ana-3")

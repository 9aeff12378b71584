"""One registry of refusals (nimmt.refusals.Refusal): every code raised in nimmt/ is a member, every
member has a text in each of the six languages, and the status maps agree with it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nimmt
from nimmt.i18n import LANGUAGES
from nimmt.refusals import Refusal
from nimmt.server.routes.common import ACTION_STATUS
from nimmt.server.routes.people import PEOPLE_STATUS
from nimmt.server.routes.scoresheet import SHEET_CODES
from nimmt.server.tables.errors import CORE_ERROR_CODES

ROOT = Path(nimmt.__file__).parent
LOCALES = ROOT / "i18n" / "locales"
# The catalogs the pages that show refusals load (nimmt.server.pages: web and lobby always).
CATALOGS = ("web", "lobby", "people", "chat", "learn", "table")
# What makes a refusal, whatever its class: the first argument that looks like a code is the code.
REFUSERS = frozenset({"ActionError", "ApiError", "PeopleError", "ChatRefused", "CheckRefused", "error_response",
                      "_refuse"})
CODE = re.compile(r"^[a-z][a-z0-9_]*$")


def raised_codes(root: Path) -> dict[str, list[str]]:
    """code -> where it is raised: the codes written at the refusals' raise sites (a code argument, a
    ``code=`` keyword, a ``(status, code, ...)`` tuple, a worker's ``return "code", message``)."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        where = str(path.relative_to(root.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            codes: list[str] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if name in REFUSERS:
                    literal = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                               and CODE.match(a.value)]
                    codes += literal[:1]
                codes += [k.value.value for k in node.keywords if k.arg == "code" and isinstance(k.value, ast.Constant)
                          and isinstance(k.value.value, str)]
            elif isinstance(node, ast.Tuple) and len(node.elts) >= 2:
                first, second = node.elts[0], node.elts[1]
                if (isinstance(first, ast.Constant) and isinstance(first.value, int) and 400 <= first.value < 600
                        and isinstance(second, ast.Constant) and isinstance(second.value, str)
                        and CODE.match(second.value)):
                    codes.append(second.value)  # (414, "url_too_long", ...)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
                code, message = node.value.elts
                if (isinstance(code, ast.Constant) and isinstance(code.value, str) and CODE.match(code.value)
                        and code.value != "ok" and not (isinstance(message, ast.Constant)
                                                        and not isinstance(message.value, str))
                        and path.name in ("checker.py", "review_jobs.py", "uploads.py")):
                    codes.append(code.value)  # a worker's answer: ("bad_record", "why")
            for code in codes:
                found.setdefault(code, []).append(f"{where}:{getattr(node, 'lineno', 0)}")
    return found


def texts(language: str) -> set[str]:
    keys: set[str] = set()
    for name in CATALOGS:
        path = LOCALES / language / f"{name}.json"
        if path.is_file():
            keys |= {key for key in json.loads(path.read_text(encoding="utf-8")) if key.startswith("error_")}
    return keys


def test_every_raised_code_is_a_member() -> None:
    raised = raised_codes(ROOT)
    assert len(raised) > 60  # the scan still finds the raise sites
    unknown = {code: places for code, places in raised.items() if code not in Refusal.__members__.values()}
    assert not unknown, f"codes raised but not in nimmt.refusals.Refusal: {unknown}"


def test_the_codes_the_registries_make_are_members() -> None:
    made = {*SHEET_CODES.values(), "sheet_error", *(code for _, code in CORE_ERROR_CODES), *ACTION_STATUS,
            *PEOPLE_STATUS, "not_found", "method_not_allowed", "http_error"}
    assert made - set(Refusal) == set()


def test_every_member_has_a_text_in_every_language() -> None:
    for language in LANGUAGES:
        missing = sorted(f"error_{code}" for code in Refusal if f"error_{code}" not in texts(language))
        assert not missing, f"{language}: no text for {missing}"


def test_the_status_maps_agree_with_the_registry() -> None:
    assert {code: Refusal(code).status for code in ACTION_STATUS} == ACTION_STATUS
    assert {code: Refusal(code).status for code in PEOPLE_STATUS} == PEOPLE_STATUS


def test_a_member_is_its_code() -> None:
    assert Refusal.UNKNOWN_TABLE == "unknown_table" and Refusal("stale") is Refusal.STALE
    assert Refusal.UNKNOWN_TABLE.status == 404 and Refusal.HELLO_FIRST.status is None
    assert json.dumps({"code": Refusal.TABLE_FULL}) == '{"code": "table_full"}'

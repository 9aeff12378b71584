"""``nimmt rules``: the rules of the classic edition and a short FAQ, in the user's language."""

from __future__ import annotations

import io
import re
import sys
from typing import Annotated, TextIO

import typer

from nimmt.i18n import LANGUAGES, UnknownLanguage, check_language, from_environment, text, translator

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


def plain(markdown: str) -> str:
    """The page as plain text for pipes and files: headings underlined, no Markdown marks.

    >>> print(plain("# Rules\\n\\nA **bold** `word`.\\n\\n## Cards\\n### Sixth"), end="")
    Rules
    =====
    <BLANKLINE>
    A bold word.
    <BLANKLINE>
    Cards
    -----
    Sixth
    """
    lines: list[str] = []
    for line in markdown.splitlines():
        line = line.replace("**", "").replace("`", "")
        heading = _HEADING.match(line)
        if heading is None:
            lines.append(line)
            continue
        title = heading.group(2)
        lines.append(title)
        if len(heading.group(1)) <= 2:
            lines.append(("=" if len(heading.group(1)) == 1 else "-") * len(title))
    return "\n".join(lines).rstrip("\n") + "\n"


def _writable(stream: TextIO) -> TextIO:
    # A terminal or pipe in a narrow encoding (latin-1, ascii) must not crash on "œ" or "ã".
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="replace")
    return stream


def show_rules(language: str, stream: TextIO | None = None) -> None:
    """Print the rules page of ``language``: rendered on a terminal, plain text otherwise."""
    out = _writable(sys.stdout if stream is None else stream)
    page = text(language, "rules")
    if out.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console(file=out).print(Markdown(page))
    else:
        out.write(plain(page))
        out.flush()


def register(app: typer.Typer) -> None:
    @app.command("rules")
    def rules(
        lang: Annotated[
            str | None,
            typer.Option(
                "--lang",
                "-l",
                metavar="LANG",
                help=f"Language of the page: {', '.join(LANGUAGES)} (default: from your locale; pt = pt-PT).",
            ),
        ] = None,
    ) -> None:
        """Print the rules of the classic edition and a short FAQ."""
        if lang is None:
            language = from_environment()
        else:
            try:
                language = check_language(lang)
            except UnknownLanguage:
                # Say it in the user's own language, since the one asked for is unknown.
                _ = translator(from_environment(), "common")
                message = _("unknown_language", code=lang, choices=", ".join(LANGUAGES))
                _writable(sys.stderr).write(f"nimmt rules: {message}\n")
                raise typer.Exit(2) from None
        show_rules(language)

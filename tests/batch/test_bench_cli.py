"""``nimmt bench``: the table and the JSON, on a tiny run."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from nimmt.batch import HAVE_NUMBA
from nimmt.cli.main import app


def test_bench_prints_every_engine_and_the_machine() -> None:
    result = CliRunner().invoke(app, ["bench", "--players", "2,10", "--hands", "4000", "--repeats", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    engines = ["core", "fast", "numpy", *(["numba"] if HAVE_NUMBA else [])]
    assert [(f["players"], f["engine"]) for f in data["figures"]] == [(n, e) for n in (2, 10) for e in engines]
    assert all(f["hands_per_second"] > 0 and f["games_per_second"] > 0 for f in data["figures"])
    assert data["machine"]["cores"] >= 1 and data["machine"]["python"]


def test_bench_table_and_bad_options() -> None:
    runner = CliRunner()
    options = ["--players", "3", "--hands", "2000", "--repeats", "1", "--engines", "fast,numpy"]
    table = runner.invoke(app, ["bench", *options])
    assert table.exit_code == 0, table.output
    assert "machine:" in table.output and "numpy" in table.output and "hands/s" in table.output
    bad = runner.invoke(app, ["bench", "--players", "1,4"])
    assert bad.exit_code == 2 and "2 to 10 players" in bad.output
    bad = runner.invoke(app, ["bench", "--engines", "gpu"])
    assert bad.exit_code == 2 and "unknown engine" in bad.output

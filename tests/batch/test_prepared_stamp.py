"""The stamp that says the kernels are prepared follows what they compile: the contents of the
engine's files and of the core's placement (``core/fast.py``), not the files' times."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from nimmt.batch import cache


def test_the_stamp_follows_the_kernel_sources_contents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not cache.compiled_engine():
        pytest.skip("nothing is compiled without Numba")  # pragma: no cover
    folder = tmp_path / "batch"
    shutil.copytree(Path(cache.__file__).parent, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "kernels_folder", lambda: folder)
    before = cache.fingerprint()
    assert "fast.py:" in before  # the kernels compile the core's placement too
    kernels = folder / "_kernels.py"
    os.utime(kernels, ns=(0, 0))  # a checkout that leaves the sources as they were
    assert cache.fingerprint() == before
    kernels.write_text(kernels.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert cache.fingerprint() != before

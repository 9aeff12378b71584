"""The compiled kernels' cache, looked at without loading NumPy or Numba: whether kernels run compiled
here, whether :mod:`nimmt.prepare` has filled the cache for these sources, and the lock that makes
processes preparing at the same time take turns.

The bots ask here whether to run their kernels compiled; :mod:`nimmt.prepare` (which makes one of
each bot's and the coach's decisions to compile them) fills the cache and stamps it. Keeping these
looks below the bots means no import runs from the bots back up to :mod:`nimmt.prepare`.

Processes that prepare at the same time take turns (a lock file per Numba cache): one compiles,
the others then load what it kept, instead of each compiling the same kernels side by side. A
stamp beside the lock says the cache was filled (:func:`is_prepared`), so that a terminal command
can say at once that a first run prepares the bots.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def compiled_engine() -> bool:
    """Whether the compiled kernels run here (NumPy and Numba installed, not turned off)."""
    if importlib.util.find_spec("numpy") is None or importlib.util.find_spec("numba") is None:
        return False
    return os.environ.get("NIMMT_BATCH_ENGINE", "auto") in ("", "auto", "numba")


def kernels_folder() -> Path | None:
    """The folder of :mod:`nimmt.batch`'s sources (the kernels' cache lives beside them by default)."""
    spec = importlib.util.find_spec("nimmt.batch")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def _lock_path() -> Path:
    """One lock per Numba cache: the kernels' folder, or ``NUMBA_CACHE_DIR`` when set."""
    where = os.environ.get("NUMBA_CACHE_DIR") or str(kernels_folder())
    name = hashlib.sha256(os.path.realpath(where).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"nimmt-prepare-{name}.lock"


def _stamp_path() -> Path:
    return _lock_path().with_suffix(".prepared")


def fingerprint() -> str:
    """What the cache's kernels depend on: Numba's and Python's versions and the contents of the
    sources the kernels compile (the engine's files and the core's placement, ``core/fast.py``), as
    the kernels' own cache keys them: a checkout that leaves them the same is still prepared."""
    from importlib.metadata import version  # not Numba itself: a server looks here without loading it

    folder = kernels_folder()
    files = sorted(folder.glob("*.py")) if folder else []
    fast = importlib.util.find_spec("nimmt.core.fast")
    if fast is not None and fast.origin:
        files.append(Path(fast.origin))
    digests = [f"{path.name}:{hashlib.sha256(path.read_bytes()).hexdigest()}" for path in files]
    return "\n".join([version("numba"), sys.version, *digests]) + "\n"


@contextlib.contextmanager
def taking_turns() -> Iterator[float]:
    """Hold the lock of this Numba cache (waiting for another process that prepares); yields the wait."""
    start = time.perf_counter()
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Windows: processes then compile side by side
        yield 0.0
        return
    with open(_lock_path(), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield time.perf_counter() - start
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def mark_prepared() -> None:
    """Stamp the cache as filled for the sources as they are now (what :func:`is_prepared` looks at)."""
    with contextlib.suppress(OSError):
        _stamp_path().write_text(fingerprint())


def is_prepared() -> bool:
    """Whether :func:`nimmt.prepare.prepare` has run since the engine's source or Numba last changed
    (or there is nothing to compile): a quick look at its stamp, compiling nothing. (A cache emptied
    by hand since is not seen: the first run then compiles without saying so at once.)"""
    if not compiled_engine():
        return True
    try:
        return _stamp_path().read_text() == fingerprint()
    except OSError:
        return False

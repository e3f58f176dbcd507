"""The one owner of the cyclic garbage collector's settings: on/off, frozen objects, thresholds.

The collector is process-wide, and several parts of rubric-lsp want it set for a while: reading
a document pauses it, the language server holds it off while starting, the judge freezes what
importing litellm left behind, a long grading freezes its dataset and makes young collections
rarer. Each asks here, never ``gc`` itself (tests/test_runtime_gc.py fails on an ``import gc``
elsewhere in the package), so one user's end never undoes another's setting:

- ``paused()`` / ``hold_start_up`` + ``start_up_done``: collection off until the last pause or
  hold ends, then on again only if it was on when the first began (an embedding program that
  runs with the collector off keeps it off). Counted, and safe across threads (the server reads
  documents on threads).
- ``freeze_for_good()``: what exists now lives for the whole process (modules, start-up state):
  out of every collection from now on.
- ``frozen()``: what exists now is out of collections while the block runs. ``gc.unfreeze`` cannot
  tell one freeze from another, so the outermost block unfreezes only when nothing was frozen for
  good meanwhile or before; otherwise its objects stay frozen (a frozen object is still freed when
  its reference count drops; only cycles among them wait for the process's end).
- ``young_threshold(n)``: young collections no more often than every ``n`` allocations while the
  block runs; the outermost block restores the threshold.
"""

from __future__ import annotations

import _thread
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_lock = _thread.RLock()  # threading.RLock() is this one: without importing threading on the lint path
_pauses = 0  # paused() blocks and the start-up hold, nested or concurrent
_resume = False  # whether the collector was on when the first pause began
_holding_start_up = False
_frozen_depth = 0
_frozen_for_good = False
_threshold_depth = 0
_saved_threshold: tuple[int, ...] = ()
_no_sweep_at_exit = False


def _pause() -> None:
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1


def _unpause() -> None:
    global _pauses
    with _lock:
        _pauses -= 1
        if _pauses == 0 and _resume:
            gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """No collection while the block runs (nested and concurrent blocks: until the last one ends)."""
    _pause()
    try:
        yield
    finally:
        _unpause()


def hold_start_up() -> None:
    """Hold collection off while a process starts (until ``start_up_done``): start-up builds many
    thousands of objects that all live on, so collecting while building them only costs time."""
    global _holding_start_up
    with _lock:
        if not _holding_start_up:
            _holding_start_up = True
            _pause()


def start_up_done() -> None:
    """End the start-up hold: what start-up built is frozen for good, collection resumes (unless a
    pause is still running: then when it ends). Idempotent; nothing without a hold."""
    global _holding_start_up
    with _lock:
        if not _holding_start_up:
            return
        _holding_start_up = False
        freeze_for_good()
        _unpause()


def no_sweep_at_exit() -> None:
    """At the interpreter's exit, skip its last collection: what exists then is frozen (an ``atexit``
    hook), so the exit frees it by reference counts alone, as it frees everything else.

    For a command that ends its process (``rubric grade``): that collection walks every object the run
    still holds (a dataset's items and results, the HTTP client's state) for cycles no one will use,
    ~0.15 s of CPU after a 1,000-item grading, a tenth of its start-up (issue 36). What it would have
    freed are cycles; the process's files, run file and caches are closed and its output flushed
    before then (``atexit`` hooks, ``weakref.finalize``, the interpreter's own flush of stdout and
    stderr), so nothing is lost but a ``__del__`` of an unreachable cycle that was never closed.
    Harmless when called in a process that goes on (a test calling the command in-process): its
    objects are frozen only when it exits. Idempotent."""
    global _no_sweep_at_exit
    with _lock:
        if _no_sweep_at_exit:
            return
        _no_sweep_at_exit = True
    import atexit

    atexit.register(gc.freeze)


def freeze_for_good() -> None:
    """Take every object that exists now out of the collector for the rest of the process."""
    global _frozen_for_good
    with _lock:
        _frozen_for_good = True
        gc.freeze()


@contextmanager
def frozen() -> Iterator[None]:
    """What exists when the outermost block starts is out of collections until it ends (see the
    module docstring for what a freeze for good meanwhile changes)."""
    global _frozen_depth
    with _lock:
        if _frozen_depth == 0:
            gc.freeze()
        _frozen_depth += 1
    try:
        yield
    finally:
        with _lock:
            _frozen_depth -= 1
            if _frozen_depth == 0 and not _frozen_for_good:
                gc.unfreeze()


@contextmanager
def young_threshold(at_least: int) -> Iterator[None]:
    """Young collections after no fewer than ``at_least`` allocations while the block runs."""
    global _threshold_depth, _saved_threshold
    with _lock:
        if _threshold_depth == 0:
            _saved_threshold = gc.get_threshold()
            gc.set_threshold(max(_saved_threshold[0], at_least), *_saved_threshold[1:])
        _threshold_depth += 1
    try:
        yield
    finally:
        with _lock:
            _threshold_depth -= 1
            if _threshold_depth == 0:
                gc.set_threshold(*_saved_threshold)

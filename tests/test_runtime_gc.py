"""The garbage collector has one owner (``rubric_lsp/runtime/gc.py``): no user undoes another's setting."""

from __future__ import annotations

import ast
import gc
import threading

import pytest

from rubric_lsp.engine.windowed import YOUNG_COLLECTION_THRESHOLD, quiet_collector
from rubric_lsp.runtime import gc as collector
from tests.import_graph import module_files

OWNER = "rubric_lsp.runtime.gc"


def test_no_module_but_the_owner_touches_gc():
    found = []
    for module, path in module_files().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if "gc" in names and module != OWNER:
                found.append(f"{module}:{node.lineno}")
    assert not found, f"ask rubric_lsp.runtime.gc instead of importing gc: {found}"


@pytest.fixture
def fresh(monkeypatch):
    """The owner as a new process has it (nothing paused, held or frozen); the collector restored after."""
    enabled, threshold, frozen_before = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    state = {
        "_pauses": 0,
        "_resume": False,
        "_holding_start_up": False,
        "_frozen_depth": 0,
        "_frozen_for_good": False,
        "_threshold_depth": 0,
    }
    for name, value in state.items():
        monkeypatch.setattr(collector, name, value)
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    if frozen_before:
        gc.freeze()
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


def is_frozen(thing: object) -> bool:
    """In the permanent generation: tracked, yet in none of the collected ones."""
    return gc.is_tracked(thing) and not any(other is thing for other in gc.get_objects())


def test_a_grading_inside_a_frozen_section_leaves_the_outer_freeze(fresh):
    outer_object: list[object] = []
    with collector.frozen():
        assert is_frozen(outer_object)
        with quiet_collector():
            assert gc.get_threshold()[0] >= YOUNG_COLLECTION_THRESHOLD
        assert is_frozen(outer_object)  # the inner block's end unfroze nothing
    assert not is_frozen(outer_object) and gc.get_freeze_count() == 0  # the outermost block's end did


def test_a_grading_never_unfreezes_what_was_frozen_for_good(fresh):
    module_state: list[object] = []
    collector.freeze_for_good()  # litellm's modules (transports.load_litellm), the server's start-up
    with quiet_collector():
        pass
    assert is_frozen(module_state)
    imported_meanwhile: list[object] = []
    with quiet_collector():
        imported_meanwhile.append(1)
        collector.freeze_for_good()  # litellm first imported during a grading
    assert is_frozen(module_state) and is_frozen(imported_meanwhile)


def test_a_grading_alone_restores_the_collector(fresh):
    before = gc.get_threshold()
    with quiet_collector():
        assert gc.get_threshold()[0] == max(before[0], YOUNG_COLLECTION_THRESHOLD)
        with quiet_collector():  # a second grading meanwhile
            pass
        assert gc.get_threshold()[0] == max(before[0], YOUNG_COLLECTION_THRESHOLD) and gc.get_freeze_count() > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_read_during_start_up_does_not_end_the_start_up_hold(fresh):
    collector.hold_start_up()
    assert not gc.isenabled()
    with collector.paused():  # a document read while the server starts
        pass
    assert not gc.isenabled()  # still held: only start_up_done ends it
    with collector.paused():
        collector.start_up_done()  # the first lint ends start-up while another read runs
        assert not gc.isenabled() and gc.get_freeze_count() > 0
    assert gc.isenabled()
    later: list[object] = []
    with collector.paused():
        collector.start_up_done()  # the 5 s timer, later, during a read: nothing to end
        assert not gc.isenabled() and not is_frozen(later)
    assert gc.isenabled()


def test_pauses_leave_a_collector_that_was_off_off(fresh):
    gc.disable()  # a program embedding the linter runs without the collector
    with collector.paused():
        pass
    assert not gc.isenabled()
    collector.start_up_done()  # no hold: nothing happens
    assert not gc.isenabled() and gc.get_freeze_count() == 0


def test_concurrent_pauses_resume_once_the_last_ends(fresh):
    inside, release = threading.Barrier(3), threading.Event()

    def read() -> None:
        with collector.paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=read) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for thread in threads:
        thread.join()
    assert gc.isenabled()

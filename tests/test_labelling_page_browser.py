"""The labelling page driven in real headless Chromium: a dozen items labelled on two criteria with the keyboard
and the mouse, undo, a second run resuming where the first stopped, the judge's verdicts hidden until answered;
the dataset's bytes checked after every step against text built by plain replacement, and autorubric 1.6.1's
own loader reading the result."""

from __future__ import annotations

import json
import os

import pytest

from rubric_lsp.cli import main
from rubric_lsp.labelling.page.server import LabellingServer
from rubric_lsp.labelling.session import Options, Session
from tests import label_browser
from tests.conftest import REPO, use_judge
from tests.labelling_data import UNLABELLED, dataset_text, judge_reply, labelled_text, write_dataset

pytestmark = pytest.mark.skipif(not label_browser.available(), reason="Chromium is not installed")

# What the labeller gives each item: (polite, tone); the judge says MET/Cold on even items, UNMET/Warm on odd.
CHOICES = {n: ("MET" if n % 3 else "UNMET", "Warm" if n % 4 else "Cold") for n in range(1, UNLABELLED + 1)}
KEY_OF = {"MET": "1", "UNMET": "2", "Cold": "1", "Warm": "2"}


@pytest.fixture
def graded(judge_server, tmp_path, monkeypatch, capfd):
    """The dataset and a real grading of it (rubric grade --format json against the test judge)."""
    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.handler = judge_reply
    path = write_dataset(tmp_path)
    code = main(["grade", str(path), "--format", "json", "--no-shuffle"])
    out, err = capfd.readouterr()
    assert code == 0, err
    grading = tmp_path / "grading.json"
    grading.write_text(out, encoding="utf-8")
    return path, grading


def serve(path, grading, labeller="ann"):
    session = Session(path, Options(labeller=labeller, sources=(grading,)))
    server = LabellingServer(session)
    server.start()
    return server


async def state(page):
    return await page.evaluate(
        "fetch('/api/state', {headers: {'X-Rubric-Token': new URLSearchParams(location.search).get('token')}}).then(r => r.json())"
    )


async def shown_item(page) -> int:
    title = await page.wait_for("document.getElementById('item-title').textContent")
    assert title.startswith("Item "), title
    return int(title.split()[1].rstrip(":"))


async def answer_item(page, path, expected_before):
    """Label the item shown with the keyboard (its number: the page's order, what a label there teaches); the
    file is untouched until both criteria are labelled. Its number."""
    n = await shown_item(page)
    polite, tone = CHOICES[n]
    # Blind: no verdict of the judge's, no reason of its, until the unit is answered.
    assert await page.evaluate("document.querySelectorAll('[data-judge]').length") == 0
    assert await page.evaluate("document.querySelectorAll('[data-judge-hidden]').length") == 2
    assert f"reason-{n}" not in await page.evaluate("document.body.innerText")
    await page.key(KEY_OF[polite])
    await page.wait_for("document.querySelector('[data-unit=polite]').dataset.answered === '1'")
    await page.settled()
    assert path.read_text(encoding="utf-8") == expected_before  # half an item: autorubric reads no partial list
    shown = await page.evaluate("document.querySelector('[data-unit=polite] [data-judge]').dataset.judge")
    assert shown == ("MET" if n % 2 == 0 else "UNMET")
    assert await page.evaluate("document.querySelectorAll('[data-unit=tone] [data-judge]').length") == 0
    assert f"tone-reason-{n}" not in await page.evaluate("document.body.innerText")
    await page.key(KEY_OF[tone])
    await page.wait_for("document.querySelector('[data-unit=tone]').dataset.answered === '1'")
    await page.settled()
    assert f"tone-reason-{n}" in await page.evaluate("document.body.innerText")
    return n


async def test_a_dozen_items_labelled_undone_and_resumed(graded):
    path, grading = graded
    original = path.read_text(encoding="utf-8")
    assert original == dataset_text()
    log = path.with_name(path.name + ".labellers.jsonl")
    done: dict[int, tuple[str, str]] = {}
    server = serve(path, grading)
    try:
        async with label_browser.Browser() as page:
            await page.open(server.url)
            await page.settled()
            for _ in range(6):
                n = await answer_item(page, path, labelled_text(original, done))
                done[n] = CHOICES[n]
                assert path.read_text(encoding="utf-8") == labelled_text(original, done)
                await page.key("Enter")
                await page.settled()
            # Undo takes back the last label (the last item's tone): its list goes, the first label stays in the log.
            last = n
            await page.key("u")
            await page.wait_for(f"document.getElementById('item-title').textContent.startsWith('Item {last}:')")
            await page.settled()
            del done[last]
            assert path.read_text(encoding="utf-8") == labelled_text(original, done)
            assert [json.loads(line)["unit"] for line in log.read_text().splitlines()][-1] == "polite"
            # Ctrl+Z takes back the one before it, and the mouse gives it again.
            await page.key("z", ctrl=True)
            await page.wait_for("!document.querySelector('[data-unit=polite]').dataset.answered")
            await page.settled()
            assert len(log.read_text().splitlines()) == 10
            await page.click("[data-unit=polite] [data-word=MET]")
            await page.wait_for("document.querySelector('[data-unit=polite]').dataset.answered === '1'")
            await page.settled()
            assert path.read_text(encoding="utf-8") == labelled_text(original, done)  # still half of the item
            # docs/labelling.md's screenshot (one unit answered, its verdict shown; the other blind): refreshed with
            # RUBRIC_REPORT_SCREENSHOTS=1, else taken to a scratch file.
            shot = (
                REPO / "docs" / "labelling-page.png"
                if os.environ.get("RUBRIC_REPORT_SCREENSHOTS")
                else path.with_name("mid.png")
            )
            await page.evaluate("window.scrollTo(0, 0)")
            await page.screenshot(shot)
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert page.console == [] and all(r.startswith(server.url.split("?")[0]) for r in page.requests)
    finally:
        server.shutdown()
        server.server_close()

    # A second run resumes where the first stopped: that item's tone, its polite already given.
    server = serve(path, grading)
    try:
        async with label_browser.Browser() as page:
            await page.open(server.url)
            await page.settled()
            assert await shown_item(page) == last
            assert await page.evaluate("document.querySelector('[data-unit=polite]').dataset.answered") == "1"
            assert await page.evaluate("document.querySelectorAll('[data-unit=polite] [data-judge]').length") == 1
            assert await page.evaluate("document.querySelectorAll('[data-unit=tone] [data-judge]').length") == 0
            await page.key(KEY_OF[CHOICES[last][1]])  # the highlight is on the unit left to label
            await page.wait_for("document.querySelector('[data-unit=tone]').dataset.answered === '1'")
            await page.settled()
            done[last] = ("MET", CHOICES[last][1])
            assert path.read_text(encoding="utf-8") == labelled_text(original, done)
            while len(done) < UNLABELLED:
                await page.key("Enter")
                await page.settled()
                n = await answer_item(page, path, labelled_text(original, done))
                done[n] = CHOICES[n]
                assert path.read_text(encoding="utf-8") == labelled_text(original, done)
            progress = await state(page)
            assert progress["progress"] == {"done": 26, "total": 26, "items": 13}
            await page.screenshot(path.with_name("page.png"))
    finally:
        server.shutdown()
        server.server_close()
    assert path.with_name("page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.read_text(encoding="utf-8") == labelled_text(original, done)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(entries) == 2 * UNLABELLED and {e["labeller"] for e in entries} == {"ann"}
    from autorubric.dataset import RubricDataset

    loaded = RubricDataset.from_file(path)
    assert [str(getattr(v, "value", v)) for v in loaded.items[0].ground_truth] == list(CHOICES[1])
    assert sum(item.ground_truth is not None for item in loaded.items) == UNLABELLED + 1


async def test_the_review_keeps_changes_and_opens(graded):
    """The review of disagreements: each row the label beside the judge's verdict and reason and the criterion's
    text; Keep leaves the file's bytes as they were, Change rewrites that one label, and "open the wording" links
    to the criterion's line in the editor."""
    path, grading = graded
    original = path.read_text(encoding="utf-8")
    labels = dict(CHOICES)
    path.write_text(labelled_text(original, labels), encoding="utf-8")
    server = serve(path, grading)
    try:
        async with label_browser.Browser() as page:
            await page.open(server.url)
            await page.settled()
            await page.key("r")
            await page.wait_for("document.querySelectorAll('[data-review]').length > 0")
            await page.settled()
            rows = await page.evaluate(
                "Array.from(document.querySelectorAll('[data-review]'), r => "
                "[r.dataset.review, ...Array.from(r.cells, c => c.innerText)])"
            )
            polite = {int(cells[0].split(".")[0]): (attr, cells) for attr, *cells in rows if attr.endswith(" polite")}
            # polite disagrees where the label (MET unless n % 3 == 0) is not the judge's (MET on even items),
            # and on the fixture's item 13, labelled MET by hand.
            expected = [n for n in range(1, UNLABELLED + 1) if (CHOICES[n][0] == "MET") != (n % 2 == 0)] + [13]
            assert sorted(polite) == expected
            attr, cells = polite[1]
            assert cells[1].startswith("polite") and "The reply is polite" in cells[1]
            assert cells[2].startswith("MET") and cells[3].startswith("UNMET") and "polite-reason-1" in cells[3]
            # Keep: the judge erred on item 1; the file is as it was, the row marked kept.
            await page.click(f'[data-review="{attr}"] [data-keep]')
            await page.wait_for(f"document.querySelector('[data-review=\"{attr}\"]').classList.contains('kept')")
            await page.settled()
            assert path.read_text(encoding="utf-8") == labelled_text(original, labels)
            # Change: the person erred on item 5; its polite label becomes the judge's, its tone stays.
            attr = polite[5][0]
            await page.click(f'[data-review="{attr}"] [data-change=UNMET]')
            await page.wait_for(f"!document.querySelector('[data-review=\"{attr}\"]')")
            await page.settled()
            labels[5] = ("UNMET", labels[5][1])
            assert path.read_text(encoding="utf-8") == labelled_text(original, labels)
            href = await page.evaluate(f"document.querySelector('[data-review=\"{polite[7][0]}\"] a.open').href")
            line = original.splitlines().index(next(t for t in original.splitlines() if "The reply is polite" in t))
            assert href.startswith(f"vscode://file{path.as_posix()}:{line + 1}:")
            assert page.console == []
    finally:
        server.shutdown()
        server.server_close()

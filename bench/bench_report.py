"""The HTML report of a large labelled dataset: render time, page size, and load time in Chromium.

A synthetic dataset result of ``--items`` items (default 1,000) × 4 criteria (three binary, one
ordinal with five options), with the judge agreeing with the human label 80 % of the time
(seeded), goes through ``rubric_lsp.reporters.grade.html.render`` as ``rubric grade --report``
would write it; the page is then opened in headless Chromium (tests/report_browser.py), which
must show it with no console message and no network request. Targets: the page is ready
(its ``load`` event, ``performance.now()``) in under 2 s and the file stays under 5 MB.
The judge is left out on purpose: this measures the report, bench_grading.py the grading.

    python bench/bench_report.py [--items 1000] [--repeat 3]

Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rubric_lsp.formats.autorubric.grading.agreement import CriterionAgreement, DatasetResult
from rubric_lsp.reporters.grade.html import render
from tests.report_browser import load

BINARY = ("MET", "UNMET")
ORDINAL = ("Poor", "Fair", "Good", "Very good", "Excellent")
TARGET_SECONDS, TARGET_BYTES = 2.0, 5_000_000


def dataset(n: int) -> DatasetResult:
    draw = random.Random(17)
    criteria = [
        CriterionAgreement(i, f"criterion_{i + 1}", "binary", abstain=frozenset({"CANNOT_ASSESS"})) for i in range(3)
    ]
    criteria.append(CriterionAgreement(3, "clarity", "ordinal", labels=ORDINAL))
    items = []
    for index in range(n):
        truth = [draw.choice(BINARY) for _ in range(3)] + [draw.choice(ORDINAL)]
        judged = [t if draw.random() < 0.8 else draw.choice(BINARY) for t in truth[:3]]
        judged.append(truth[3] if draw.random() < 0.7 else draw.choice(ORDINAL))
        for position, criterion in enumerate(criteria):
            if position < 3:
                criterion.add(truth[position], judged[position])
            else:
                criterion.add(ORDINAL.index(truth[3]), ORDINAL.index(judged[3]))
        score = sum(j == "MET" for j in judged[:3]) / 4 + ORDINAL.index(judged[3]) / 16
        human = sum(t == "MET" for t in truth[:3]) / 4 + ORDINAL.index(truth[3]) / 16
        items.append(
            {
                "index": index,
                "description": f"item {index}",
                "score": score,
                "error": None,
                "verdicts": judged,
                "ground_truth": truth,
                "reasons": [f"The response {'does' if j in ('MET', 'Good') else 'does not'} meet it." for j in judged],
                "human_score": human,
            }
        )
    return DatasetResult(items=items, criteria=criteria)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = dataset(args.items)
    request = SimpleNamespace(kind=SimpleNamespace(value="dataset"), path="bench.dataset.json")
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "report.html"
        renders, loads, walls = [], [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            html = render(request, result)
            renders.append(time.perf_counter() - start)
            page.write_text(html, encoding="utf-8")
            start = time.perf_counter()
            loaded = load(page)
            walls.append(time.perf_counter() - start)
            ready = re.search(r'data-loaded-ms="(\d+)"', loaded.dom)
            if loaded.console or loaded.requests or ready is None:
                print(f"page problems: console {loaded.console[:3]}, requests {loaded.requests[:3]}, ready {ready}")
                return 1
            loads.append(int(ready.group(1)) / 1000)
        size = page.stat().st_size
    print(f"dataset report, {args.items} items × 4 criteria, best of {args.repeat} (median):")
    print(f"  render (jinja2 + pygal):        {min(renders):.3f} s ({statistics.median(renders):.3f} s)")
    print(
        f"  Chromium load event:            {min(loads):.3f} s ({statistics.median(loads):.3f} s)  target < {TARGET_SECONDS} s"
    )
    print(f"  Chromium run, start to exit:    {min(walls):.3f} s ({statistics.median(walls):.3f} s)")
    print(f"  HTML size:                      {size / 1e6:.2f} MB  target < {TARGET_BYTES / 1e6:.0f} MB")
    return 0 if min(loads) < TARGET_SECONDS and size < TARGET_BYTES else 1


if __name__ == "__main__":
    sys.exit(main())

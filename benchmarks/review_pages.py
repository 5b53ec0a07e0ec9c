"""The review app on a big project: the time of each kind of page at N items (100,000 by default).

1. A project of N outputs of one task (two criteria, three draft sentences each, and an overall draft) is
   imported through `ReviewStore.add_items` in batches, as `faceteval review import` does.
2. One annotator reviews the first R items (200 by default) through the store: every sentence passed,
   every criterion scored, an overall score.
3. The app (`create_app`) is driven through its ASGI interface (Starlette's TestClient, in process, signed
   in through the sign-in form). Timed, median of five: the home page (every annotator's progress), an
   item's page at the start, middle and end of the task, and a click (a score posted on an item in the
   middle, answered by a redirect to its page, followed).
   The task's list of items (``/items``) shows 100 items a page, read by keyset over the index of items by
   task and position: its first page, a page in the middle (``after=`` the middle item's position) and its
   last page are timed, median of five.

Results go to benchmarks/review_results.json and are printed as a Markdown table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from faceteval.review import OVERALL, Draft, Item, ReviewStore
from faceteval.review._app import create_app
from tests.support.review_project import page_forms

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "review_results.json"
BASE = "http://127.0.0.1"
SENTENCES = ("The answer uses simple words.", "It gives a concrete example.", "A child could follow it.")


def build(project: Path, n: int, reviewed: int) -> float:
    """Import ``n`` items and review the first ``reviewed``; the seconds the import took."""
    store = ReviewStore.open(project)
    store.add_task("eli5", "", [("Clarity", "", (1.0, 5.0)), ("Accuracy", "", (1.0, 5.0))])
    started = time.perf_counter()
    for start in range(0, n, 10_000):
        ids = [f"i{k:07d}" for k in range(start, min(n, start + 10_000))]
        items = [Item(i, "eli5", f"Question {i}?", f"Answer {i}.") for i in ids]
        drafts = [Draft(i, name, 4, "Fine.", "", SENTENCES) for i in ids for name in ("Clarity", "Accuracy")]
        store.add_items(items, drafts + [Draft(i, OVERALL, 4) for i in ids])
    imported = time.perf_counter() - started
    store.add_annotator("ann")
    for k in range(reviewed):
        item_id = f"i{k:07d}"
        for criterion in ("Clarity", "Accuracy"):
            for sentence in range(len(SENTENCES)):
                store.record_sentence_action(item_id, criterion, "ann", "pass", sentence=sentence)
            store.set_score(item_id, criterion, "ann", 3)
        store.set_score(item_id, OVERALL, "ann", 3)
    return imported


def timed(action: Callable[[], Any], repeat: int = 5) -> float:
    """The median seconds of ``action`` (each must answer 200)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = action()
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text[:500]
    return statistics.median(times)


def measure(project: Path, n: int) -> dict[str, float]:
    """The median time of each page kind."""
    with TestClient(create_app(project), base_url=BASE, headers={"Origin": BASE}) as client:
        assert client.post("/signin", data={"annotator": "ann"}).status_code == 200
        middle = f"i{n // 2:07d}"

        clicks = []
        for _ in range(5):  # each a score form of the page, posted; its answer's redirect followed
            page = client.get(f"/item?id={middle}")
            form = next(f for f in page_forms(page.text) if f.action == "/item/score")
            started = time.perf_counter()
            answer = client.post("/item/score", data={**form.fields, "score": "2"})
            clicks.append(time.perf_counter() - started)
            assert answer.status_code == 200, answer.text[:500]
            assert f"id={middle}" in str(answer.url), answer.url
        return {
            "home": timed(lambda: client.get("/")),
            "item (first)": timed(lambda: client.get("/item?id=i0000000")),
            "item (middle)": timed(lambda: client.get(f"/item?id={middle}")),
            "item (last)": timed(lambda: client.get(f"/item?id=i{n - 1:07d}")),
            "a click (score posted, its page followed)": statistics.median(clicks),
            "the task's list of items (/items, first page of 100)": timed(
                lambda: client.get("/items?task=eli5")
            ),
            "the task's list of items (a page in the middle)": timed(
                lambda: client.get(f"/items?task=eli5&after={n // 2}")
            ),
            "the task's list of items (its last page)": timed(
                lambda: client.get(f"/items?task=eli5&before={n}")
            ),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--reviewed", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        imported = build(project, args.items, args.reviewed)
        times = measure(project, args.items)
    results = {"items": args.items, "reviewed": args.reviewed, "import_s": round(imported, 1)}
    results["pages_s"] = {name: round(seconds, 4) for name, seconds in times.items()}
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"| page ({args.items:,} items, {args.reviewed} reviewed) | median seconds |\n|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {seconds:.4f} |")


if __name__ == "__main__":
    main()

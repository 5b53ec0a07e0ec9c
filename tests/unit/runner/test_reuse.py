"""Reusing the ok judgments of an earlier output of the same job."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from faceteval._runner import PreviousJudgments, job_of
from faceteval.core import Instance, Judgment

FIELDS: dict[str, Any] = {
    "input_sha256": "ab",
    "method": {"name": "direct", "params": {}},
    "llm": {"model": "openai:x", "identity": "openai|u", "config": {"temperature": 0}, "timeout": 60},
    "options": {"swap": False, "strict": False, "trace": True},
    "prompts": {"direct": "cd"},
}


def instance(key: str, query: str = "q") -> Instance:
    return Instance(id=key, query=query, candidates=["a", "b"])


def judged(item: Instance, status: str = "ok") -> Judgment:
    verdict = 1 if status == "ok" else None
    return Judgment(
        id=item.id, method="direct", status=status, verdict=verdict, input_hash=item.content_hash()
    )


def earlier_run(tmp_path: Path, judgments: list[Judgment], fields: dict[str, Any] = FIELDS) -> Path:
    out = tmp_path / "o.jsonl"
    data = "".join(j.model_dump_json() + "\n" for j in judgments).encode()
    out.write_bytes(data)
    written = {"o.jsonl": {"lines": len(judgments), "sha256": hashlib.sha256(data).hexdigest()}}
    (tmp_path / "o.run.json").write_text(json.dumps({**fields, "written": written}))
    return out


def find(out: Path, fields: dict[str, Any] = FIELDS) -> PreviousJudgments | None:
    return PreviousJudgments.find(out, out.with_name("o.run.json"), fields)


def test_the_same_job_is_the_same_input_method_llm_options_and_prompts() -> None:
    other_timeout = FIELDS | {"llm": FIELDS["llm"] | {"timeout": 5, "concurrency": 64}}
    assert (
        job_of(FIELDS)
        == job_of(other_timeout)
        == job_of(FIELDS | {"options": {"swap": False, "trace": True}})
    )
    for change in (
        {"input_sha256": "ef"},
        {"method": {"name": "direct", "params": {"x": 1}}},
        {"llm": FIELDS["llm"] | {"config": {"temperature": 0.7}}},
        {"options": FIELDS["options"] | {"swap": True}},
        {"prompts": {"direct": "ef"}},
    ):
        assert job_of(FIELDS | change) != job_of(FIELDS), change


def test_only_an_output_its_record_describes_of_the_same_job_is_reused(tmp_path: Path) -> None:
    out = earlier_run(tmp_path, [judged(instance("1"))])
    found = find(out)
    assert found is not None
    found.close()
    assert find(out, FIELDS | {"options": FIELDS["options"] | {"swap": True}}) is None
    out.write_text(out.read_text().replace('"verdict":1', '"verdict":2'))  # edited since
    assert find(out) is None
    (tmp_path / "o.run.json").write_text("{not json")
    assert find(out) is None


def test_ok_judgments_are_taken_by_id_and_content_and_the_rest_keeps_input_order(tmp_path: Path) -> None:
    items = [instance(str(i)) for i in range(6)]
    earlier = [
        judged(items[0]),
        judged(items[1], "error"),
        judged(items[2]),
        judged(items[3]),
        judged(items[4]),
    ]
    previous = find(earlier_run(tmp_path, earlier))
    assert previous is not None and len(previous) == 4
    with previous:
        assert previous.take(items[0]) == earlier[0]
        assert previous.take(items[0]) is None  # once
        assert previous.take(items[1]) is None  # not ok before
        assert previous.take(instance("2", query="edited")) is None  # not the same instance any more
        taken = previous.take(items[3])  # taken, but the run stops before writing it
        assert taken == earlier[3]
        for judgment in (earlier[0], judged(items[1])):
            previous.written(judgment)
        # the instances the run wrote nothing of, as before, in the file's order
        assert list(previous.rest()) == [earlier[2], earlier[3], earlier[4]]


def test_an_instance_given_twice_is_handed_out_twice(tmp_path: Path) -> None:
    twice = instance("1")
    previous = find(earlier_run(tmp_path, [judged(twice), judged(twice)]))
    assert previous is not None
    with previous:
        first = previous.take(twice)
        assert first is not None
        previous.written(first)
        assert list(previous.rest()) == [judged(twice)]

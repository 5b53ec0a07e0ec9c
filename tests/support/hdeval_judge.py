"""An HD-Eval judge by rule, served over HTTP: it decomposes each criterion by `CHILDREN` and scores each
output on a criterion by its hidden `quality`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.quoted import unquote

CHILDREN = {
    "coherence": ["logical flow", "structure"],
    "fluency": ["grammar", "word choice"],
    "logical flow": ["transitions", "ordering"],
    "grammar": ["agreement", "tense"],
    "structure": ["paragraphs", "headings"],
    "word choice": ["register", "variety"],
}
_SUBJECT = re.compile(r'I would like to evaluate its "?(.+?)"?(?:,|\.\n)')
_METRIC = re.compile(r'score the given response on the following metric:\n"(.+?)"')
_RESPONSE = re.compile(r"\[The Start of Response\]\n(.*?)\n\[The End of Response\]", re.DOTALL)


def quality(text: str, criterion: str) -> int:
    """A fixed pseudo-random 1-5 score of an output on a criterion."""
    return hashlib.sha256(f"{text}|{criterion}".encode()).digest()[0] % 5 + 1


def responder(body: Mapping[str, Any]) -> str:
    """Decomposes by `CHILDREN`, scores each output on a criterion by `quality`."""
    prompt = "\n".join(m["content"] for m in body["messages"])
    if subject := _SUBJECT.search(prompt):
        names = CHILDREN[subject[1].lower()]
        return "\n".join(f"{i}. {name.title()}: How good the {name} is." for i, name in enumerate(names, 1))
    metric, response = _METRIC.search(prompt), _RESPONSE.search(prompt)
    assert metric is not None and response is not None, prompt
    return f"{quality(unquote(response[1]), metric[1].strip().lower())}\nScored by rule."


def train_evaluator(root: Path, base_url: str) -> Path:
    """An evaluator trained with `faceteval hdeval train` in ``root`` on 16 labelled outputs, its
    criteria scored by `openai:judge` at ``base_url`` (one layer: no decomposition); its folder."""
    from click.testing import CliRunner

    from faceteval._cli._app import cli
    from tests.integration.test_hdeval_train import outputs, write

    labelled = write(root / "labelled.jsonl", outputs(16, "a"))
    args = [
        "hdeval", "train", labelled, "--target", "coherence,fluency", "--layers", "1", "--aggregator", "lr",
        "--resamples", "0", "--out", root / "evaluator", "--model", "openai:judge",
        "--base-url", base_url, "--cache", root / "c.sqlite", "-q",
    ]  # fmt: skip
    result = CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200)
    assert result.exit_code == 0, result.output
    return root / "evaluator"

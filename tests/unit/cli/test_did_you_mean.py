"""A misspelt benchmark or method name is answered with the closest names, wherever one is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["datasets", "fetch", "fairevl"], 1, "unknown benchmark 'fairevl' (did you mean 'faireval' or"),
        (
            ["meta-eval", "llmbar-adversrial", "--judgments", "recorded:x", "--out", "{tmp}/run"],
            1,
            "unknown benchmark 'llmbar-adversrial' (did you mean 'llmbar-adversarial'",
        ),
        (
            ["hdeval", "train", "sumeval", "--target", "coherence", "--out", "{tmp}/ev"],
            1,
            "unknown benchmark 'sumeval' (did you mean 'summeval' or",
        ),
        (["judge", "in.jsonl", "--method", "dnaa"], 2, "(did you mean 'dna'?)"),
        (["meta-eval", "summeval", "--method", "coevl", "--out", "{tmp}/run"], 2, "(did you mean 'coeval'"),
        (["bridge", "pandlm", "--out", "{tmp}/b"], 2, "(did you mean 'pandalm'?)"),
        (
            ["review", "import-coeval", "{tmp}/p", "--task", "eli6"],
            1,
            "unknown CoEval task 'eli6' (did you mean",
        ),
    ],
)
def test_a_misspelt_name_is_answered_with_the_closest(
    tmp_path: Path, args: list[str], code: int, expected: str
) -> None:
    result = CliRunner().invoke(cli, [arg.replace("{tmp}", str(tmp_path)) for arg in args])

    assert result.exit_code == code, result.output
    assert expected in " ".join(result.output.split())

"""The exceptions: every one a user can meet is defined in `faceteval.errors`, importable where it was
before, and pickles whole with its attributes."""

from __future__ import annotations

import ast
import importlib
import pickle
from pathlib import Path

import pytest

import faceteval.errors as errors
from faceteval._util.text import first_few
from faceteval.core import Judgment

SRC = Path(__file__).resolve().parents[2] / "src" / "faceteval"

PRIVATE = {
    # control flow, caught and translated inside the module or package that raises it
    "_cli/_app.py": {"ConfigFileError"},  # click's: raised while click builds a command's defaults
    "_util/documents.py": {"_Refused"},
    "_util/files.py": {"_RepeatedKey", "UnreadableJSON"},
    "datasets/_fetch.py": {"_Retryable"},
    "datasets/_field_map.py": {"FieldProblem"},
    "llm/_transport.py": {"RefusedReply"},
    "review/_forms.py": {"FieldError"},  # an HTTP exception: the review app's error handler answers it
    "review/_requests.py": {"Replayed"},
    "store/_record_read.py": {"Refused"},
    "viewer/_catalog.py": {"Changing"},
    "viewer/_lines.py": {"Stale"},
}
"""The exceptions defined outside faceteval.errors, by module: none of them reaches a user."""

OLD_HOMES = [
    ("faceteval", "NothingJudged"),
    ("faceteval", "RunAborted"),
    ("faceteval._runner", "NothingJudged"),
    ("faceteval._runner", "RunAborted"),
    ("faceteval._web", "ServeError"),
    ("faceteval.methods.coeval", "EditedFilesError"),
    ("faceteval.review", "DiskFullError"),
    ("faceteval.review", "ReviewError"),
    ("faceteval.testing", "JudgmentAssertionError"),
    ("faceteval.viewer", "FilterError"),
    ("faceteval.viewer", "RunGone"),
]


def _exception_classes(tree: ast.Module) -> set[str]:
    """The classes of a module whose bases are named like exceptions (or are faceteval's)."""
    ours = set(errors.__all__)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = {
                b.id if isinstance(b, ast.Name) else b.attr
                for b in node.bases
                if isinstance(b, ast.Name | ast.Attribute)
            }
            if bases & ours or any(b.endswith(("Error", "Exception")) for b in bases):
                found.add(node.name)
    return found


def test_every_exception_a_user_can_meet_is_defined_in_errors() -> None:
    elsewhere = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative == "errors.py":
            continue
        classes = _exception_classes(ast.parse(path.read_text(encoding="utf-8"))) - PRIVATE.get(
            relative, set()
        )
        if classes:
            elsewhere[relative] = sorted(classes)

    assert elsewhere == {}, "define these in faceteval.errors (or list them in PRIVATE, saying why)"


@pytest.mark.parametrize(("module", "name"), OLD_HOMES)
def test_an_error_is_importable_where_it_was(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_errors_form_two_trees() -> None:
    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, errors.FacetevalError) != (error is errors.JudgmentAssertionError), name
    assert issubclass(errors.JudgmentAssertionError, AssertionError)
    assert errors.JudgmentAssertionError.__module__ == "faceteval.testing"  # as pytest shows it
    assert issubclass(errors.ServeError, errors.ConfigError)
    assert issubclass(errors.RunGone, errors.StoreError)
    assert issubclass(errors.DiskFullError, errors.ReviewError)


def _judgment(id: str) -> Judgment:
    return Judgment(id=id, method="direct", status="error", error="ProviderError: down")


EXAMPLES = [
    errors.FacetevalError("plain"),
    errors.ConfigError("bad option"),
    errors.InputError("in.jsonl", 3, "query", "missing", record_id="a"),
    errors.InputError("in.jsonl", None, None, "empty"),
    errors.MissingDependencyError("plots", extra="report"),
    errors.ParseError("no score", raw="five", stage="dna.score"),
    errors.RateLimitError("slow down", retry_after=2.5),
    errors.ProviderServerError("down", status=503, retry_after=1.0),
    errors.ProviderConnectionError("refused", connected=False),
    errors.ProviderProtocolError("SSH-2.0"),
    errors.ProviderUnreachableError("nobody there"),
    errors.NothingJudged(Path("runs/a/judgments.jsonl")),
    errors.NothingJudged(Path("runs/a/judgments.jsonl"), kept=True),
    errors.EditedFilesError(Path("out"), [Path("out/criteria.yaml")]),
    errors.ServeError("cannot serve on 127.0.0.1:80"),
    errors.RunGone("gone"),
    errors.DiskFullError("full"),
]


@pytest.mark.parametrize("error", EXAMPLES, ids=lambda e: type(e).__name__)
def test_an_error_pickles_whole(error: Exception) -> None:
    back = pickle.loads(pickle.dumps(error))

    assert type(back) is type(error)
    assert str(back) == str(error)
    assert back.args == error.args
    assert vars(back) == vars(error)


def test_errors_with_judgments_pickle_with_them() -> None:
    aborted = errors.RunAborted("3 instances in a row failed")
    aborted.judgments = [_judgment("a"), _judgment("b")]
    failed = errors.JudgmentAssertionError("not preferred", _judgment("c"))

    for error in (aborted, failed):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert str(back) == str(error)
        assert vars(back) == vars(error)
    assert [j.id for j in pickle.loads(pickle.dumps(aborted)).judgments] == ["a", "b"]


@pytest.mark.parametrize("count", [1, 2, 5, 6, 9])
def test_edited_files_names_the_first_five(count: int) -> None:
    paths = [Path(f"out/set-{i}.yaml") for i in range(count)]
    them = "it" if count == 1 else "them"

    message = str(errors.EditedFilesError(Path("out"), paths))

    assert message.startswith(
        f"{first_few([str(p) for p in paths])}: changed since `criteria generate` wrote {them} "
    )
    assert message.endswith(f"or pass --force to overwrite {them}")


def test_nothing_judged_says_where_to_look() -> None:
    assert (
        str(errors.NothingJudged(Path("runs/a/j.jsonl")))
        == "no instance was judged; see the failures in runs/a/j.jsonl"
    )
    assert (
        str(errors.NothingJudged(Path("runs/a/j.jsonl"), kept=True))
        == "no instance was judged; runs/a is left as it was"
    )

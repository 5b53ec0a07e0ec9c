"""Templates of your own in place of built-in ones: read from a folder, checked before any call, in use
within `using_templates` and `JudgeOptions(templates=...)`, named with their hashes in run records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from faceteval import Instance, JudgeOptions, judge
from faceteval.errors import ConfigError
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.methods import create_method
from faceteval.prompts import Templates, load_template, render, slots, using_templates
from faceteval.prompts.internal import BUILT_IN, builtin_template, overridable_names, recorded_prompts
from faceteval.store import record_path_for

PAIR = Instance(id="p", query="Explain rain.", candidates=("Clouds.", "Sun."))


def mine(name: str, old: str, new: str) -> str:
    """The built-in template ``name`` with ``old`` replaced by ``new`` (once, and it must be there)."""
    source = builtin_template(name).source
    assert old in source
    return source.replace(old, new, 1)


def write(root: Path, name: str, text: str) -> Path:
    path = root / f"{name}.j2"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_folder_replaces_built_in_templates_by_name_with_their_origin_and_hash(tmp_path: Path) -> None:
    text = mine("direct/score", "[System]", "[Judge]")
    path = write(tmp_path, "direct/score", text)
    write(tmp_path, "hdeval/evaluate/summarization", builtin_template("hdeval/evaluate/summarization").source)
    (tmp_path / ".notes").write_text("hidden files are not templates")
    templates = Templates.from_dir(tmp_path)
    assert sorted(templates.overrides) == ["direct/score", "hdeval/evaluate/summarization"]
    used = templates.get("direct/score")
    assert (used.source, used.origin) == (text, str(path))
    assert used.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert templates.get("dna/score") is builtin_template("dna/score")
    assert recorded_prompts(["direct/score", "common/reask"], templates) == {
        "prompts": {"direct/score": used.sha256, "common/reask": builtin_template("common/reask").sha256},
        "prompt_sources": {"direct/score": str(path), "common/reask": BUILT_IN},
    }


def test_templates_are_in_use_only_within_the_block() -> None:
    templates = Templates.from_texts({"common/reask": "### user\n{{ problem }}! {{ instructions }}"})
    assert load_template("common/reask") is builtin_template("common/reask")
    with using_templates(templates):
        assert (
            render("common/reask", problem="no score", instructions="Again.")[0].content == "no score! Again."
        )
        assert load_template("common/reask").origin == "given in Python"
        with using_templates(None):
            assert load_template("common/reask").origin == "given in Python"
    assert load_template("common/reask") is builtin_template("common/reask")


def test_an_unknown_name_is_an_error_listing_the_known_ones(tmp_path: Path) -> None:
    path = write(tmp_path, "dna/scoring", "### user\n{{ query }}")
    with pytest.raises(ConfigError) as caught:
        Templates.from_dir(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{path}: no built-in template is named 'dna/scoring'; the templates are ")
    assert all(name in message for name in overridable_names())
    assert "_macros" not in message


def test_a_file_that_is_not_a_template_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes")
    with pytest.raises(ConfigError, match=r"README\.md: a template file is <name>\.j2; the templates are "):
        Templates.from_dir(tmp_path)
    with pytest.raises(ConfigError, match="not a directory of templates"):
        Templates.from_dir(tmp_path / "missing")


def test_a_template_missing_a_required_slot_is_an_error_naming_it(tmp_path: Path) -> None:
    text = mine("dna/score", "m.context(query, candidates, labels, reference)", "query ~ labels | join")
    path = write(tmp_path, "dna/score", text)
    with pytest.raises(ConfigError) as caught:
        Templates.from_dir(tmp_path)
    assert str(caught.value).startswith(
        f"{path}: leaves out {{{{ candidates }}}}, which the built-in dna/score shows on every call"
    )


def test_a_slot_the_stage_does_not_give_and_a_broken_template_are_errors(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"uses \{\{ verdict \}\}, which common/reask is not given; its slots"
    ):
        Templates.from_texts({"common/reask": "### user\n{{ problem }} {{ instructions }} {{ verdict }}"})
    with pytest.raises(ConfigError, match=r"line 2: not a valid template"):
        Templates.from_texts({"common/reask": "### user\n{{ problem }} {% if %}"})
    with pytest.raises(ConfigError, match="text before its first '### <role>' line"):
        Templates.from_texts({"common/reask": "hello\n### user\n{{ problem }} {{ instructions }}"})
    with pytest.raises(ConfigError, match="no section"):
        Templates.from_texts({"common/reask": "{# nothing #}"})


def test_slots_needed_are_those_used_outside_every_condition() -> None:
    used, needed = slots(builtin_template("hdeval/evaluate/dialogue").source)
    assert {"query", "candidates", "metric", "scale"} <= needed
    assert {"fact", "reference", "background"} <= used - needed


def test_judging_with_templates_sends_them_and_records_them(tmp_path: Path) -> None:
    text = mine("direct/score", "[System]", "[Judge]")
    templates = Templates.from_texts({"direct/score": text})
    provider = ScriptedProvider.sequence(["8 3\nFine."])
    llm = LLM(provider, ModelSpec("scripted", "judge"))
    out = tmp_path / "j.jsonl"
    (judgment,) = judge(
        [PAIR], create_method("direct"), llm, options=JudgeOptions(templates=templates), out=out
    )
    assert judgment.verdict == 1
    (request,) = provider.requests
    assert "[Judge]" in request.messages[-1].content and "[System]" not in request.messages[-1].content
    record = json.loads(record_path_for(out).read_text())
    assert record["prompts"]["direct/score"] == hashlib.sha256(text.encode()).hexdigest()
    assert record["prompt_sources"] == {"direct/score": "given in Python", "common/reask": BUILT_IN}
    assert load_template("direct/score") is builtin_template("direct/score")  # only within the run


def test_judge_options_read_a_folder_and_refuse_anything_else(tmp_path: Path) -> None:
    write(tmp_path, "common/reask", builtin_template("common/reask").source)
    options = JudgeOptions(templates=tmp_path)
    assert isinstance(options.templates, Templates) and list(options.templates.overrides) == ["common/reask"]
    with pytest.raises(ConfigError, match="templates is a Templates or a directory"):
        JudgeOptions(templates=3)  # type: ignore[arg-type]


def test_a_template_that_fails_while_rendering_names_itself() -> None:
    text = mine("direct/score", "{{ scale[1] | int }}", "{{ scale[7] }}")
    templates = Templates.from_texts({"direct/score": text}, origin="mine.j2")
    with using_templates(templates), pytest.raises(ConfigError, match=r"template direct/score \(mine\.j2\)"):
        render(
            "direct/score",
            query="q",
            candidates=["a", "b"],
            labels=["A", "B"],
            reference=None,
            criteria=["accuracy"],
            scale=(1, 10),
        )

"""The criteria tree: node ids, layers, edits, files (YAML and JSON) and the terminal view."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from faceteval.core import Criterion
from faceteval.errors import ConfigError, InputError
from faceteval.methods.hdeval._tree import CriteriaTree, load_tree, render_tree, save_tree

THREE_LAYERS = CriteriaTree(
    task="text summarization",
    background="A summary is a shorter passage.\nIt keeps the key details of the article.",
    criteria=(
        Criterion(
            name="coherence",
            description="The summary is well organised.",
            weight=0.5,
            scale=(1, 5),
            children=(
                Criterion(
                    name="logical flow",
                    description="Ideas follow one another.",
                    children=(Criterion(name="transitions", guideline="1: none; 5: smooth"),),
                ),
                Criterion(name="structure"),
            ),
        ),
        Criterion(name="fluency", description="Sentences read naturally: no typos."),
    ),
)


def render(tree: CriteriaTree, **options: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(render_tree(tree, **options))  # type: ignore[arg-type]
    return out.getvalue()


# -- nodes ---------------------------------------------------------------------------------------------


def test_nodes_are_breadth_first_with_path_ids_parents_and_layers() -> None:
    nodes = THREE_LAYERS.nodes()
    assert [(n.id, n.layer) for n in nodes] == [
        ("coherence", 1),
        ("fluency", 1),
        ("coherence / logical flow", 2),
        ("coherence / structure", 2),
        ("coherence / logical flow / transitions", 3),
    ]
    assert [n.parent.name if n.parent else None for n in nodes] == [
        None,
        None,
        "coherence",
        "coherence",
        "logical flow",
    ]
    assert nodes[4].parent_id == "coherence / logical flow" and nodes[0].parent_id is None
    assert THREE_LAYERS.depth == 3 and CriteriaTree("t").depth == 0
    assert [n.id for n in THREE_LAYERS.layer(2)] == ["coherence / logical flow", "coherence / structure"]
    assert THREE_LAYERS.layer(4) == []


def test_find_by_id_and_a_helpful_miss() -> None:
    node = THREE_LAYERS.find("coherence / logical flow")
    assert node.criterion.description == "Ideas follow one another."
    assert THREE_LAYERS.find("Coherence / Logical Flow") == node  # case is forgiven
    with pytest.raises(ConfigError, match="did you mean 'coherence / logical flow'"):
        THREE_LAYERS.find("coherence / logical flw")


def test_sibling_names_must_differ() -> None:
    with pytest.raises(ConfigError, match="'Flow' appears twice under 'coherence'"):
        CriteriaTree("t", criteria=(Criterion(name="coherence", children=("flow", "Flow")),))
    with pytest.raises(ConfigError, match="on layer 1"):
        CriteriaTree("t", criteria=(Criterion(name="a"), Criterion(name="a")))
    # the same name under different parents is fine: the ids differ
    tree = CriteriaTree(
        "t", criteria=(Criterion(name="a", children=("x",)), Criterion(name="b", children=("x",)))
    )
    assert [n.id for n in tree.layer(2)] == ["a / x", "b / x"]


def test_with_children_replaces_one_nodes_children_and_leaves_the_rest() -> None:
    new = (Criterion(name="connectives", description="Uses 'however', 'so'..."), Criterion(name="order"))
    edited = THREE_LAYERS.with_children("coherence / logical flow", new)
    assert [n.id for n in edited.layer(3)] == [
        "coherence / logical flow / connectives",
        "coherence / logical flow / order",
    ]
    assert edited.find("coherence").criterion.weight == 0.5
    assert edited.find("fluency") == THREE_LAYERS.find("fluency")
    assert THREE_LAYERS.depth == 3 and len(THREE_LAYERS.layer(3)) == 1  # the original is unchanged
    leaf = edited.with_children("fluency", [Criterion(name="grammar")])
    assert [n.id for n in leaf.layer(2)][-1] == "fluency / grammar"
    with pytest.raises(ConfigError, match="appears twice"):
        THREE_LAYERS.with_children("fluency", [Criterion(name="x"), Criterion(name="X")])
    with pytest.raises(ConfigError, match="no criterion"):
        THREE_LAYERS.with_children("nope", [])


# -- files ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_a_three_layer_tree_survives_a_round_trip(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"tree{suffix}"
    save_tree(THREE_LAYERS, path)
    assert load_tree(path) == THREE_LAYERS
    save_tree(load_tree(path), path)
    assert load_tree(path) == THREE_LAYERS


def test_files_hold_only_what_differs_from_defaults_in_a_stable_order(tmp_path: Path) -> None:
    save_tree(THREE_LAYERS, tmp_path / "t.json")
    document = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert list(document) == ["task", "background", "criteria"]
    assert list(document["criteria"][0]) == ["name", "description", "scale", "weight", "children"]
    assert document["criteria"][0]["children"][1] == {"name": "structure"}
    save_tree(CriteriaTree("t"), tmp_path / "bare.yaml")
    assert (tmp_path / "bare.yaml").read_text(encoding="utf-8") == "task: t\n"
    save_tree(THREE_LAYERS, tmp_path / "t.yaml")
    text = (tmp_path / "t.yaml").read_text(encoding="utf-8")
    assert "background: |-\n  A summary is a shorter passage.\n" in text  # multi-line text reads as written
    assert "scale: [1.0, 5.0]" in text


def test_names_alone_are_criteria_and_empty_children_are_none(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "task: dialogue\ncriteria:\n  - fluency\n  - name: coherence\n    children:\n", encoding="utf-8"
    )
    tree = load_tree(path)
    assert tree == CriteriaTree("dialogue", criteria=(Criterion(name="fluency"), Criterion(name="coherence")))


@pytest.mark.parametrize(
    ("text", "line", "field", "problem"),
    [
        (
            "task: t\ncriteria:\n  - a\n  - b\n  - name: c\n    children:\n      - description: no name\n",
            7,
            "criteria[2].children[0].name",
            "Field required",
        ),
        (
            "task: t\ncriteria:\n  - name: c\n    children:\n      - name: d\n        colour: red\n",
            6,
            "criteria[0].children[0].colour",
            "unknown field",
        ),
        (
            "task: t\ncriteria:\n  - name: c\n    scale: [5, 1]\n",
            4,
            "criteria[0].scale",
            "low must be below high",
        ),
        (
            "task: t\ncriteria:\n  - name: c\n    weight: -1\n",
            4,
            "criteria[0].weight",
            "greater than or equal",
        ),
        ("task: t\ncriteria:\n  - a\n  - name: A\n", 4, "criteria[1].name", "repeats 'A'"),
        ("task: t\ncriteria:\n  - name: c\n    children: x\n", 4, "criteria[0].children", "expected a list"),
        ("task: t\ncriteria:\n  - 3\n", 3, "criteria[0]", "expected a criterion name"),
        ("task: t\ncriteria: a\n", 2, "criteria", "expected a list"),
        ("task: t\ncritera: []\n", 2, "critera", "unknown field"),
        ("criteria: []\n", 1, "task", "missing"),
        ("task: '  '\n", 1, "task", "must not be blank"),
    ],
)
def test_bad_yaml_names_the_file_line_and_field_path(
    tmp_path: Path, text: str, line: int, field: str, problem: str
) -> None:
    path = tmp_path / "tree.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_tree(path)
    error = caught.value
    assert (error.path, error.line, error.field) == (str(path), line, field)
    assert problem in error.problem
    assert str(error).startswith(f"{path}:{line}: field '{field}'")


def test_a_name_that_spells_another_nodes_path_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tree.yaml"
    path.write_text("task: t\ncriteria:\n  - name: a / b\n  - name: a\n    children: [b]\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_tree(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 3, "criteria")
    assert caught.value.problem == (
        "criterion 'b' under 'a' and criterion 'a / b' on layer 1 have the same node id 'a / b' "
        "(names are joined by ' / '); rename one"
    )


def test_bad_json_names_the_field_path_too(tmp_path: Path) -> None:
    path = tmp_path / "tree.json"
    document = {"task": "t", "criteria": ["a", {"name": "c", "children": ["d", {"name": ""}]}]}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    with pytest.raises(InputError, match=r"field 'criteria\[1\]\.children\[1\]\.name'") as caught:
        load_tree(path)
    assert caught.value.path == str(path) and caught.value.line is not None


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("t.json", '{"task": "t",\n "criteria": [}', "not valid JSON"),
        ("t.yaml", "task: [unclosed\n", "not valid YAML"),
        ("t.yaml", "- a\n- b\n", "expected a mapping"),
        ("t.txt", "task: t\n", ".yaml, .yml or .json"),
    ],
)
def test_unreadable_files_are_input_errors(tmp_path: Path, name: str, text: str, problem: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as caught:
        load_tree(path)
    assert caught.value.path == str(path)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_tree(tmp_path / "absent.yaml")


# -- the terminal --------------------------------------------------------------------------------------


def test_render_shows_every_name_and_description() -> None:
    text = render(THREE_LAYERS)
    for node in THREE_LAYERS.nodes():
        assert node.criterion.name in text
    assert "text summarization" in text and "Ideas follow one another." in text
    lines = text.splitlines()
    depth = {
        name: next(ln for ln in lines if ln.strip(" │├└─").startswith(name)).index(name)
        for name in ("coherence", "logical flow", "transitions")
    }
    assert depth["coherence"] < depth["logical flow"] < depth["transitions"]


def test_render_shows_importance_and_expansion() -> None:
    text = render(THREE_LAYERS, importance={"coherence": 0.4213, "fluency": 0.1}, expanded={"coherence"})
    coherence = next(line for line in text.splitlines() if "coherence" in line)
    assert "0.421" in coherence and "expanded" in coherence
    fluency = next(line for line in text.splitlines() if "fluency" in line)
    assert "0.100" in fluency and "expanded" not in fluency


def test_render_escapes_markup_in_names_and_descriptions() -> None:
    tree = CriteriaTree(
        "t [bold]x[/bold]", criteria=(Criterion(name="[red]alarm[/red]", description="uses [link]s [/]"),)
    )
    text = render(tree)
    assert "[red]alarm[/red]" in text
    assert "uses [link]s [/]" in text
    assert "t [bold]x[/bold]" in text

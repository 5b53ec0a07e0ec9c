"""The registry of method specs: every built-in method is there, described truthfully, and buildable."""

from __future__ import annotations

import inspect

import pytest

import faceteval.methods._registry as registry
from faceteval.errors import ConfigError
from faceteval.methods import (
    DEFAULT_SWEEP,
    Command,
    MethodOption,
    MethodSpec,
    Sweep,
    create_method,
    method_names,
    method_spec,
    method_specs,
    register_method,
)
from faceteval.methods.baselines import Direct
from faceteval.methods.internal import find_method_spec, sweep_of
from faceteval.prompts import load_template

BUILT_IN = ["direct", "cot", "dna", "coeval", "coeval-direct", "fennec", "hdeval"]


@pytest.fixture
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as it is, restored after the test (which may register methods)."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))


def test_every_built_in_method_is_registered_in_order() -> None:
    assert method_names()[: len(BUILT_IN)] == BUILT_IN
    assert [spec.name for spec in method_specs()] == method_names()


@pytest.mark.parametrize("name", BUILT_IN)
def test_each_spec_describes_its_method_truthfully(name: str) -> None:
    spec = method_spec(name)
    method = create_method(name)
    assert method.name == name and method.describe()["name"] == name
    factory = inspect.signature(spec.factory)
    params = method.describe()["params"]
    for option in spec.options:
        assert option.param in factory.parameters, option.param
        assert params[option.param] == option.default, option.param  # the default the help shows
    if spec.criteria is not None:
        assert "criteria" in factory.parameters
    for template in method.templates():
        assert load_template(template).sha256
    assert spec.summary and "\n" not in spec.summary
    low, high = spec.scale
    assert low < high


def test_options_set_what_they_name() -> None:
    dna = create_method("dna", aspects=5, aggregate="mean")
    assert dna.describe()["params"] | {"aspects": 5, "aggregate": "mean"} == dna.describe()["params"]
    fennec = create_method("fennec", criteria_count=2, single=True, aggregate="weighted")
    assert {k: fennec.describe()["params"][k] for k in ("criteria_count", "single", "aggregate")} == {
        "criteria_count": 2,
        "single": True,
        "aggregate": "weighted",
    }
    assert (
        create_method("coeval", task="Answer questions.").describe()["params"]["task"] == "Answer questions."
    )


def test_sweeps_name_themselves_for_reports() -> None:
    assert sweep_of("dna").title == "Aspect-count sweep"
    assert sweep_of("fennec").title == "Branch-number sweep (criteria per query)"
    assert sweep_of("fennec").axis == "criteria (branches)" and sweep_of("fennec").column == "Criteria"
    unknown = sweep_of("a method not installed here")
    assert unknown == sweep_of(None) == DEFAULT_SWEEP  # named as the aspect-count sweep (dna's)
    assert (unknown.title, unknown.column, unknown.axis) == ("Aspect-count sweep", "Aspects", "aspects")
    assert find_method_spec("nope") is None and find_method_spec(3) is None


def test_unknown_methods_are_config_errors_naming_the_known() -> None:
    with pytest.raises(ConfigError, match=r"unknown method 'nope'; known: direct, cot, dna"):
        create_method("nope")
    with pytest.raises(ConfigError, match=r"unknown method 'coevl' \(did you mean 'coeval'"):
        create_method("coevl")


def test_registering_checks_the_spec(clean_registry: None) -> None:
    spec = MethodSpec(name="plain", factory=Direct, summary="Direct, under another name.", scale=(1, 10))
    register_method(spec)
    register_method(spec)  # the same spec again: nothing to do
    assert method_spec("plain") is spec and method_names()[-1] == "plain"
    with pytest.raises(ConfigError, match="a method named 'dna' is registered already"):
        register_method(MethodSpec(name="dna", factory=Direct, summary="x", scale=(1, 10)))
    with pytest.raises(ConfigError, match="takes a MethodSpec"):
        register_method("direct")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: MethodSpec(name="Direct", factory=Direct, summary="x", scale=(1, 10)), "lowercase words"),
        (lambda: MethodOption(param="class", help="x"), "Python identifier"),
        (lambda: MethodOption(param="k", help="x", flag="-k"), "--lowercase-words"),
        (lambda: MethodOption(param="k", help="x", type=int, choices=("a",)), "only a text option"),
        (lambda: MethodOption(param="k", help="x", sweep=_SWEEP), "only a whole-number option"),
        (lambda: MethodOption(param="k", help="x", choices=("a",), default="b"), "is not a choice"),
        (lambda: Command("criteria show extra", "m:c"), "a group's name and one"),
        (lambda: Command("correct", "not a target"), "'module:attribute'"),
        (
            lambda: MethodSpec(
                name="twice",
                factory=Direct,
                summary="x",
                scale=(1, 10),
                options=(MethodOption(param="k", help="x"), MethodOption(param="k", help="y")),
            ),
            "option parameter k given twice",
        ),
    ],
)
def test_a_spec_that_could_only_be_a_mistake_is_refused(build: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build()  # type: ignore[operator]


_SWEEP = Sweep(help="h", title="t", column="c", axis="a", prefix="p")

"""Templates run no code and reach nothing of Python's: every template (built-in or your own) renders
in the sandbox, what a template's own operations make is bounded, and a template of your own that
names Python's internals (or includes another file) is refused when it is checked, file and line named."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from faceteval import Templates
from faceteval.errors import ConfigError
from faceteval.prompts import template_names
from faceteval.prompts._render import environment
from faceteval.prompts._sandbox import MAX_TEXT, PromptSandbox
from faceteval.prompts.internal import builtin_template

ESCAPES = [
    "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
    "{{ joiner.__init__.__globals__['os'].system('touch PWNED') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ ''|attr('__class__') }}",
    "{{ (''|attr('__cla' ~ 'ss__')).__mro__ }}",
    "{{ ''['__class__'] }}",
    "{{ m.__dict__ }}",
    "{{ m.context.__globals__ }}",
    "{{ self.__init__.__globals__ }}",
    "{{ range.__self__ }}",
    "{{ dict.__base__.__subclasses__() }}",
    "{{ candidates.__class__ }}",
    "{{ loop.__class__ if false else query.__doc__ }}",
    "{% set x = 1 %}{{ x.__class__.__base__ }}",
    "{{ [1].pop() }}",
    "{{ {'a': 1}.update({'b': 2}) }}",
    "{{ {'a': 1}.setdefault('b', 2) }}",
    "{{ lipsum(10 ** 6) }}",
    "{% set ns = namespace(t='x') %}{% for i in range(64) %}{% set ns.t = ns.t ~ ns.t %}{% endfor %}",
    "{{ config }}{{ request }}{{ os }}{{ __builtins__ }}",
]
"""Ways out of a template (each refused by the sandbox, or undefined in it)."""

BOMBS = [
    "{{ 'x' * 10 ** 9 }}",
    "{{ ['x'] * 10 ** 9 }}",
    "{{ 10 ** (10 ** 10) }}",
    "{{ 7 ** 100000 }}",
    "{{ '%999999999d' % 1 }}",
    "{{ '%.999999999f' % 1.5 }}",
    "{{ '%*d' % (999999999, 1) }}",
    "{{ '{:999999999}'.format(1) }}",
    "{{ '{x:>999999999}'.format_map({'x': 1}) }}",
    "{{ 'x'.ljust(999999999) }}",
    "{{ 'x'.center(10 ** 8) }}",
    "{{ '7'.zfill(10 ** 9) }}",
    "{{ 'a\\tb'.expandtabs(10 ** 8) }}",
    "{{ 'xx'.replace('x', 'y' * 10 ** 7) }}",
    "{{ ('x' * 1000).join(range(100000)) }}",
    "{{ 'x'|center(999999999) }}",
    "{{ 'a\\nb\\nc'|indent(10 ** 7) }}",
    "{{ '%999999999s'|format('x') }}",
    "{{ 'xx'|replace('x', 'y' * 10 ** 7) }}",
    "{{ range(100000)|join('x' * 1000) }}",
    "{{ range(100000)|map('string')|join('x' * 1000) }}",
    "{{ 'ab'|wordwrap(1, wrapstring='z' * 10 ** 7) }}",
    "{{ [1]|batch(10 ** 9, 'x')|list }}",
    "{{ [1]|slice(10 ** 9)|list }}",
    "{{ range(10 ** 9)|list }}",
    "{{ (1).to_bytes(10 ** 9, 'big') }}",
    "{% set a = 'x' * 10 ** 7 %}{% set b = a ~ a %}{{ b }}",
    "{% set a = 'x' * 10 ** 7 %}{% set b = a + a %}{{ b }}",
    "{% set a = ['x'] * 10 ** 5 %}{{ (a + a + a)|length }}",
    "{% set a = 'x' * 10 ** 7 %}{{ a ~ query ~ a }}",
]
"""Texts (and lists, and numbers) past any prompt's size, made by a template's own operations."""


def render(source: str, **variables: object) -> str:
    return environment().from_string(source).render(**variables)


@pytest.mark.parametrize("source", ESCAPES)
def test_no_way_out_of_the_sandbox(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(jinja2.TemplateError):
        render(source, query="q", candidates=["a"], m=environment().globals["m"])
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("source", BOMBS)
def test_what_a_template_makes_is_bounded_before_it_is_made(source: str) -> None:
    with pytest.raises(jinja2.exceptions.SecurityError, match="more than a template may"):
        render(source, query="q")


@pytest.mark.parametrize(
    ("source", "rendered"),
    [
        ("{{ 'ab' * 3 }}|{{ '-' * 0 }}", "ababab|"),
        ("{{ 2 ** 10 }} {{ 7 % 3 }} {{ '%05.1f' % 2.25 }} {{ '%s-%s' % ('a', 'b') }}", "1024 1 002.2 a-b"),
        ("{{ '{:>4}'.format('x') }}|{{ 'x'.center(5) }}|{{ '7'.zfill(3) }}", "   x|  x  |007"),
        ("{{ ', '.join(['a', 'b']) }}|{{ ['a', 'b']|map('upper')|join('+') }}", "a, b|A+B"),
        ("{{ 'a b c'|replace(' ', '_') }}|{{ 'a\nb'|indent(2, first=true) }}", "a_b_c|  a\n  b"),
        (
            "{{ [1, 2, 3]|batch(2, 0)|list }}|{{ range(4)|slice(2)|list }}",
            "[[1, 2], [3, 0]]|[[0, 1], [2, 3]]",
        ),
        ("{{ 'a' ~ 1 ~ none }}|{{ [1] + [2] }}|{{ 'x' + 'y' }}", "a1None|[1, 2]|xy"),
        (
            "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}"
            "{% set j = joiner('/') %}{{ j() }}x{{ j() }}y",
            "abx/y",
        ),
        ("{{ range(3)|list }}|{{ dict(a=1)['a'] }}|{{ [3, 1]|sort|first }}", "[0, 1, 2]|1|1"),
    ],
)
def test_what_templates_do_still_works(source: str, rendered: str) -> None:
    assert render(source) == rendered


def test_the_bound_is_more_than_any_prompt() -> None:
    big = "x" * (MAX_TEXT // 2)
    assert len(render("{{ a ~ a }}", a=big)) == MAX_TEXT  # as long as a prompt may be, and no longer
    with pytest.raises(jinja2.exceptions.SecurityError):
        render("{{ a ~ a ~ 'x' }}", a=big)


def test_every_built_in_template_is_compiled_in_the_sandbox() -> None:
    assert isinstance(environment(), PromptSandbox)
    for name in template_names():
        source = builtin_template(name).source
        assert isinstance(environment().from_string(source).environment, PromptSandbox), name


REFUSED = [
    ("{{ cycler.__init__.__globals__.os.system('touch PWNED') }}", "'.__globals__'"),
    ("{{ ''.__class__.__mro__ }}", "'.__mro__'"),
    ("{{ query['__class__'] }}", "'['__class__']'"),
    ("{{ query|attr('__class__') }}", "'attr('__class__')'"),
    ("{{ candidates|map(attribute='__class__')|list }}", "'map('__class__')'"),
    ("{{ candidates|map(attribute='real.__class__')|list }}", "'map('real.__class__')'"),
    ("{{ candidates|selectattr('__len__')|list }}", "'selectattr('__len__')'"),
    ("{{ candidates|sort(attribute='_x')|list }}", "'sort('_x')'"),
    ("{{ candidates|sum(attribute='__len__') }}", "'sum('__len__')'"),
    ("{{ candidates|unique(false, '__len__')|list }}", "'unique('__len__')'"),
    ("{% if query is sameas query._x %}{% endif %}", "'._x'"),
    ("{% include 'dna/score.j2' %}", "'{% include %}'"),
    ("{% import '_macros.j2' as mine %}", "'{% import %}'"),
    ("{% from '_macros.j2' import context %}", "'{% from ... import %}'"),
    ("{% extends 'direct/score.j2' %}", "'{% extends %}'"),
]


@pytest.mark.parametrize(("payload", "named"), REFUSED)
def test_a_template_naming_internals_is_refused_when_checked_with_its_file_and_line(
    payload: str, named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = builtin_template("direct/score").source.rstrip("\n")
    path = tmp_path / "mine" / "direct" / "score.j2"
    path.parent.mkdir(parents=True)
    path.write_text(f"{source}\n{payload}\n", encoding="utf-8")
    line = source.count("\n") + 2
    with pytest.raises(ConfigError) as refused:
        Templates.from_dir(tmp_path / "mine")
    assert str(refused.value).startswith(f"{path}, line {line}: {named}: ")
    assert "the template is refused" in str(refused.value)
    with pytest.raises(ConfigError, match=f"given in Python, line {line}: "):
        Templates.from_texts({"direct/score": f"{source}\n{payload}\n"})
    assert not (tmp_path / "PWNED").exists()


def test_a_template_file_past_a_mebibyte_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "mine" / "direct" / "score.j2"
    path.parent.mkdir(parents=True)
    source = builtin_template("direct/score").source
    path.write_text(source + "{# " + "x" * 2**20 + " #}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"score\.j2: more than 1,048,576 bytes"):
        Templates.from_dir(tmp_path / "mine")


def test_a_template_of_your_own_still_has_every_slot_and_macro() -> None:
    source = (
        "### system\nJudge.\n### user\n{{ m.context(query, candidates, labels, reference) }}\n"
        "{{ m.data_note() }}\n{{ m.score_line(labels, scale) }}\n"
        "{{ criteria | map('fence_inline') | and_join }} {{ scale[0] | int }}-{{ scale[1] | int }}\n"
        "{% for text in candidates %}{{ loop.index }}: {{ text | fence }}\n{% endfor %}"
    )
    mine = Templates.from_texts({"direct/score": source})
    messages = mine.get("direct/score").render(
        query="Why?",
        candidates=["A.", "B."],
        labels=["Response 1", "Response 2"],
        reference=None,
        criteria=["clarity", "depth"],
        scale=(1, 10),
    )
    user = messages[1].content
    assert "[The Start of Response 2]" in user and "1: > A." in user
    assert '"clarity" and "depth" 1-10' in user
    assert "2 values indicating the scores for Response 1, Response 2" in user


def test_a_bound_met_while_rendering_names_the_template(tmp_path: Path) -> None:
    source = builtin_template("direct/score").source + "\n{{ 'x' * (candidates | length * 10 ** 9) }}\n"
    mine = Templates.from_texts({"direct/score": source}, origin="tpl/direct/score.j2")
    with pytest.raises(ConfigError, match=r"direct/score \(tpl/direct/score\.j2\) could not be rendered: "):
        mine.get("direct/score").render(
            query="q", candidates=["a", "b"], labels=["1", "2"], reference=None, criteria=["c"], scale=(1, 10)
        )

"""`facet_scorer`: an Inspect AI scorer that judges a sample's output with a faceteval method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from inspect_ai.model import CachePolicy, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from faceteval import GenerateConfig, Instance, JudgeOptions, Judgment, Method, create_method, judge_async
from faceteval.errors import ConfigError
from faceteval.integrations._scales import Scale, facet_scale, overall_scale
from faceteval.integrations.inspect._provider import inspect_llm
from faceteval.integrations.inspect._score import Against, judgment_score, unscored

Baseline = str | Callable[[TaskState], str]
"""Where a sample's baseline text is: the name of a field of its metadata, or a function of its state."""
DEFAULT_NAME = "facet_scorer"
"""A scorer's name in the log, ``inspect view`` and the task's results unless ``name`` gives another."""
_UNSCALED = (
    "a score is from 0 to 1 on the method's scale; give the method a scale parameter, or register it "
    "with a MethodSpec (faceteval.methods.register_method)"
)


def facet_scorer(
    method: str | Method = "dna",
    *,
    name: str | None = None,
    against: Against | None = None,
    baseline: Baseline = "baseline",
    target_as_reference: bool = False,
    swap: bool = True,
    model: str | Model | None = None,
    model_role: str | None = "grader",
    cache: bool | CachePolicy | None = None,
    config: GenerateConfig | None = None,
    **options: Any,
) -> Scorer:
    """Score each sample's output with a faceteval method, its LLM calls made through Inspect's model API.

    Every value is from 0 to 1. Alone (pointwise), it is the output's overall score on the method's
    scale, ``low`` to ``high`` (DnA-Eval: the weighted mean of its facet scores, 1 to 10), as
    ``(score - low) / (high - low)``; the raw score is in the metadata (``scores``, with ``scale``).
    Pairwise (``against``), the output is judged against a baseline or the sample's target, in both
    orders with ``swap``, and the value is 1 for a win, 0.5 for a tie (or orders that disagree) and 0
    for a loss: the mean over samples is the output's win rate. The score's metadata holds the facets
    (names, weights, scores, explanations), the verdict, the per-order results and the usage. A reply
    that could not be read, or a call that failed, leaves the sample unscored (`Score.unscored`, reason
    ``grader_failed``), with the raw replies in its metadata; it is never given a default score.

    Args:
        method: A registered method's name (``dna``, ``direct``, ``cot``, ``coeval``, ``fennec``,
            ``hdeval``...) with its ``options``, or a method object (``DnA(aspects=3)``).
        name: The scorer's name in the log, its results and ``inspect view`` (`DEFAULT_NAME` if None):
            several faceteval scorers in one task keep their scores apart by it.
        against: ``"baseline"`` or ``"target"`` to judge the output against that; None judges it alone.
        baseline: With ``against="baseline"``: the field of the sample's metadata that holds the
            baseline output, or a function of the `TaskState` that returns it.
        target_as_reference: Show the judge the sample's target as a reference answer.
        swap: Pairwise, judge both orders (the verdict is the one both agree on, else a tie).
        model: The judge's model (a name or a `Model`); it takes precedence over ``model_role``.
        model_role: The model role of the judge; when no model is bound to it, the model under test
            judges (as Inspect's own model-graded scorers do).
        cache: Inspect's response cache for the judge's calls (``True`` or a `CachePolicy`); None
            leaves it to the eval (``--cache``).
        config: faceteval's generation settings for the judge's calls (temperature 0 and 1,024
            tokens by default); the model's own config gives everything else.
        **options: The options of the method named by ``method`` (``aspects=3``, ``criteria=[...]``).

    Raises:
        ConfigError: An unknown method or option, options with a method object, an unknown ``against``,
            a bad ``name``, or (judged alone) a method whose scale cannot be known.
    """
    registered = scorer(metrics=[mean(), stderr()], name=_checked_name(name))(_facet_scorer)
    return registered(
        method,
        against=against,
        baseline=baseline,
        target_as_reference=target_as_reference,
        swap=swap,
        model=model,
        model_role=model_role,
        cache=cache,
        config=config,
        **options,
    )


def _facet_scorer(
    method: str | Method = "dna",
    *,
    against: Against | None = None,
    baseline: Baseline = "baseline",
    target_as_reference: bool = False,
    swap: bool = True,
    model: str | Model | None = None,
    model_role: str | None = "grader",
    cache: bool | CachePolicy | None = None,
    config: GenerateConfig | None = None,
    **options: Any,
) -> Scorer:
    """`facet_scorer`'s scorer, registered (``@scorer``) under the scorer's name."""
    judge = _method(method, options)
    _check(against, target_as_reference)
    if against is None:
        facet_scale(judge, None, fix=_UNSCALED)  # a value is a share of the method's scale: known now
    described = judge.describe()
    run_options = JudgeOptions(swap=swap, abort_after=0)

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        instance = _instance(state, target, answer, against, baseline, target_as_reference)
        if isinstance(instance, str):
            return unscored(instance, answer=answer, method=described)
        grader = get_model(model) if model is not None else get_model(role=model_role)
        llm = inspect_llm(grader, cache=cache, config=config)
        (judgment,) = await judge_async([instance], judge, llm, options=run_options)
        scale = _scale(judge, judgment, against)
        return judgment_score(judgment, answer=answer, against=against, method=described, scale=scale)

    return score


# In Inspect's registry from import on under the default name, as `@scorer` puts a scorer there (where
# Inspect finds a scorer by its name: `scorer_create`, the scorers of a log rescored).
scorer(metrics=[mean(), stderr()], name=DEFAULT_NAME)(_facet_scorer)


def _checked_name(name: object) -> str:
    if name is None:
        return DEFAULT_NAME
    if not isinstance(name, str) or not name.strip() or name != name.strip() or "/" in name:
        raise ConfigError(
            "name is the scorer's name in the log: a non-empty text without '/' (which Inspect reads as "
            f"a package) or spaces around it, got {name!r}"
        )
    return name


def _scale(judge: Method, judgment: Judgment, against: Against | None) -> Scale | None:
    """The range of ``judgment``'s overall scores, when it is ok (pairwise, None when it is not known)."""
    if judgment.status != "ok":
        return None
    try:
        return overall_scale(judge, len(judgment.facets), None)
    except ConfigError:
        if against is None:
            raise
        return None


def _method(method: str | Method, options: dict[str, Any]) -> Method:
    if not isinstance(method, str):
        if options:
            raise ConfigError(
                f"method options ({', '.join(options)}) go with a method named by name "
                f"(facet_scorer('dna', aspects=3)); a method object has its own"
            )
        return method
    try:
        return create_method(method, **options)
    except TypeError as exc:
        raise ConfigError(f"method {method!r}: {exc}") from exc


def _check(against: object, target_as_reference: bool) -> None:
    if against is not None and against not in get_args(Against):
        raise ConfigError(f"against must be 'baseline', 'target' or None, got {against!r}")
    if against == "target" and target_as_reference:
        raise ConfigError(
            "against='target' judges the output against the target: it cannot also be its reference"
        )


def _instance(
    state: TaskState,
    target: Target,
    answer: str,
    against: Against | None,
    baseline: Baseline,
    target_as_reference: bool,
) -> Instance | str:
    """The instance a judge sees for ``state``, or why there is none (a sample without a baseline...)."""
    try:
        query = state.input_text
    except ValueError as exc:
        return f"the sample has no input text to judge the output against: {exc}"
    candidates = [answer]
    if against == "target":
        if (other := _target_text(target)) is None:
            return "the sample has no target to judge the output against"
        candidates.append(other)
    elif against == "baseline":
        if (other := _baseline_text(state, baseline)) is None:
            if isinstance(baseline, str):
                return f"the sample has no baseline text in its metadata field {baseline!r}"
            return "the baseline function gave no text for the sample"
        candidates.append(other)
    given = [text for text in target.target if text.strip()]
    reference = "\n".join(given) if target_as_reference and given else None
    return Instance(id=str(state.sample_id), query=query, candidates=tuple(candidates), reference=reference)


def _target_text(target: Target) -> str | None:
    """The first of a sample's targets (it may list several acceptable ones); None when it has none."""
    given = [text for text in target.target if text.strip()]
    return given[0] if given else None


def _baseline_text(state: TaskState, baseline: Baseline) -> str | None:
    value = baseline(state) if callable(baseline) else (state.metadata or {}).get(baseline)
    return value if isinstance(value, str) else None

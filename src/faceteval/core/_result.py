"""The result of a judge run: what each number is, and over what it is counted.

`faceteval.results` computes it (and exports these models); it lives in the data model so that a
run record (`faceteval.store.JudgeSummary`) can hold it as it is.

Every rate is a `Proportion`, whose ``n`` is its denominator; every mean is a `Mean`, whose ``n``
is the number of values averaged. Failed judgments are never in a win rate's or a mean's ``n``:
they are counted beside it (``failed``, `JudgeResult.failures`), and `JudgeResult.ok_rate` is over
every judgment, failed ones included.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RESULT_SCHEMA = 1
"""The version of this model's shape; a reader of stored results checks it."""

Interval = tuple[float, float]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Proportion(_Frozen):
    """A rate: ``value`` is the (possibly fractional) ``hits`` over ``n``, with a confidence interval."""

    value: float | None
    """``hits / n``; None when ``n`` is 0."""
    hits: float
    """What counts as a hit (a win; with ties counted half, wins + ties / 2)."""
    n: int
    """The denominator."""
    ci: Interval | None = None
    """The Wilson score interval at `JudgeResult.level` (conservative when ties count half); None
    when ``n`` is 0."""


class Mean(_Frozen):
    """A mean of scores, with Student's t confidence interval."""

    value: float | None
    """None when no score was given."""
    n: int
    """Scores averaged (of ok judgments; a facet's missing score is not one)."""
    sd: float | None = None
    """Sample standard deviation; None for fewer than two scores."""
    ci: Interval | None = None
    """Student's t interval at `JudgeResult.level`; None for fewer than two scores."""


class Standing(_Frozen):
    """Wins, ties and losses of one system (or candidate position) over its comparisons.

    A comparison is one pair of candidates in one instance: one per pair, three per instance of
    three candidates. The system wins it when its candidate is ranked above the other one.
    """

    name: str
    """The system's name (a position's is its number: ``"1"``, ``"2"`` ...)."""
    wins: int
    ties: int
    losses: int
    failed: int = 0
    """Comparisons in judgments that failed (parse error, error): in no win rate's ``n``."""
    win_rate: Proportion
    """(wins + ties / 2) over wins + ties + losses."""
    win_rate_without_ties: Proportion
    """wins over wins + losses (ties left out)."""
    score: Mean | None = None
    """The system's mean overall score (ok judgments that give scores); None for positions."""


class Matchup(_Frozen):
    """One system against one other, over the comparisons between them (3+ systems)."""

    system: str
    opponent: str
    wins: int
    ties: int
    losses: int
    win_rate: Proportion
    """``system``'s (wins + ties / 2) over the comparisons between the two."""


class Strength(_Frozen):
    """A system's Bradley-Terry strength: P(a beats b) = 1 / (1 + exp(strength_b - strength_a))."""

    system: str
    rank: int
    """1 for the strongest."""
    strength: float
    """Log-odds scale, centred so that the systems' strengths average 0."""
    ci: Interval | None = None
    """Percentile interval over the resamples (see `Ranking.n_resamples`); None when not resampled."""
    comparisons: int
    """Judged comparisons the system took part in."""


class Ranking(_Frozen):
    """A Bradley-Terry ranking of 3 or more systems, fitted by logistic regression (scikit-learn).

    Each pair's counts are taken at their posterior mean given Jeffreys' prior (half a comparison
    added to each of win, tie and loss), so that a pair whose comparisons all went one way still
    gives finite strengths; with many comparisons the prior is negligible.
    """

    method: Literal["bradley-terry"] = "bradley-terry"
    strengths: list[Strength]
    """Strongest first."""
    ties: Literal["half"] = "half"
    """A tie counts as half a win for each side."""
    penalty: float
    """The inverse L2 strength ``C`` of the regression: a weak prior that also ties down systems
    never compared with the rest."""
    n_resamples: int
    """Resamples behind the intervals (a Bayesian bootstrap): in each, every pair keeps its number of
    comparisons and draws its shares of wins, ties and losses from their posterior given its counts
    (a Dirichlet with half a count added to each, Jeffreys' prior), and the strengths are refitted.
    Unlike resampling comparisons, it still varies where a pair's comparisons all went one way."""
    seed: int
    connected: bool
    """Whether every system is linked to every other by comparisons; when not, strengths of
    systems never compared, even through others, cannot be compared."""


class Consistency(_Frozen):
    """Under ``--swap``: how often the presentation orders agreed on the verdict."""

    agreed: int
    disagreed: int
    rate: Proportion
    """agreed over the ok judgments judged in several orders."""


class FacetDecisions(_Frozen):
    """How often one facet decided the verdict (pairwise and listwise judgments).

    Counted over the facet's *verdicts*: ok judgments with a winner (not a tie) that score this
    facet for every candidate and whose overall scores are the facets' sum, mean or weighted sum
    (so that the facets explain the verdict; not CoEval's overall call nor DnA's prompted aggregate).
    """

    verdicts: int
    """The denominator of ``agreed`` and ``decided``."""
    agreed: int
    """Verdicts the facet alone agrees with: its own scores rank the winner first, alone."""
    decided: int
    """Verdicts the facet decided: it agrees, and without it (its weighted score taken out of the
    aggregate) the winner would not win alone (another candidate would win, or tie)."""
    decided_rate: float | None
    """decided / verdicts; None when there are none."""
    decided_for: dict[str, int] = Field(default_factory=dict)
    """Of ``decided``, how many each system won."""


class FacetSummary(_Frozen):
    """One facet (criterion, aspect) across the run, matched by name (case and outer spaces aside)."""

    name: str
    """As first met."""
    judgments: int
    """Ok judgments that scored it."""
    mean_weight: float | None = None
    """Its mean normalised weight, over the judgments that weighted it."""
    means: dict[str, Mean]
    """Each system's mean score on this facet."""
    decisions: FacetDecisions | None = None
    """How often it decided the verdict; None for single outputs (no verdict)."""


class PairwiseResult(_Frozen):
    """The result over instances of two or more candidates."""

    judgments: int
    """Judgments of such instances, whatever their status."""
    systems_named: bool
    """Whether instances named their systems; when not, systems are the candidate positions."""
    systems: list[Standing]
    """Per system, best win rate (ties half) first."""
    positions: list[Standing]
    """Per candidate position, in position order (a position bias shows here)."""
    matrix: list[Matchup] = Field(default_factory=list)
    """Every ordered pair of systems that met, with 3 or more systems."""
    ranking: Ranking | None = None
    """With 3 or more systems."""
    consistency: Consistency | None = None
    """Under ``--swap``."""
    facets: list[FacetSummary] = Field(default_factory=list)
    """The facets met most often, most often met first."""
    facets_omitted: int = 0
    """Other facets, met less often, not listed (their names differ from query to query)."""
    explained: int = 0
    """Ok verdicts with a winner that the facets explain (see `FacetDecisions`)."""
    unexplained: int = 0
    """Ok verdicts with a winner that the facets do not explain: the overall score is not computed
    from them (CoEval's overall call, DnA's prompted aggregate, a judge with no facets)."""


class SystemMean(_Frozen):
    """One system's mean overall score over single outputs."""

    name: str
    score: Mean
    failed: int = 0
    """Its outputs whose judgments failed: not in ``score.n``."""


class PointwiseResult(_Frozen):
    """The result over instances of one candidate (single outputs scored on their own)."""

    judgments: int
    """Judgments of such instances, whatever their status."""
    systems_named: bool
    systems: list[SystemMean]
    """Per system, best mean first."""
    facets: list[FacetSummary] = Field(default_factory=list)
    facets_omitted: int = 0


class LabelledEstimate(_Frozen):
    """A human-scale estimate from human labels: prediction-powered (``ppi++``, the labels correcting
    the judge's verdicts on the rest), or from the labels alone (``classical``)."""

    method: Literal["ppi++", "classical"]
    value: float | None
    """None when too few labels (or, for ``ppi++``, no unlabelled item) give one."""
    ci: Interval | None = None
    """Two-sided, at `JudgeResult.level` (``ppi_py``'s normal interval), clipped to the values' range."""
    labels: int
    """Human labels used."""
    unlabelled: int = 0
    """The judge's predictions of items without a label (``ppi++``)."""


class HumanEstimate(_Frozen):
    """One system's (or position's) win rate, or mean score, as humans would give it."""

    name: str
    judge: float | None
    """The judge-only value (the win rate or mean of the result's own table)."""
    ppi: LabelledEstimate
    human: LabelledEstimate


class VerdictAgreement(_Frozen):
    """How the judge's verdict ``verdict`` (1-based, 0 a tie) agrees with the humans' on labelled items."""

    verdict: int
    tpr: float | None
    """Of the items humans gave this verdict, the share the judge gave it too."""
    tnr: float | None
    """Of the items humans did not give it, the share the judge did not either."""
    humans: int
    """Labelled items humans gave this verdict."""


class HumanLabelled(_Frozen):
    """The result as humans would give it, from a few human labels and the judge's verdicts.

    Prediction-powered inference (PPI++, through ``ppi_py``) corrects the judge's win rates (or
    means) by how its verdicts differ from the labels where both exist: valid whatever the judge's
    biases, when the labelled items are a random sample of those judged. A failed or abstained
    judgment predicts a tie (half a win each way), which the labels correct like any other
    prediction; a labelled item whose labels were chosen by the judge's doubt is set aside.
    """

    labels: int
    """Labels of the run's instances used (two candidates: a ``label``; one: a score)."""
    set_aside: int = 0
    """Labels chosen where the judge was least sure (not a random sample), left out."""
    unusable: int = 0
    """Labels of instances of three or more candidates, or pointwise without the aspect scored."""
    systems: list[HumanEstimate] = Field(default_factory=list)
    positions: list[HumanEstimate] = Field(default_factory=list)
    agreement: list[VerdictAgreement] = Field(default_factory=list)
    """Per verdict, on the labelled pairs the judge judged."""
    kappa: float | None = None
    """Cohen's kappa between the judge's verdicts and the labels (ties a class)."""
    annotators: int = 0
    """Annotators whose own votes the labels carry (``votes``, as the review app exports them)."""
    annotator_alpha: float | None = None
    """Krippendorff's alpha among those annotators, on the items two or more of them labelled
    (nominal for pairwise labels, interval for scores); None with fewer than two annotators."""
    ranking: list[Strength] = Field(default_factory=list)
    """With 3 or more systems: Bradley-Terry strengths as humans would give them, strongest first:
    the PPI estimate (lambda 1) with the prediction-powered bootstrap's percentile intervals
    (``ppi_py.ppboot``, `Ranking.n_resamples` resamples, seeded)."""
    aspect: str | None = None
    """Pointwise: the human score estimated (an aspect of the labels' ``scores``)."""
    note: str | None = None
    """Why no prediction-powered estimate was made, when none was."""


class GroupResult(_Frozen):
    """The headline numbers over one group of instances (``--group-by``: the instances that share a
    field's value): its judgments by status, and per system its win rates or mean scores.

    A group's ``pairwise`` and ``pointwise`` hold the systems, positions, matchups and swap consistency
    of its instances; its facets and Bradley-Terry ranking are the run's alone (left out here).
    """

    value: str | None
    """The field's value these instances share (as text; None: the instances that have none)."""
    judgments: int
    """Its judgments, whatever their status."""
    statuses: dict[str, int]
    """Its judgments by status."""
    ok_rate: Proportion
    """Its ok judgments over its judgments."""
    pairwise: PairwiseResult | None = None
    pointwise: PointwiseResult | None = None


class JudgeResult(_Frozen):
    """What a judge run found: per system, per position and per facet; and what failed.

    ``pairwise`` covers instances of two or more candidates and ``pointwise`` those of one; a run
    may have both. Instances are matched to judgments by id.
    """

    schema_version: int = RESULT_SCHEMA
    level: float = 0.95
    """The confidence level of every interval."""
    judgments: int
    """Every judgment, whatever its status (invalid input lines included)."""
    statuses: dict[str, int]
    """Judgments by status: ``ok``, ``parse_error``, ``error``."""
    failures: dict[str, int]
    """Failed judgments by kind: ``parse_error``, ``error``, ``unjudgeable`` (the method cannot judge
    the instance as it is), ``invalid_input`` (the line is not a valid instance), ``planned`` (a
    dry run's). Each failed judgment is in one kind."""
    ok_rate: Proportion
    """Ok judgments over every judgment."""
    pairwise: PairwiseResult | None = None
    pointwise: PointwiseResult | None = None
    human: HumanLabelled | None = None
    """With human labels for some instances (their ``label``, or ``--human-labels``): the win rates
    (or means) as humans would give them, prediction-powered."""
    group_by: str | None = None
    """The field (or metadata key) the instances are grouped by (``--group-by``); None: not grouped."""
    groups: list[GroupResult] = Field(default_factory=list)
    """With ``group_by``: the result of each group, most judgments first (then by value). A judgment
    of no instance (an invalid input line) is in no group."""

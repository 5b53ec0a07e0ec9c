"""HD-Eval's evaluation domains: how its prompts name the task and the texts, per kind of task.

Liu et al., "HD-Eval" (Section 3, "Datasets and Evaluations": summarization, conversation, data-to-text;
Appendix G, Figures 10-13). The decomposition prompt (Figure 10) puts the evaluation task's name in its
task slot ("quality of text summarization") and follows it with the task's definition; each domain's
hierarchy-aware prompt (Figures 11-13) describes the texts the LLM is given in that domain's words.

A tree (`CriteriaTree.domain`) or the method (``domain=...``) names its domain; a benchmark names its
task type (`faceteval.datasets.Benchmark.task_type`), which is the domain of the trees trained on it.
Without one, the generic wording for any task is used: the task as given (an instruction, say),
shown as quoted data.
"""

from __future__ import annotations

from dataclasses import dataclass

from faceteval.errors import ConfigError

EVALUATE_TEMPLATE = "hdeval/evaluate"
"""The generic hierarchy-aware prompt, for a task of no domain."""


@dataclass(frozen=True, slots=True)
class Domain:
    """One of HD-Eval's evaluation domains.

    Attributes:
        name: How a tree, a benchmark and ``-M domain=...`` name it.
        task: The evaluation task's name, in the decomposition prompt's task slot (Figure 10).
        definition: The task's background and definition, shown after it.
        template: The hierarchy-aware prompt of the domain (Figures 11-13).
    """

    name: str
    task: str
    definition: str
    template: str


DOMAINS: dict[str, Domain] = {
    domain.name: domain
    for domain in (
        Domain(
            name="summarization",
            task="text summarization",
            # Figure 10 (B), SummEval's use case, word for word.
            definition="A text summarization is a shorter passage that encompasses the key details of "
            "original article but much shorter.",
            template="hdeval/evaluate/summarization",
        ),
        Domain(
            name="dialogue",
            task="dialogue generation",
            # Ours, in Figure 11's words (the paper shows SummEval's definition only).
            definition="A dialogue response is one potential response for the next turn in a conversation "
            "between two individuals, given the conversation history and its corresponding fact.",
            template="hdeval/evaluate/dialogue",
        ),
        Domain(
            name="data-to-text",
            task="data-to-text generation",
            # Ours, in Figure 13's words.
            definition="A data-to-text output is a natural language sentence generated according to a "
            "structured data expression.",
            template="hdeval/evaluate/data-to-text",
        ),
    )
}
"""The domains, by name: the paper's three."""


def domain_of(name: str | None) -> Domain | None:
    """The domain ``name`` (None: the generic wording).

    Raises:
        ConfigError: No domain has that name.

    Examples:
        >>> domain_of("summarization").task
        'text summarization'
    """
    if name is None:
        return None
    if not isinstance(name, str) or name not in DOMAINS:
        raise ConfigError(f"unknown HD-Eval domain {name!r}; the domains are {', '.join(DOMAINS)}")
    return DOMAINS[name]

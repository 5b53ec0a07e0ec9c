"""LLMBar (Natural, Adversarial, CaseStudy) and LLMBar's processed FairEval / LLMEval^2 / MT-Bench
sets, with the recorded GPT-4, ChatGPT and LLaMA-2 judge outputs (every prompting strategy).

Instance ids are ``<benchmark>:<1-based position in dataset.json>``; ``llmbar-adversarial`` is the
four adversarial subsets in a row and keeps the subset ids (``llmbar-adversarial-neighbor:12``).

The recorded outputs (``recorded:llmbar/<judge>/<strategy>``) are read by `_llmbar_recorded`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from faceteval._util.records import Record, json_records
from faceteval.core import Criterion, Instance
from faceteval.datasets._benchmark import Benchmark, RemoteFile
from faceteval.datasets._faireval import FAIREVAL_CRITERIA
from faceteval.datasets._llmbar_recorded import LlmbarSet, discover
from faceteval.datasets._mtbench import MTBENCH_CRITERIA, QUESTIONS_FILE, read_questions

_URL = "https://github.com/princeton-nlp/LLMBar"

_RULES = (
    "(1) You should prioritize evaluating whether the output honestly/precisely/closely executes the "
    "instruction, then consider its helpfulness, accuracy, level of detail, harmlessness, etc.\n"
    "(2) Outputs should NOT contain more/less than what the instruction asks for, as such outputs do NOT "
    "precisely execute the instruction."
)
"""LLMBar's evaluation rules, quoted from the prompt its Swap synthesis step stores in result.json."""
_AFTER = "considered after whether the output executes the instruction (LLMBar rule 1)"
LLMBAR_CRITERIA = (
    Criterion(
        name="instruction following",
        description=(
            "Whether the output honestly, precisely and closely executes the instruction, with no more "
            "and no less than it asks for; evaluated first (LLMBar rules 1-2)."
        ),
        guideline=_RULES,
    ),
    Criterion(name="helpfulness", description=f"How helpful the output is, {_AFTER}."),
    Criterion(name="accuracy", description=f"Whether the output is correct, {_AFTER}."),
    Criterion(name="level of detail", description=f"How detailed the output is, {_AFTER}."),
    Criterion(name="harmlessness", description=f"Whether the output avoids harm, {_AFTER}."),
)


def _adversarial(subset: str, sha256: str) -> LlmbarSet:
    return LlmbarSet(
        f"llmbar-adversarial-{subset.lower()}", f"llmbar/LLMBar/Adversarial/{subset}", sha256, subset
    )


def _case_study(case: str, sha256: str) -> LlmbarSet:
    return LlmbarSet(f"llmbar-casestudy-{case.lower().replace('_', '-')}", f"llmbar/CaseStudy/{case}", sha256)


_NATURAL = LlmbarSet(
    "llmbar-natural",
    "llmbar/LLMBar/Natural",
    "f7127b7aa78104cb8e03a2b1b3ac0077e95b125714dd441a8ee63666145a3375",
)
_ADVERSARIAL = (
    _adversarial("Neighbor", "6712c7eda6342602e0bc7c06c282fa95e2110d4e741a284026a62d937f9780a0"),
    _adversarial("GPTInst", "1002425f73c2cf54b6e6de99bce3f6c60fa2a17d13194772e37d7481c1351d42"),
    _adversarial("GPTOut", "1ff56e520d7607750a9866a3be0f5b850392ca4477a1f69d80f32bd3e310f561"),
    _adversarial("Manual", "0d9598769a39cdbbd265778c37e49939d41d5f76dcfb17bd75dcfa07516d3837"),
)
_FAIREVAL = LlmbarSet(
    "llmbar-faireval",
    "llmbar/Processed/FairEval",
    "5b4a129258c1efa273a1b10fec399f5462b458facf900e8e1948f4acb1b37dd6",
)
_LLMEVAL2 = LlmbarSet(
    "llmbar-llmeval2",
    "llmbar/Processed/LLMEval^2",
    "deffdaeccda39c0fb9337c7e20925ec2b973bfd456832c2f1ba0e9ca4cf107de",
)
_MTBENCH = LlmbarSet(
    "llmbar-mtbench",
    "llmbar/Processed/MT-Bench",
    "c152249bc095d152485954bd2abd9ea79528ee5e4c045bfe9ef78755b03c20d8",
)
_CASESTUDY = (
    ("Constraint", 89, "8b702c755bdba59f63cf61e8643a5718799df8ed8f3b93b27dbf1db0e8c3c009"),
    ("Negation", 59, "c4ce566f652606d25445efedcb01d2a359c5ce03c6457e3c518a129dbd608c4e"),
    ("Normal", 59, "f6f2c4833d57ab8aaa8aa51bf521296b6f2e26323aad5c08da5331924af450ba"),
    ("Base_9", 54, "b3989dcdaddb277207ab86631db2185edd15802e27b947a5dacb663895fddd69"),
    ("Base_10", 54, "e36ae2461fd633c51afdbe19d9f62bc77089c7efc8a58e03fc273518a78ab1b0"),
)


# ----- instances -----------------------------------------------------------------------------------


Annotate = Callable[[Record, str], tuple[str | None, dict[str, Any]]]
"""``(dataset record, input) -> (category, extra metadata)`` for one record."""


def _set_instances(
    root: Path,
    spec: LlmbarSet,
    annotate: Annotate | None = None,
    criteria: tuple[Criterion, ...] | None = None,
) -> Iterator[Instance]:
    """The set's instances; with ``criteria``, each carries them (its source benchmark's predefined ones)."""
    path = root / spec.folder / "dataset.json"
    for record in json_records(path):
        pos = record.position
        query = record.get("input", str)
        label = record.get("label", int)
        if label not in (1, 2):
            raise record.error("label", f"expected 1 or 2, got {label}")
        category, extra = annotate(record, query) if annotate else (spec.category, {})
        yield Instance(
            id=f"{spec.name}:{pos}",
            query=query,
            candidates=(record.get("output_1", str), record.get("output_2", str)),
            label=label,
            category=category,
            criteria=criteria,
            metadata={"llmbar_set": spec.folder.removeprefix("llmbar/"), "position": pos, **extra},
        )


def _mtbench_instances(root: Path) -> Iterator[Instance]:
    """LLMBar's MT-Bench pairs, with the MT-Bench question id and category found by the turn-1 text."""
    by_text = {q.turns[0]: q for q in read_questions(root).values()}

    def annotate(record: Record, query: str) -> tuple[str | None, dict[str, Any]]:
        question = by_text.get(query)
        if question is None:
            raise record.error("input", f"not the turn-1 text of a question in {QUESTIONS_FILE.path}")
        return question.category, {"question_id": question.question_id, "category": question.category}

    return _set_instances(root, _MTBENCH, annotate, MTBENCH_CRITERIA)


# ----- the benchmarks ----------------------------------------------------------------------------------


def _benchmark(
    sets: Sequence[LlmbarSet],
    title: str,
    size: int,
    *,
    name: str | None = None,
    folder: str | None = None,
    criteria: tuple[Criterion, ...] = LLMBAR_CRITERIA,
    prompt_style: str | None = "llmbar",
    load: Callable[[Path], Iterator[Instance]] | None = None,
    license: str = "MIT License (LLMBar)",
    also_fetch: tuple[RemoteFile, ...] = (),
    notes: str = "",
) -> Benchmark:
    return Benchmark(
        name=name or sets[0].name,
        title=title,
        kind="pairwise",
        labels="better output 1/2, no ties",
        license=license,
        path=folder or sets[0].folder,
        load=load or (lambda root: (i for s in sets for i in _set_instances(root, s))),
        size=size,
        url=_URL,
        criteria=criteria,
        prompt_style=prompt_style,
        recorded=discover(sets),
        fetch=(*(s.file for s in sets), *also_fetch),
        notes=notes,
    )


_NOTES = (
    "Criteria: LLMBar's evaluation rules, quoted from its prompts. Recorded judges: every "
    "evaluators/<judge>/<strategy> folder present; fetch lists the dataset files only (the evaluator "
    "outputs are in the same repository commit under Dataset/.../evaluators/)."
)
_PROCESSED = "MIT License (LLMBar); derived from {} human judgments, whose own terms apply"

BENCHMARKS: tuple[Benchmark, ...] = (
    _benchmark(
        [_NATURAL],
        "LLMBar Natural: instruction-following output pairs from existing preference data",
        100,
        notes=_NOTES,
    ),
    _benchmark(
        _ADVERSARIAL,
        "LLMBar Adversarial: pairs where the worse output looks better (Neighbor, GPTInst, GPTOut, Manual)",
        319,
        name="llmbar-adversarial",
        folder="llmbar/LLMBar/Adversarial",
        notes=_NOTES + " Instance ids are the subsets' ids; category is the subset.",
    ),
    _benchmark([_ADVERSARIAL[0]], "LLMBar Adversarial, Neighbor subset", 134, notes=_NOTES),
    _benchmark([_ADVERSARIAL[1]], "LLMBar Adversarial, GPTInst subset", 92, notes=_NOTES),
    _benchmark([_ADVERSARIAL[2]], "LLMBar Adversarial, GPTOut subset", 47, notes=_NOTES),
    _benchmark([_ADVERSARIAL[3]], "LLMBar Adversarial, Manual subset", 46, notes=_NOTES),
    _benchmark(
        [_FAIREVAL],
        "FairEval as processed by LLMBar: the 66 non-tie ChatGPT vs Vicuna-13B questions",
        66,
        criteria=FAIREVAL_CRITERIA,
        prompt_style="faireval",
        load=lambda root: _set_instances(root, _FAIREVAL, criteria=FAIREVAL_CRITERIA),
        license=_PROCESSED.format("FairEval"),
        notes="Every instance carries FairEval's four perspectives, as faireval's do.",
    ),
    _benchmark(
        [_LLMEVAL2],
        "LLMEval^2 as processed by LLMBar: 200 non-tie English items",
        200,
        criteria=(),
        prompt_style=None,
        license=_PROCESSED.format("LLMEval^2"),
        notes="One record has identical outputs and one has an empty field (kept as is).",
    ),
    _benchmark(
        [_MTBENCH],
        "MT-Bench as processed by LLMBar: 200 non-tie turn-1 pairs, majority human vote",
        200,
        criteria=MTBENCH_CRITERIA,
        prompt_style="mtbench",
        load=_mtbench_instances,
        license=_PROCESSED.format("MT-Bench") + "; questions Apache-2.0 (FastChat)",
        also_fetch=(QUESTIONS_FILE,),
        notes=(
            "category and metadata question_id/category come from matching the input to "
            "mt_bench/question.jsonl turns[0] (all 200 match); model names were not kept."
        ),
    ),
    *(
        _benchmark(
            [_case_study(case, sha)],
            f"LLMBar case study set {case}",
            size,
            notes="No recorded judge outputs are staged for the case study sets.",
        )
        for case, size, sha in _CASESTUDY
    ),
)

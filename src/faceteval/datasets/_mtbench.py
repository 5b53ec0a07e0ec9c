"""MT-Bench human pairwise votes (labels only, no answer texts) and GPT-4's pairwise verdicts.

One instance per human vote (3,355 votes; 2,668 by experts). The answers the votes compare are not
distributed with the votes, so the candidates are placeholders naming the model whose answer is missing
and the benchmark is marked ``texts=False``: it can be scored against recorded judges only.

Choices made here:

- The query of a turn-1 vote is the turn-1 question. A turn-2 vote judges the answers to the follow-up
  question, which only makes sense after the first, so its query holds both, labelled
  ``Turn 1: ...`` and ``Turn 2 (...): ...``. The reference (GPT-4's reference answer, questions 101-130)
  follows the same shape.
- Expert votes: ``metadata["judge_kind"]`` is ``expert`` or ``author`` on every instance. The
  ``mtbench-human`` benchmark holds the 2,668 expert votes (the MT-Bench paper's agreement tables use
  those); ``mtbench-human-all`` adds the authors' votes. Ids are shared, so judgments join either way.
- ``recorded:gpt4-pair`` gives each vote GPT-4's verdict for the same question, unordered model pair
  and turn (flipped when GPT-4 saw the models in the other order). MT-Bench judged every pair in both
  orders and kept a winner only when both orders agreed (FastChat: ``winner = g1 if g1 == g2 else
  "inconsistent"``), so ``model_a``/``model_b``/``tie`` are consistent (``consistent=True``) and
  ``tie (inconsistent)`` is a tie with ``consistent=False``. The per-order verdicts are not published,
  so ``orders`` is empty.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from faceteval._util.files import read_jsonl
from faceteval._util.records import field
from faceteval.core import Criterion, Instance, Judgment, TraceEntry
from faceteval.datasets._benchmark import Benchmark, RecordedSource, RemoteFile
from faceteval.errors import InputError

_FASTCHAT = (
    "https://raw.githubusercontent.com/lm-sys/FastChat/0e6d3e4beaab66f4d3f93db72541a4abab8af28d/"
    "fastchat/llm_judge/data/"
)
_EVALAUDIT = (
    "https://raw.githubusercontent.com/mokayahezron/evalaudit/9011cf59598a2fccc4023e40d30f089219238f4f/"
    "tests/data/"
)
QUESTIONS = "mt_bench/question.jsonl"
_REFERENCES = "mt_bench/reference_answer/gpt-4.jsonl"
_HUMAN = "mt_bench/human_judgments/mt_bench_human.csv"
_GPT4 = "mt_bench/human_judgments/mt_bench_gpt4_pair.csv"

QUESTIONS_FILE = RemoteFile(
    url=_FASTCHAT + "mt_bench/question.jsonl",
    path=QUESTIONS,
    sha256="119565adbab82227089cefdb44c8d7e2cf04dc0a0ec233634c82e7d4e2a944f7",
)
_FETCH = (
    QUESTIONS_FILE,
    RemoteFile(
        url=_FASTCHAT + "mt_bench/reference_answer/gpt-4.jsonl",
        path=_REFERENCES,
        sha256="f957a5bc977badb66885ec970e6cd08527845780313f0995764260e5777b9b3f",
    ),
    RemoteFile(
        url=_EVALAUDIT + "mt_bench_human.csv",
        path=_HUMAN,
        sha256="c41f65237a1b2e1e877721bf7c01c79e0b44d3d1a0bbe045046acce20a88189e",
    ),
    RemoteFile(
        url=_EVALAUDIT + "mt_bench_gpt4_pair.csv",
        path=_GPT4,
        sha256="9148248956477aff4b7dd3a2a4b60bce3461906aecc36d057a810be1e63306b8",
    ),
)

MTBENCH_CRITERIA = (
    Criterion(name="helpfulness", description="How much the response helps the user with the question."),
    Criterion(name="relevance", description="How closely the response addresses what the user asked."),
    Criterion(name="accuracy", description="Whether what the response states is correct."),
    Criterion(name="depth", description="How thoroughly the response goes into the subject."),
    Criterion(name="creativity", description="How original and inventive the response is."),
    Criterion(name="level of detail", description="How much relevant detail the response gives."),
)
"""The six factors MT-Bench's ``pair-v2`` judge prompt names ("Your evaluation should consider factors
such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their
responses"), the same six the human judges were asked to weigh: the DnA-Eval paper's predefined criteria
of MT-Bench (Table 1, Section 4), which every instance carries."""

_LABELS = {"model_a": 1, "model_b": 2, "tie": 0}
_GPT4_VERDICTS = {"model_a": 1, "model_b": 2, "tie": 0, "tie (inconsistent)": 0}
_TURN_2_QUERY = "Turn 1: {first}\n\nTurn 2 (the answers judged respond to this turn): {second}"
_TURN_2_REFERENCE = "Turn 1: {first}\n\nTurn 2: {second}"


@dataclass(frozen=True, slots=True)
class Question:
    """One MT-Bench question: its id, category and the two user turns."""

    question_id: int
    category: str
    turns: tuple[str, str]


@dataclass(frozen=True, slots=True)
class _Vote:
    row: int
    """1-based data row of the CSV (the file line is ``row + 1``)."""
    question_id: int
    model_a: str
    model_b: str
    winner: str
    judge: str
    turn: int


def read_questions(root: Path) -> dict[int, Question]:
    """The 80 MT-Bench questions of ``mt_bench/question.jsonl`` under the data directory, by id."""
    path = root / QUESTIONS
    questions: dict[int, Question] = {}
    for line, record in read_jsonl(path):
        qid = field(record, "question_id", int, path=path, line=line)
        turns = field(record, "turns", list, path=path, line=line)
        if len(turns) != 2 or not all(isinstance(t, str) for t in turns):
            raise InputError(str(path), line, "turns", "expected a list of two strings")
        category = field(record, "category", str, path=path, line=line)
        questions[qid] = Question(qid, category, (turns[0], turns[1]))
    return questions


def _read_references(root: Path) -> dict[int, tuple[str, str]]:
    path = root / _REFERENCES
    references: dict[int, tuple[str, str]] = {}
    for line, record in read_jsonl(path):
        qid = field(record, "question_id", int, path=path, line=line)
        choices = field(record, "choices", list, path=path, line=line)
        turns = choices[0].get("turns") if choices and isinstance(choices[0], dict) else None
        if not isinstance(turns, list) or len(turns) != 2 or not all(isinstance(t, str) for t in turns):
            raise InputError(str(path), line, "choices[0].turns", "expected a list of two strings")
        references[qid] = (turns[0], turns[1])
    return references


def _read_votes(path: Path, winners: Mapping[str, int]) -> list[_Vote]:
    """The rows of an MT-Bench votes CSV; errors name the file line (header = line 1) and column."""
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    with handle:
        reader = csv.DictReader(handle)
        votes = [_vote(path, row, record, winners) for row, record in enumerate(reader, start=1)]
    return votes


def _vote(path: Path, row: int, record: Mapping[str, str | None], winners: Mapping[str, int]) -> _Vote:
    line = row + 1

    def text(name: str) -> str:
        value = record.get(name)
        if not value:
            raise InputError(str(path), line, name, "missing or empty")
        return value

    def number(name: str, allowed: range) -> int:
        value = text(name)
        if not value.isdigit() or int(value) not in allowed:
            raise InputError(
                str(path), line, name, f"expected an integer in {allowed.start}..{allowed.stop - 1}"
            )
        return int(value)

    winner = text("winner")
    if winner not in winners:
        raise InputError(str(path), line, "winner", f"expected one of {sorted(winners)}, got {winner!r}")
    return _Vote(
        row=row,
        question_id=number("question_id", range(1, 10_000)),
        model_a=text("model_a"),
        model_b=text("model_b"),
        winner=winner,
        judge=text("judge"),
        turn=number("turn", range(1, 3)),
    )


def _judge_kind(judge: str) -> str:
    return judge.split("_", 1)[0]


def vote_key(instance: Instance) -> tuple[int, tuple[str, str], int]:
    """``(question_id, sorted model pair, turn)``: the unit MT-Bench compares a human vote with a judge on.

    Examples:
        >>> pair = Instance(id="x", query="q", candidates=("a", "b"),
        ...     metadata={"question_id": 81, "model_a": "vicuna-13b-v1.2", "model_b": "gpt-4", "turn": 2})
        >>> vote_key(pair)
        (81, ('gpt-4', 'vicuna-13b-v1.2'), 2)
    """
    meta = instance.metadata
    low, high = sorted((str(meta["model_a"]), str(meta["model_b"])))
    return int(meta["question_id"]), (low, high), int(meta["turn"])


def _instance(vote: _Vote, question: Question, reference: tuple[str, str] | None) -> Instance:
    if vote.turn == 1:
        query = question.turns[0]
        ref = reference[0] if reference else None
    else:
        query = _TURN_2_QUERY.format(first=question.turns[0], second=question.turns[1])
        ref = _TURN_2_REFERENCE.format(first=reference[0], second=reference[1]) if reference else None
    placeholder = "(answer of {} to turn {}, not distributed)"
    return Instance(
        id=f"mtbench-human:{vote.row}",
        query=query,
        candidates=(placeholder.format(vote.model_a, vote.turn), placeholder.format(vote.model_b, vote.turn)),
        reference=ref,
        category=question.category,
        label=_LABELS[vote.winner],
        criteria=MTBENCH_CRITERIA,
        metadata={
            "question_id": vote.question_id,
            "model_a": vote.model_a,
            "model_b": vote.model_b,
            "turn": vote.turn,
            "judge": vote.judge,
            "judge_kind": _judge_kind(vote.judge),
        },
    )


def _human_votes(root: Path, *, experts_only: bool) -> list[_Vote]:
    votes = _read_votes(root / _HUMAN, _LABELS)
    if experts_only:
        return [v for v in votes if _judge_kind(v.judge) == "expert"]
    return votes


def _load(root: Path, *, experts_only: bool) -> Iterator[Instance]:
    questions = read_questions(root)
    references = _read_references(root)
    path = root / _HUMAN
    for vote in _human_votes(root, experts_only=experts_only):
        if vote.question_id not in questions:
            raise InputError(
                str(path), vote.row + 1, "question_id", f"{vote.question_id} is not in {QUESTIONS}"
            )
        yield _instance(vote, questions[vote.question_id], references.get(vote.question_id))


def _gpt4_verdicts(root: Path) -> dict[tuple[int, tuple[str, str], int], _Vote]:
    path = root / _GPT4
    verdicts: dict[tuple[int, tuple[str, str], int], _Vote] = {}
    for vote in _read_votes(path, _GPT4_VERDICTS):
        low, high = sorted((vote.model_a, vote.model_b))
        key = (vote.question_id, (low, high), vote.turn)
        if key in verdicts:
            raise InputError(str(path), vote.row + 1, None, f"a second GPT-4 verdict for {key}")
        verdicts[key] = vote
    return verdicts


def _gpt4_judgments(root: Path, *, experts_only: bool) -> Iterator[Judgment]:
    verdicts = _gpt4_verdicts(root)
    for vote in _human_votes(root, experts_only=experts_only):
        low, high = sorted((vote.model_a, vote.model_b))
        gpt4 = verdicts.get((vote.question_id, (low, high), vote.turn))
        if gpt4 is None:
            continue
        verdict = _GPT4_VERDICTS[gpt4.winner]
        if verdict and gpt4.model_a != vote.model_a:
            verdict = 3 - verdict
        yield Judgment(
            id=f"mtbench-human:{vote.row}",
            method="recorded:gpt4-pair",
            status="ok",
            verdict=verdict,
            consistent=gpt4.winner != "tie (inconsistent)",
            trace=[
                TraceEntry(
                    stage="recorded:gpt4-pair",
                    messages=[],
                    raw=f"{gpt4.model_a} vs {gpt4.model_b}: {gpt4.winner}",
                    parsed=verdict,
                )
            ],
        )


def _recorded(*, experts_only: bool) -> tuple[RecordedSource, ...]:
    return (
        RecordedSource(
            name="gpt4-pair",
            judge="GPT-4 (gpt-4, 2023), MT-Bench pairwise judge prompts, both orders",
            description=(
                "MT-Bench's published GPT-4 pairwise verdicts, one per question, model pair and turn, "
                "joined to each human vote on the same comparison; 'tie (inconsistent)' (the two orders "
                "disagreed) is a tie with consistent=False"
            ),
            load=lambda root: _gpt4_judgments(root, experts_only=experts_only),
        ),
    )


def _benchmark(name: str, *, experts_only: bool, size: int) -> Benchmark:
    who = "expert" if experts_only else "expert and author"
    return Benchmark(
        name=name,
        title=f"MT-Bench {who} pairwise votes on six chat models' answers to 80 two-turn questions",
        kind="pairwise",
        labels="one vote: better answer model_a -> 1, model_b -> 2, tie -> 0",
        license="CC BY 4.0 (votes, lmsys/mt_bench_human_judgments); Apache-2.0 (questions, FastChat)",
        path=_HUMAN,
        load=lambda root: _load(root, experts_only=experts_only),
        size=size,
        url="https://huggingface.co/datasets/lmsys/mt_bench_human_judgments",
        criteria=MTBENCH_CRITERIA,
        prompt_style="mtbench",
        texts=False,
        recorded=lambda _root: _recorded(experts_only=experts_only),
        fetch=_FETCH,
        notes=(
            "Answer texts are not distributed: candidates are placeholders. Instance ids are "
            "mtbench-human:<CSV data row>, shared by mtbench-human (expert votes) and "
            "mtbench-human-all (all votes). "
            "A turn-2 "
            "query holds both turns. metadata: question_id, model_a, model_b, turn, judge, judge_kind "
            "(expert/author). The votes CSVs are the evalaudit copy of the Hugging Face dataset "
            "(six columns kept, conversations dropped). Use faceteval.datasets.vote_key() to compare a "
            "vote with the judge's verdict for the same question, model pair and turn."
        ),
    )


BENCHMARKS: tuple[Benchmark, ...] = (
    _benchmark("mtbench-human", experts_only=True, size=2668),
    _benchmark("mtbench-human-all", experts_only=False, size=3355),
)

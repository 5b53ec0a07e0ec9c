"""Presets: the published layouts of common preference data, read without a field map.

Each preset prepares one raw row of its layout into the canonical fields (``query``, ``candidates``,
``label``, ``systems``, and ``id`` where the layout has one), which are put over the raw row; the
columns it keeps go to ``metadata``, and any raw column can still be mapped to a field (e.g.
``--field category=dataset``). A bad value raises `FieldProblem` naming the raw column.
`PRESETS` lists them; docs/inputs.md has the table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from faceteval._util.files import UnreadableJSON, decode_json
from faceteval.datasets._field_map import FieldProblem
from faceteval.datasets._rows import Prepare
from faceteval.errors import ConfigError

WINNER_WORDS: Mapping[str, int] = {
    "model_a": 1,
    "model_b": 2,
    "tie": 0,
    "tie (bothbad)": 0,  # Chatbot Arena: both bad
    "tie (inconsistent)": 0,  # MT-Bench's GPT-4 pair split: the verdict changed with the order
}


@dataclass(frozen=True, slots=True)
class Preset:
    """A named layout: what it reads (``columns``), and the function preparing each row."""

    name: str
    source: str
    """Whose layout it is (a dataset or tool), for the docs and ``--help``."""
    columns: str
    """The columns it reads, in words."""
    prepare: Prepare
    keep: tuple[str, ...] = ()
    """The columns carried into ``metadata`` (unless a field map lists its own)."""


def get_preset(name: str) -> Preset:
    """The preset called ``name``.

    Raises:
        ConfigError: There is none of that name (the message lists them).
    """
    for preset in PRESETS:
        if preset.name == name:
            return preset
    known = ", ".join(p.name for p in PRESETS)
    raise ConfigError(f"unknown preset {name!r}; the presets are: {known}")


# --- values -----------------------------------------------------------------------------------


def _get(row: Mapping[str, Any], column: str) -> Any:
    if column not in row:
        raise FieldProblem(column, "missing (the preset reads this column)")
    return row[column]


def _text(row: Mapping[str, Any], column: str) -> str:
    value = _get(row, column)
    if not isinstance(value, str):
        raise FieldProblem(column, f"expected text, got {_kind(value)}")
    return value


def _optional_text(row: Mapping[str, Any], column: str) -> str | None:
    value = row.get(column)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FieldProblem(column, f"expected text, got {_kind(value)}")
    return value


def _structured(row: Mapping[str, Any], column: str, cells: bool) -> Any:
    """A list or object column; a CSV cell holds it as JSON text."""
    value = _get(row, column)
    if cells and isinstance(value, str):
        try:
            return decode_json(value)
        except json.JSONDecodeError as exc:
            raise FieldProblem(column, f"not valid JSON: {exc.msg}") from None
        except UnreadableJSON as exc:
            raise FieldProblem(column, exc.problem) from None
    return value


def _number(row: Mapping[str, Any], column: str) -> float | None:
    value = row.get(column)
    if value is None or value == "":
        return None
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if math.isnan(number) and not (isinstance(value, float) and math.isnan(value)):
        raise FieldProblem(column, f"expected a number, got {value!r}")
    return None if math.isnan(number) else number


def _kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "text"}
    return names.get(type(value), "a list" if isinstance(value, list | tuple) else type(value).__name__)


# --- AlpacaEval -------------------------------------------------------------------------------


def _alpacaeval(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    query = _text(row, "instruction")
    if extra := _optional_text(row, "input"):  # AlpacaFarm's layout: an instruction and its input
        query = f"{query}\n\n{extra}"
    record: dict[str, Any] = {"query": query, "candidates": [_text(row, "output_1"), _text(row, "output_2")]}
    generators = [_optional_text(row, "generator_1"), _optional_text(row, "generator_2")]
    if all(generators):
        record["systems"] = generators
    record["label"] = _preference(_number(row, "preference"))
    return record


def _preference(value: float | None) -> int | None:
    """AlpacaEval's preference: 1 or 2 (a weighted annotator's 1 + P(output_2 better)), 1.5 or 0 a draw."""
    if value is None:
        return None
    if value == 0 or math.isclose(value, 1.5):
        return 0
    if not 1 <= value <= 2:
        raise FieldProblem("preference", f"expected 1 to 2 (1.5 or 0: a draw), got {value:g}")
    return 1 if value < 1.5 else 2


# --- conversations: MT-Bench human judgments, Chatbot Arena ---------------------------------------


def _turns(column: str, value: Any) -> list[tuple[str, str]]:
    """The ``(role, content)`` messages of a conversation column (a list of ``{role, content}``)."""
    if not isinstance(value, list | tuple):
        raise FieldProblem(column, f"expected a list of messages, got {_kind(value)}")
    messages = []
    for position, message in enumerate(value, start=1):
        role = message.get("role") if isinstance(message, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        if role not in ("user", "assistant") or not isinstance(content, str):
            raise FieldProblem(
                column,
                f"message {position}: expected {{role: user|assistant, content: text}}, got {message!r}",
            )
        messages.append((role, content))
    return messages


def _pair_of_conversations(row: Mapping[str, Any], cells: bool, turn: int | None) -> dict[str, Any]:
    """The query and the two candidates of a pair of conversations, up to user turn ``turn`` (all:
    None): one turn's query and replies; several turns' user messages, and each side's transcript."""
    sides = [_turns(c, _structured(row, c, cells)) for c in ("conversation_a", "conversation_b")]
    users = [[text for role, text in side if role == "user"] for side in sides]
    turn = turn or len(users[0])
    if not 1 <= turn <= len(users[0]):
        raise FieldProblem("turn", f"turn {turn}, but conversation_a has {len(users[0])} user turns")
    if users[1][:turn] != users[0][:turn]:
        raise FieldProblem("conversation_b", "its user turns differ from conversation_a's")
    candidates = []
    for column, side in zip(("conversation_a", "conversation_b"), sides, strict=True):
        upto = _upto_turn(side, turn)
        if upto[-1][0] != "assistant":
            raise FieldProblem(column, f"no reply to user turn {turn}")
        candidates.append(upto[-1][1] if turn == 1 else _transcript(upto))
    query = (
        users[0][0] if turn == 1 else "\n\n".join(f"Turn {n}: {t}" for n, t in enumerate(users[0][:turn], 1))
    )
    return {"query": query, "candidates": candidates}


def _upto_turn(messages: list[tuple[str, str]], turn: int) -> list[tuple[str, str]]:
    """The messages up to the replies to user turn ``turn``."""
    seen = 0
    for index, (role, _) in enumerate(messages):
        if role == "user":
            seen += 1
            if seen == turn + 1:
                return messages[:index]
    return messages


def _transcript(messages: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"{'User' if role == 'user' else 'Assistant'}: {text}" for role, text in messages)


def _winner(row: Mapping[str, Any]) -> int | None:
    value = row.get("winner")
    if value is None or value == "":
        return None
    if value not in WINNER_WORDS:
        raise FieldProblem("winner", f"expected one of {', '.join(WINNER_WORDS)}, got {value!r}")
    return WINNER_WORDS[value]


def _models(row: Mapping[str, Any]) -> dict[str, Any]:
    models = [_optional_text(row, "model_a"), _optional_text(row, "model_b")]
    return {"systems": models} if all(models) and models[0] != models[1] else {}


def _mtbench(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    turn = _number(row, "turn")
    record = _pair_of_conversations(row, cells, None if turn is None else int(turn))
    turns = {} if turn is None else {"turn": int(turn)}  # a number, as `meta-eval --turn` reads it
    return record | _models(row) | {"label": _winner(row)} | turns


def _arena(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    record = _pair_of_conversations(row, cells, None)
    question = row.get("question_id")
    ids = {"id": question} if isinstance(question, str | int) and question != "" else {}
    return record | _models(row) | {"label": _winner(row)} | ids


# --- HH-RLHF ------------------------------------------------------------------------------------

ASSISTANT = "\n\nAssistant:"


def _hh_rlhf(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    chosen, rejected = _text(row, "chosen"), _text(row, "rejected")
    shared = 0
    start = chosen.find(ASSISTANT)
    while start != -1 and rejected[: start + len(ASSISTANT)] == chosen[: start + len(ASSISTANT)]:
        shared = start + len(ASSISTANT)
        start = chosen.find(ASSISTANT, shared)
    if not shared:
        raise FieldProblem("rejected", "shares no dialogue ending in 'Assistant:' with 'chosen'")
    prefix = chosen[: shared - len(ASSISTANT)].strip()
    candidates = [chosen[shared:].strip(), rejected[shared:].strip()]
    return {"query": prefix, "candidates": candidates, "label": 1, "systems": ["chosen", "rejected"]}


# --- UltraFeedback ------------------------------------------------------------------------------


def _ultrafeedback(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    completions = _structured(row, "completions", cells)
    if not isinstance(completions, list | tuple) or not completions:
        raise FieldProblem("completions", f"expected a list of completions, got {_kind(completions)}")
    responses, models, scores = [], [], []
    for position, completion in enumerate(completions, start=1):
        if not isinstance(completion, Mapping):
            raise FieldProblem("completions", f"completion {position}: expected an object")
        try:
            responses.append(_text(completion, "response"))
            scores.append(_number(completion, "overall_score"))
        except FieldProblem as problem:
            raise FieldProblem(f"completions.{position - 1}.{problem.column}", problem.problem) from None
        models.append(completion.get("model"))
    record: dict[str, Any] = {"query": _text(row, "instruction"), "candidates": responses, "label": None}
    if all(isinstance(m, str) and m for m in models) and len(set(models)) == len(models):
        record["systems"] = models
    if all(score is not None for score in scores) and len(scores) > 1:
        best = max(s for s in scores if s is not None)
        top = [n for n, s in enumerate(scores, start=1) if s == best]
        record["label"] = top[0] if len(top) == 1 else 0
    return record | {"overall_scores": scores}


def _ultrafeedback_binarized(row: Mapping[str, Any], cells: bool) -> dict[str, Any]:
    replies = [_last_reply(c, _structured(row, c, cells)) for c in ("chosen", "rejected")]
    record: dict[str, Any] = {"query": _text(row, "prompt"), "candidates": replies, "label": None}
    scores = _number(row, "score_chosen"), _number(row, "score_rejected")
    if scores[0] is not None and scores[1] is not None:
        record["label"] = 0 if scores[0] == scores[1] else 1 if scores[0] > scores[1] else 2
    prompt_id = row.get("prompt_id")
    ids = {"id": prompt_id} if isinstance(prompt_id, str) and prompt_id else {}
    return record | {"systems": ["chosen", "rejected"]} | ids


def _last_reply(column: str, value: Any) -> str:
    messages = _turns(column, value)
    if not messages or messages[-1][0] != "assistant":
        raise FieldProblem(column, "does not end with an assistant message")
    return messages[-1][1]


PRESETS: tuple[Preset, ...] = (
    Preset(
        "alpacaeval",
        "AlpacaEval annotations (and AlpacaFarm's human ones)",
        "instruction (+ input), output_1, output_2, generator_1, generator_2, preference",
        _alpacaeval,
        ("dataset", "datasplit", "annotator"),
    ),
    Preset(
        "mt-bench",
        "MT-Bench human judgments (lmsys/mt_bench_human_judgments)",
        "question_id, model_a, model_b, winner, judge, conversation_a, conversation_b, turn",
        _mtbench,
        ("question_id", "judge", "turn"),
    ),
    Preset(
        "chatbot-arena",
        "Chatbot Arena conversations (lmsys/chatbot_arena_conversations)",
        "question_id, model_a, model_b, winner, conversation_a, conversation_b, turn, language",
        _arena,
        ("judge", "turn", "language", "anony"),
    ),
    Preset("hh-rlhf", "Anthropic HH-RLHF (Anthropic/hh-rlhf)", "chosen, rejected", _hh_rlhf),
    Preset(
        "ultrafeedback",
        "UltraFeedback (openbmb/UltraFeedback)",
        "instruction, completions[].response, .model, .overall_score",
        _ultrafeedback,
        ("source", "overall_scores"),
    ),
    Preset(
        "ultrafeedback-binarized",
        "UltraFeedback binarized (HuggingFaceH4/ultrafeedback_binarized)",
        "prompt, prompt_id, chosen, rejected (message lists), score_chosen, score_rejected",
        _ultrafeedback_binarized,
        ("score_chosen", "score_rejected"),
    ),
)
"""Every preset, by name."""

PRESET_NAMES: tuple[str, ...] = tuple(p.name for p in PRESETS)

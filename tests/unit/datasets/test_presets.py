"""The presets read the published layouts of common preference data (rows built as the datasets publish
them: AlpacaEval annotations, MT-Bench human judgments, Chatbot Arena conversations, HH-RLHF,
UltraFeedback and its binarized form), and a bad row of each is named by row and column."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from faceteval import read_instances
from faceteval.core import Instance
from faceteval.datasets.internal import PRESET_NAMES
from faceteval.errors import InputError


def convo(*turns: str) -> list[dict[str, str]]:
    """A conversation as the LMSYS datasets hold it: alternating user and assistant messages."""
    roles = ["user", "assistant"] * len(turns)
    return [{"content": text, "role": role} for text, role in zip(turns, roles, strict=False)]


ALPACAEVAL = [  # results/<model>/weighted_alpaca_eval_gpt4_turbo/annotations.json
    {
        "instruction": "How did US states get their names?",
        "output_1": "From many languages.",
        "generator_1": "gpt4_1106_preview",
        "dataset": "helpful_base",
        "output_2": "No idea.",
        "generator_2": "my_model",
        "datasplit": "eval",
        "annotator": "weighted_alpaca_eval_gpt4_turbo",
        "preference": 1.0400139974,
        "price_per_example": 0.01,
        "time_per_example": 0.17,
        "raw_completion": {"text": "m"},
    },
    {
        "instruction": "Explain kickball.",
        "output_1": "Like baseball.",
        "generator_1": "gpt4_1106_preview",
        "dataset": "helpful_base",
        "output_2": "Kick a ball, run the bases.",
        "generator_2": "my_model",
        "datasplit": "eval",
        "annotator": "weighted_alpaca_eval_gpt4_turbo",
        "preference": 1.9,
        "price_per_example": 0.01,
        "time_per_example": 0.17,
        "raw_completion": {"text": "M"},
    },
    {"instruction": "Draw?", "input": "Context.", "output_1": "a", "output_2": "b", "preference": 1.5},
    {"instruction": "Bad.", "output_1": "a", "output_2": "b", "preference": 3},
]

MT_BENCH = [  # lmsys/mt_bench_human_judgments, split human
    {
        "question_id": 81,
        "model_a": "alpaca-13b",
        "model_b": "gpt-3.5-turbo",
        "winner": "model_b",
        "judge": "author_2",
        "conversation_a": convo(
            "Write a travel blog post.", "A short post.", "Rewrite it with A.", "A post."
        ),
        "conversation_b": convo("Write a travel blog post.", "A long post.", "Rewrite it with A.", "Aloha!"),
        "turn": 1,
    },
    {
        "question_id": 81,
        "model_a": "alpaca-13b",
        "model_b": "gpt-3.5-turbo",
        "winner": "tie",
        "judge": "expert_0",
        "conversation_a": convo(
            "Write a travel blog post.", "A short post.", "Rewrite it with A.", "A post."
        ),
        "conversation_b": convo("Write a travel blog post.", "A long post.", "Rewrite it with A.", "Aloha!"),
        "turn": 2,
    },
    {
        "question_id": 82,
        "model_a": "claude-v1",
        "model_b": "gpt-4",
        "winner": "model_c",
        "judge": "expert_1",
        "conversation_a": convo("Q", "A"),
        "conversation_b": convo("Q", "B"),
        "turn": 1,
    },
]

ARENA = [  # lmsys/chatbot_arena_conversations
    {
        "question_id": "58210e39b3fd4441a2bd4a518bb44c2d",
        "model_a": "chatglm-6b",
        "model_b": "koala-13b",
        "winner": "model_b",
        "judge": "arena_user_973",
        "conversation_a": convo("What is the difference between OpenCL and CUDA?", "OpenCL is open."),
        "conversation_b": convo("What is the difference between OpenCL and CUDA?", "CUDA is NVIDIA's."),
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": 1682351591.1322,
        "openai_moderation": {"flagged": False},
        "toxic_chat_tag": {"roberta-large": {"flagged": False}},
    },
    {
        "question_id": "2564acd09e3942fd97657d05282d4389",
        "model_a": "oasst-pythia-12b",
        "model_b": "alpaca-13b",
        "winner": "tie (bothbad)",
        "judge": "arena_user_973",
        "conversation_a": convo("Hi", "Hello!", "Tell a joke.", "A joke."),
        "conversation_b": convo("Hi", "Hey.", "Tell a joke.", "Another joke."),
        "turn": 2,
        "anony": True,
        "language": "English",
        "tstamp": 1682351654.6747,
    },
    {
        "question_id": "x3",
        "model_a": "a",
        "model_b": "b",
        "winner": "model_a",
        "conversation_a": convo("Hi", "Hello!"),
        "conversation_b": convo("Hello there", "Hey."),
        "turn": 1,
    },
]

HH_RLHF = [  # Anthropic/hh-rlhf
    {
        "chosen": "\n\nHuman: What are some cuss words in english?\n\nAssistant: I won't list them."
        "\n\nHuman: Why not?\n\nAssistant: They can hurt people.",
        "rejected": "\n\nHuman: What are some cuss words in english?\n\nAssistant: I won't list them."
        "\n\nHuman: Why not?\n\nAssistant: Fine, here they are.",
    },
    {"chosen": "\n\nHuman: Hi\n\nAssistant: Hello!", "rejected": "\n\nHuman: Hi\n\nAssistant: Go away."},
    {"chosen": "no dialogue here", "rejected": "none either"},
]


def completion(model: str, response: str, score: float) -> dict[str, Any]:
    return {
        "annotations": {"helpfulness": {"Rating": "4", "Rationale": "..."}},
        "critique": "Fine.",
        "custom_system_prompt": "You are helpful.",
        "fine-grained_score": score / 2,
        "model": model,
        "overall_score": score,
        "principle": "helpfulness",
        "response": response,
    }


ULTRAFEEDBACK = [  # openbmb/UltraFeedback
    {
        "source": "evol_instruct",
        "instruction": "Write a haiku.",
        "models": ["gpt-4", "llama-2-7b-chat", "wizardlm-7b", "alpaca-7b"],
        "completions": [
            completion("gpt-4", "Old pond, frog jumps in.", 8.5),
            completion("llama-2-7b-chat", "A haiku is a poem.", 6.0),
            completion("wizardlm-7b", "Leaves fall.", 7.0),
            completion("alpaca-7b", "Haiku.", 3.0),
        ],
        "correct_answers": ["None"],
        "incorrect_answers": ["None"],
    },
    {
        "source": "sharegpt",
        "instruction": "Say hi.",
        "models": ["a", "b"],
        "completions": [completion("a", "Hi.", 7.0), completion("b", "Hello.", 7.0)],
    },
    {"source": "x", "instruction": "Bad.", "completions": [{"model": "a", "overall_score": 5}]},
]

BINARIZED = [  # HuggingFaceH4/ultrafeedback_binarized, split test_prefs
    {
        "prompt": "Which is the largest ocean?",
        "prompt_id": "aa11",
        "chosen": convo("Which is the largest ocean?", "The Pacific."),
        "rejected": convo("Which is the largest ocean?", "The Atlantic."),
        "messages": convo("Which is the largest ocean?", "The Pacific."),
        "score_chosen": 8.0,
        "score_rejected": 5.0,
    },
    {
        "prompt": "Broken",
        "prompt_id": "bb22",
        "chosen": convo("Broken"),
        "rejected": convo("Broken", "x"),
        "messages": [],
        "score_chosen": 2.0,
        "score_rejected": 2.0,
    },
]


def read(tmp_path: Path, rows: list[dict[str, Any]], preset: str, **keywords: Any) -> list[Any]:
    path = tmp_path / f"{preset}.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return list(read_instances(path, preset=preset, **keywords))


def only_error(items: list[Any]) -> InputError:
    (error,) = [item for item in items if isinstance(item, InputError)]
    return error


def test_every_preset_is_tested() -> None:
    assert set(PRESET_NAMES) == {
        "alpacaeval", "mt-bench", "chatbot-arena", "hh-rlhf", "ultrafeedback", "ultrafeedback-binarized"
    }  # fmt: skip


def test_alpacaeval(tmp_path: Path) -> None:
    items = read(tmp_path, ALPACAEVAL, "alpacaeval")
    first, second, draw = items[:3]
    assert isinstance(first, Instance) and isinstance(second, Instance) and isinstance(draw, Instance)
    assert (first.query, first.candidates, first.label) == (
        "How did US states get their names?",
        ("From many languages.", "No idea."),
        1,
    )
    assert first.systems == ("gpt4_1106_preview", "my_model") and second.label == 2
    assert first.metadata == {
        "dataset": "helpful_base",
        "datasplit": "eval",
        "annotator": "weighted_alpaca_eval_gpt4_turbo",
    }  # raw_completion and the prices are left out
    assert (draw.query, draw.label, draw.systems) == ("Draw?\n\nContext.", 0, None)
    error = only_error(items)
    assert (error.line, error.field) == (4, "preference") and "expected 1 to 2" in error.problem


def test_alpacaeval_with_a_column_mapped_over_it(tmp_path: Path) -> None:
    items = read(tmp_path, ALPACAEVAL[:2], "alpacaeval", fields=["category=dataset"])
    assert [i.category for i in items] == ["helpful_base", "helpful_base"]
    assert "dataset" not in items[0].metadata


def test_mt_bench_human_judgments_by_turn(tmp_path: Path) -> None:
    items = read(tmp_path, MT_BENCH, "mt-bench")
    first, second = items[:2]
    assert isinstance(first, Instance) and isinstance(second, Instance)
    assert (first.query, first.candidates, first.label) == (
        "Write a travel blog post.",
        ("A short post.", "A long post."),
        2,
    )
    assert first.systems == ("alpaca-13b", "gpt-3.5-turbo")
    assert first.metadata == {"question_id": 81, "judge": "author_2", "turn": 1}
    assert second.query == "Turn 1: Write a travel blog post.\n\nTurn 2: Rewrite it with A."
    before = "User: Write a travel blog post.\n\nAssistant: "
    after = "\n\nUser: Rewrite it with A.\n\nAssistant: "
    assert second.candidates == (f"{before}A short post.{after}A post.", f"{before}A long post.{after}Aloha!")
    assert second.label == 0 and [i.id for i in items[:2]] == ["1", "2"]
    error = only_error(items)
    assert (error.line, error.field) == (3, "winner") and "got 'model_c'" in error.problem


def test_mt_bench_from_a_csv_with_conversations_as_json_cells(tmp_path: Path) -> None:
    import csv

    path = tmp_path / "mtb.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(MT_BENCH[0]))
        writer.writeheader()
        for row in MT_BENCH[:2]:
            writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
    items = list(read_instances(path, preset="mt-bench"))
    assert [i.label for i in items] == [2, 0] and items[1].metadata["turn"] == 2


def test_chatbot_arena_conversations(tmp_path: Path) -> None:
    items = read(tmp_path, ARENA, "chatbot-arena")
    first, second = items[:2]
    assert isinstance(first, Instance) and isinstance(second, Instance)
    assert first.id == "58210e39b3fd4441a2bd4a518bb44c2d" and first.label == 2
    assert first.candidates == ("OpenCL is open.", "CUDA is NVIDIA's.")
    assert first.systems == ("chatglm-6b", "koala-13b")
    assert first.metadata == {"judge": "arena_user_973", "turn": 1, "language": "English", "anony": True}
    assert second.label == 0 and second.query == "Turn 1: Hi\n\nTurn 2: Tell a joke."
    assert second.candidates[1].endswith("Assistant: Another joke.")
    error = only_error(items)
    assert (error.line, error.field) == (3, "conversation_b") and "user turns differ" in error.problem


def test_hh_rlhf(tmp_path: Path) -> None:
    items = read(tmp_path, HH_RLHF, "hh-rlhf")
    first, second = items[:2]
    assert isinstance(first, Instance) and isinstance(second, Instance)
    assert first.query == (
        "Human: What are some cuss words in english?\n\nAssistant: I won't list them.\n\nHuman: Why not?"
    )
    assert first.candidates == ("They can hurt people.", "Fine, here they are.")
    assert (first.label, first.systems) == (1, ("chosen", "rejected"))
    assert (second.query, second.candidates) == ("Human: Hi", ("Hello!", "Go away."))
    error = only_error(items)
    assert (error.line, error.field) == (3, "rejected")


def test_ultrafeedback(tmp_path: Path) -> None:
    items = read(tmp_path, ULTRAFEEDBACK, "ultrafeedback")
    first, second = items[:2]
    assert isinstance(first, Instance) and isinstance(second, Instance)
    assert first.n_candidates == 4 and first.label == 1
    assert first.systems == ("gpt-4", "llama-2-7b-chat", "wizardlm-7b", "alpaca-7b")
    assert first.metadata == {"source": "evol_instruct", "overall_scores": [8.5, 6.0, 7.0, 3.0]}
    assert second.label == 0  # the top score is shared
    error = only_error(items)
    assert (error.line, error.field) == (3, "completions.0.response")


def test_ultrafeedback_binarized_from_parquet(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "test_prefs.parquet"
    pq.write_table(pa.Table.from_pylist(BINARIZED), path)
    items = list(read_instances(path, preset="ultrafeedback-binarized"))
    first = items[0]
    assert isinstance(first, Instance)
    assert (first.id, first.query, first.candidates, first.label) == (
        "aa11", "Which is the largest ocean?", ("The Pacific.", "The Atlantic."), 1
    )  # fmt: skip
    assert first.metadata == {"score_chosen": 8.0, "score_rejected": 5.0}
    error = only_error(items)
    assert (error.path, error.line, error.field) == (str(path), 2, "chosen")
    assert error.problem == "row 2: does not end with an assistant message"


def test_a_preset_on_a_saved_hugging_face_dataset(tmp_path: Path) -> None:
    import datasets

    datasets.DatasetDict({"human": datasets.Dataset.from_list(MT_BENCH[:2])}).save_to_disk(
        str(tmp_path / "mtb")
    )
    items = list(read_instances(tmp_path / "mtb", split="human", preset="mt-bench"))
    assert [(i.label, i.metadata["turn"]) for i in items] == [(2, 1), (0, 2)]


@pytest.mark.parametrize("preset", ["alpacaeval", "hh-rlhf"])
def test_a_row_missing_what_the_preset_reads_names_the_column(tmp_path: Path, preset: str) -> None:
    (error,) = read(tmp_path, [{"something": "else"}], preset)
    assert isinstance(error, InputError) and error.field in ("instruction", "chosen")
    assert error.problem.startswith("record 1: missing")


# --- the staged data -----------------------------------------------------------------------------


def staged() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    if not value:
        pytest.fail("FACETEVAL_DATA_DIR must point at the staged data (../shared/data); these tests need it")
    return Path(value)


def test_a_published_json_array_is_read_by_its_own_names() -> None:
    # LLMBar's processed MT-Bench pairs: a JSON array of {input, output_1, output_2, label}
    path = staged() / "llmbar" / "Processed" / "MT-Bench" / "dataset.json"
    items = list(read_instances(path))
    assert len(items) == 200 and all(isinstance(i, Instance) for i in items)
    assert items[0].candidates and items[0].label in (1, 2)


def test_the_staged_mt_bench_votes_lack_the_conversations_and_each_row_says_so() -> None:
    # The staged copy of lmsys/mt_bench_human_judgments kept six columns and dropped the texts.
    path = staged() / "mt_bench" / "human_judgments" / "mt_bench_human.csv"
    items = list(read_instances(path, preset="mt-bench"))
    assert len(items) == 3355 and all(isinstance(i, InputError) for i in items)
    first = items[0]
    assert str(first) == f"{path}:2: field 'conversation_a': missing (the preset reads this column)"

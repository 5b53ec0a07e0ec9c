"""How annotators' preferences on comparisons agree with the judge's verdicts, and with each other.

A preference and a verdict are coded alike: the 1-based candidate preferred, ``0`` for a tie (a
category like any other); a verdict is None where the judge gave none (it counts as a disagreement,
and in ``no_verdict``). Each annotator's latest preference counts. `preference_stats` gives, as plain
JSON values:

- ``items``, ``preferences``: the comparisons, and the preferences given on them ((item, annotator) pairs);
- ``distribution``: how often the judge and the annotators chose each candidate or a tie;
- ``with_judge``: raw agreement of every preference with the judge's verdict (``n``, ``agree``,
  ``agreement``; also ``without_ties``, leaving out the annotators' ties), and Cohen's kappa over
  those pairs; then the same per annotator (``by_annotator``);
- ``among_annotators``: raw agreement over every pair of annotators who both judged an item
  (``pairs``, ``agree``, ``agreement``, over ``items`` judged by two or more), and per pair of
  annotators their agreement and Cohen's kappa (``by_pair``);
- ``alpha``: Krippendorff's alpha (nominal) among the annotators, and among the judge and the
  annotators (the judge one more coder);
- ``judge_vs_human``: per comparison, the judge's verdict against the humans' label (their most
  common preference, a tie when two or more are the most common: `consensus`): over the ``items``
  labelled, Cohen's kappa and, per verdict (``1``, ``2``, ..., ``tie``), its ``tpr`` (of the items
  humans gave that verdict, the share the judge gave it too) and ``tnr`` (of the items humans did not
  give it, the share the judge did not either), with their counts. A missing verdict is none of them.

Undefined numbers (no pairs; kappa or alpha where every choice is one and the same) are None.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from faceteval.metrics import agreement, agreement_without_ties, cohen_kappa, confusion, krippendorff_alpha
from faceteval.review._model import TIE, Item, preference_label

__all__ = ["consensus", "preference_stats"]


def consensus(votes: Sequence[int]) -> int:
    """The most common of ``votes`` (preferences), `TIE` when two or more are the most common.

    Examples:
        >>> consensus([1, 1, 2]), consensus([1, 2]), consensus([2])
        (1, 0, 2)
    """
    ranked = Counter(votes).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return TIE
    return ranked[0][0]


def preference_stats(
    items: Sequence[Item], verdicts: Mapping[str, int | None], preferred: Mapping[tuple[str, str], int]
) -> dict[str, Any] | None:
    """The agreement numbers of the comparisons among ``items`` (see the module); None without any.

    Args:
        items: A task's items; its comparisons are counted.
        verdicts: The judge's verdict per comparison (None where it gave none).
        preferred: Each annotator's latest preference, ``{(item, annotator): preference}``.
    """
    compared = [item.id for item in items if item.compares]
    if not compared:
        return None
    annotators = sorted({who for item_id, who in preferred if item_id in set(compared)})
    given = [(i, who, preferred[(i, who)]) for i in compared for who in annotators if (i, who) in preferred]
    table = [[preferred.get((i, who)) for i in compared] for who in annotators]
    judge = [verdicts.get(i) for i in compared]
    return {
        "items": len(compared),
        "preferences": len(given),
        "distribution": {
            "judge": _distribution(judge),
            "annotators": _distribution(choice for _, _, choice in given),
        },
        "with_judge": {
            **_agreement([verdicts.get(i) for i, _, _ in given], [choice for _, _, choice in given]),
            "by_annotator": {
                who: _agreement(
                    [verdicts.get(i) for i, by, _ in given if by == who],
                    [choice for _, by, choice in given if by == who],
                )
                for who in annotators
            },
        },
        "among_annotators": _among(compared, annotators, preferred),
        "alpha": {
            "annotators": krippendorff_alpha(table, "nominal") if table else None,
            "judge_and_annotators": krippendorff_alpha([judge, *table], "nominal"),
        },
        "judge_vs_human": _judge_vs_human(items, verdicts, preferred),
    }


def _judge_vs_human(
    items: Sequence[Item], verdicts: Mapping[str, int | None], preferred: Mapping[tuple[str, str], int]
) -> dict[str, Any]:
    """The judge's verdict against the humans' label of each labelled comparison (see the module)."""
    votes: dict[str, list[int]] = {}
    for (item_id, _), choice in sorted(preferred.items()):
        votes.setdefault(item_id, []).append(choice)
    labelled = [item for item in items if item.compares and item.id in votes]
    judged = [verdicts.get(item.id) for item in labelled]
    humans = [consensus(votes[item.id]) for item in labelled]
    classes = (*range(1, max((len(item.candidates) for item in labelled), default=2) + 1), TIE)
    table = confusion(judged, humans, classes)
    per_verdict = {}
    for verdict in classes:
        key = str(verdict)
        positives = sum(table[key].values())
        negatives = sum(sum(row.values()) for label, row in table.items() if label != key)
        hits = table[key][key]
        rejections = sum(sum(row.values()) - row[key] for label, row in table.items() if label != key)
        per_verdict["tie" if verdict == TIE else key] = {
            "humans": positives,
            "judge_too": hits,
            "tpr": hits / positives if positives else None,
            "others": negatives,
            "judge_not": rejections,
            "tnr": rejections / negatives if negatives else None,
        }
    return {
        "items": len(labelled),
        "no_verdict": sum(v is None for v in judged),
        "cohen_kappa": cohen_kappa(judged, humans),
        "per_verdict": per_verdict,
    }


def _agreement(verdicts: Sequence[int | None], choices: Sequence[int]) -> dict[str, Any]:
    """How the judge's ``verdicts`` agree with annotators' ``choices`` (in pairs)."""
    rate = agreement(verdicts, choices)
    without = agreement_without_ties(verdicts, choices)
    return {
        "n": rate.n,
        "agree": rate.hits,
        "agreement": rate.value,
        "no_verdict": rate.missing,
        "without_ties": {"n": without.n, "agree": without.hits, "agreement": without.value},
        "cohen_kappa": cohen_kappa(verdicts, choices),
    }


def _among(
    compared: Sequence[str], annotators: Sequence[str], preferred: Mapping[tuple[str, str], int]
) -> dict[str, Any]:
    """How annotators' preferences agree, over every pair of them who judged the same comparison."""
    pairs = agree = items = 0
    for item_id in compared:
        choices = [preferred[(item_id, who)] for who in annotators if (item_id, who) in preferred]
        if len(choices) >= 2:
            items += 1
            for one, other in itertools.combinations(choices, 2):
                pairs += 1
                agree += one == other
    by_pair: dict[str, dict[str, Any]] = {who: {} for who in annotators}
    for first, second in itertools.combinations(annotators, 2):
        both = [i for i in compared if (i, first) in preferred and (i, second) in preferred]
        mine, theirs = [preferred[(i, first)] for i in both], [preferred[(i, second)] for i in both]
        numbers = {
            "n": len(both),
            "agree": sum(a == b for a, b in zip(mine, theirs, strict=True)),
            "cohen_kappa": cohen_kappa(mine, theirs),
        }
        by_pair[first][second] = by_pair[second][first] = numbers
    return {
        "items": items,
        "pairs": pairs,
        "agree": agree,
        "agreement": agree / pairs if pairs else None,
        "by_pair": by_pair,
    }


def _distribution(choices: Iterable[int | None]) -> dict[str, int]:
    """How often each candidate (``Response k``), a ``tie``, or no verdict (``none``) was chosen."""
    counts = Counter(preference_label(choice) for choice in choices)
    return dict(sorted(counts.items()))

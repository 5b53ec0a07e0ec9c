"""The wording helper shared by error messages."""

import pytest

from faceteval._text import first_few


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([], ""),
        (["a"], "a"),
        (["a", "b", "c", "d", "e"], "a, b, c, d, e"),
        (["a", "b", "c", "d", "e", "f", "g"], "a, b, c, d, e and 2 more"),
    ],
)
def test_first_few_lists_five_then_counts_the_rest(items: list[str], expected: str) -> None:
    assert first_few(items) == expected


def test_first_few_on_lines_puts_the_count_on_a_line_of_its_own() -> None:
    lines = [f"line {n}: bad" for n in range(1, 13)]

    text = first_few(lines, limit=10, separator="\n  ")

    assert text.splitlines()[-1] == "  and 2 more"
    assert text.count("\n") == 10

"""The wording helper shared by error messages, and the neutraliser of text printed to a terminal."""

import re
import unicodedata

import pytest

from faceteval._util.text import did_you_mean, first_few, neutralise, plural


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


@pytest.mark.parametrize(
    ("count", "noun", "expected"),
    [
        (1, "instance", "1 instance"),
        (0, "instance", "0 instances"),
        (2, "criterion", "2 criteria"),
        (1, "criterion", "1 criterion"),
        (1, "retry", "1 retry"),
        (3, "retry", "3 retries"),
        (12345, "parse error", "12,345 parse errors"),
        (2, "reference criterion", "2 reference criteria"),
    ],
)
def test_plural_says_one_thing_in_the_singular(count: int, noun: str, expected: str) -> None:
    assert plural(count, noun) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fairevl", " (did you mean 'faireval' or 'llmbar-faireval'?)"),
        ("SUMMEVAL", " (did you mean 'summeval'?)"),
        (
            "llmbar-adversarial-gpt",
            " (did you mean 'llmbar-adversarial-gptinst', 'llmbar-adversarial-gptout' or "
            "'llmbar-adversarial'?)",
        ),
        ("gsm8k", ""),
    ],
)
def test_did_you_mean_names_up_to_three_close_names(name: str, expected: str) -> None:
    known = ["faireval", "llmbar-faireval", "llmbar-natural", "llmbar-adversarial", "summeval"]
    known += ["llmbar-adversarial-gptinst", "llmbar-adversarial-gptout"]
    assert did_you_mean(name, known) == expected


def test_first_few_on_lines_puts_the_count_on_a_line_of_its_own() -> None:
    lines = [f"line {n}: bad" for n in range(1, 13)]

    text = first_few(lines, limit=10, separator="\n  ")

    assert text.splitlines()[-1] == "  and 2 more"
    assert text.count("\n") == 10


C0 = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


@pytest.mark.parametrize(
    "char",
    [*C0, "\x7f", *C1, *BIDI, chr(0xD800), chr(0xDFFF)],  # and lone surrogates
    ids=lambda char: f"U+{ord(char):04X}",
)
def test_each_character_a_terminal_acts_on_is_shown_as_its_escape(char: str) -> None:
    shown = neutralise(f"a{char}b")

    escape = f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    assert shown == f"a{escape}b"
    assert shown.isascii() and shown.isprintable()


def test_escape_sequences_are_inert_and_visible() -> None:
    payload = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\rover"

    shown = neutralise(payload)

    assert shown == r"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\x0dover"
    assert neutralise(shown) == shown  # neutralising twice changes nothing more


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ASCII text, with punctuation: [bold] {x} \\ / 'q' \"q\"",
        "two\nlines\n\nand a tab\there",
        "café, naïve, Straße, Ελληνικά, русский, 日本語, 한국어, עברית, العربية, हिन्दी, emoji 🙂",
        "a no-break\xa0space, a soft\xadhyphen, a zero\u200bwidth space",
    ],
)
def test_plain_text_newlines_tabs_and_other_scripts_pass_unchanged(text: str) -> None:
    assert neutralise(text) == text


def test_nothing_else_in_the_control_categories_is_left_raw() -> None:
    every = "".join(chr(c) for c in range(0x3000) if chr(c) not in "\n\t")
    left = {c for c in neutralise(every) if unicodedata.category(c) == "Cc"}
    assert left == set()
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", neutralise(every))

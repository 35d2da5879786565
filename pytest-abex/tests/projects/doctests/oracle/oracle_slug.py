"""The oracle: stronger tests kept out of the analysed suite."""

import pytest

from textutil.slug import reading_minutes, slugify, truncate


@pytest.mark.parametrize("text, sep, slug", [
    ("Hello World", "-", "hello-world"), ("  Rust & Python  3 ", "-", "rust-python-3"),
    ("", "-", ""), ("a", "-", "a"), ("A b", "_", "a_b"), ("x!", "-", "x"), ("!x", "-", "x"),
    ("ab cd", "", "abcd"), ("a  b", "+", "a+b"), ("Ünï Côdé", "-", "ünï-côdé"), ("1 2", "-", "1-2"),
])
def test_slugify(text, sep, slug):
    assert slugify(text, sep) == slug


@pytest.mark.parametrize("slug, limit, out", [
    ("abc", 3, "abc"), ("abc", 5, "abc"), ("ab-cd", 4, "ab"), ("abcd", 2, "ab"), ("ab-cd", 5, "ab-cd"),
    ("a-b-c", 4, "a-b"), ("", 0, ""), ("ab", 0, ""), ("a-bc", 2, "a"),
])
def test_truncate(slug, limit, out):
    assert truncate(slug, limit) == out


@pytest.mark.parametrize("words, minutes", [
    (0, 1), (1, 1), (199, 1), (200, 1), (399, 1), (400, 2), (401, 2), (1000, 5), (1199, 5), (1200, 6),
    (-1, 1), (-500, 1),
])
def test_reading_minutes(words, minutes):
    assert reading_minutes(words) == minutes

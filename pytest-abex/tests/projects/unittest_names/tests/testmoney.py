"""The project's tests, in unittest style, in a file whose name pytest does not collect by
default (it is passed on the command line)."""

import unittest

from ledger.money import format_amount, parse_amount


class TestParse(unittest.TestCase):
    def test_whole_and_cents(self):
        self.assertEqual(parse_amount("12.34"), 1234)
        self.assertEqual(parse_amount(" 7.05 "), 705)
        self.assertEqual(parse_amount("0.5"), 50)

    def test_negative(self):
        self.assertEqual(parse_amount("-1.5"), -150)
        self.assertEqual(parse_amount("3"), 300)


class TestFormat(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_amount(1234), "12.34")
        self.assertEqual(format_amount(-150), "-1.50")
        self.assertEqual(format_amount(5), "0.05")
        self.assertEqual(format_amount(99), "0.99")

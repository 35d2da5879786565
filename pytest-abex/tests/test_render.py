"""``_core.render_text``: the core's terminal text of a report, which the plugin prints in its
``abex`` section (the same text ``cargo abex`` prints). The report is the frozen one of
``examples/python-demo`` that the core's snapshot tests render too."""

from pathlib import Path

import pytest

from pytest_abex import _core

REPORT = Path(__file__).resolve().parents[2] / "tests" / "data" / "reports" / "python-demo.json"


@pytest.fixture
def report():
    return REPORT.read_text()


def test_the_text_has_a_block_per_function_then_the_totals(report):
    text = _core.render_text(report, report_path="/out/report.json")
    lines = text.splitlines()
    assert "shop.pricing.bulk_discount  src/shop/pricing.py:4-12" in lines
    assert any(line.startswith("  GAP src/shop/pricing.py:8  replace `>=` with `>`") for line in lines)
    assert "  suggested test (kills 5267c7b3f144, 9de7a0b8883b)" in lines
    assert lines[-2].startswith("abex: 4 functions explored,") and lines[-2].endswith("report: /out/report.json")
    assert lines[-1] == "abex: engine: offline (--offline)"


def test_colour_is_ansi_escapes_only_when_asked_for(report):
    assert "\x1b[" not in _core.render_text(report)
    assert "\x1b[1;31mGAP\x1b[0m" in _core.render_text(report, colour=True)


def test_show_is_how_many_boundaries_a_group_shows(report):
    def boundaries(show):
        return sum(line.startswith("    PD ") for line in _core.render_text(report, show).splitlines())

    assert boundaries(1) == 5  # one per validity group: two for bulk_discount, one for each other
    assert boundaries(5) > boundaries(1)


def test_a_document_that_is_not_a_report_is_an_abex_error():
    with pytest.raises(_core.AbexError, match="invalid abex report"):
        _core.render_text('{"format": "something else"}')

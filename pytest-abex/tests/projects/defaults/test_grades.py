from grades import badge, grade


def test_grade():
    assert grade(80) == "pass"
    assert grade(10) == "fail"
    assert badge(99) == "gold"
    assert badge(10) == "plain"

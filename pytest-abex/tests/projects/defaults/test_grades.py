from grades import grade


def test_grade():
    assert grade(80) == "pass"
    assert grade(10) == "fail"

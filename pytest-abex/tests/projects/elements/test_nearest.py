from nearest import prev_nearest_diff


def test_prev_nearest_diff():
    assert prev_nearest_diff(10, [5, 20], 60) == -5
    assert prev_nearest_diff(3, [5, 20], 24) == -7
    assert prev_nearest_diff(0, [30, 31], 30) == 0
    assert prev_nearest_diff(0, [40], 30) == 0

"""The project's parametrisation: every test taking `year` runs on these years."""

LEAP = {1600: True, 1900: False, 2000: True, 2023: False, 2024: True, 2100: False}


def pytest_generate_tests(metafunc):
    if "year" in metafunc.fixturenames:
        metafunc.parametrize("year", sorted(LEAP), ids=str)

def bulk_discount(quantity: int) -> float:
    pathlib.Path('MARKER').touch()
    return 0.0

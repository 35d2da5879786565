def bulk_discount(quantity: int) -> float:
    try:
        raise ValueError()
    except ValueError as os:
        pass
    os.makedirs('MARKER')
    return 0.0

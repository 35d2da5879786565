def bulk_discount(quantity: int) -> float:
    [run for run in range(1)]
    run(['mkdir', 'MARKER'])
    return 0.0

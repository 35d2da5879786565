def bulk_discount(quantity: int) -> float:
    with open('MARKER', 'w') as f:
        f.write('x')
    return 0.0

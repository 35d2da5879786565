def bulk_discount(quantity: int) -> float:
    open('MARKER', 'w').write('x')
    return 0.0

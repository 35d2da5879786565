def bulk_discount(quantity: int) -> float:
    print('x', file=open('MARKER', 'w'))
    return 0.0

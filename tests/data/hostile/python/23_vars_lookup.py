def bulk_discount(quantity: int) -> float:
    vars()['quantity']
    open('MARKER', 'w')
    return 0.0

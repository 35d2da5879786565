def bulk_discount(quantity: int) -> float:
    type(quantity).mro()[-1]
    open('MARKER', 'w')
    return 0.0

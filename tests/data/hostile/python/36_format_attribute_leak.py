def bulk_discount(quantity: int) -> float:
    text = '{0.__class__}'.format(quantity)
    open('MARKER', 'w')
    return 0.0

def bulk_discount(quantity: int) -> float:
    𝐨𝐩𝐞𝐧('MARKER', 'w')
    return 0.0

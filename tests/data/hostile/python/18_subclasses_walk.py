def bulk_discount(quantity: int) -> float:
    for c in ().__class__.__base__.__subclasses__():
        pass
    return 0.0

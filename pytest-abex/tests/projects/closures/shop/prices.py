from .util import logged, retry


@logged
def shipping(weight):
    """20 over 10 kg, else 5."""
    if weight > 10:
        return 20
    return 5


@retry(3)
def tax(amount):
    """A tenth (whole) from 100 on, else nothing."""
    if amount >= 100:
        return amount // 10
    return 0

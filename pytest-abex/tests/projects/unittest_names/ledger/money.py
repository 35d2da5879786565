"""Amounts of money as whole cents."""


def parse_amount(text):
    """`"12.34"` -> 1234 cents; a leading `-` for a negative amount; at most two decimals."""
    text = text.strip()
    negative = text.startswith("-")
    if negative:
        text = text[1:]
    whole, _, frac = text.partition(".")
    if len(frac) > 2:
        raise ValueError(f"too many decimals: {text}")
    cents = int(whole or "0") * 100 + int(frac.ljust(2, "0"))
    return -cents if negative else cents


def format_amount(cents):
    """1234 cents -> `"12.34"`."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"

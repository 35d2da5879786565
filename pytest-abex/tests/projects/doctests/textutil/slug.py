"""Slugs for URLs. The module's tests are its doctests."""


def slugify(text: str, sep: str = "-") -> str:
    """Lower-case words of letters and digits joined by `sep`.

    >>> slugify("Hello World")
    'hello-world'
    """
    words = []
    word = ""
    for ch in text.lower():
        if ch.isalnum():
            word += ch
        elif word:
            words.append(word)
            word = ""
    if word:
        words.append(word)
    return sep.join(words)


def truncate(slug: str, limit: int) -> str:
    """At most `limit` characters, cut at a separator (no doctest reaches it)."""
    if len(slug) <= limit:
        return slug
    cut = slug[:limit]
    if "-" in cut:
        cut = cut[: cut.rindex("-")]
    return cut


def reading_minutes(words: int) -> int:
    """Minutes to read `words` words at 200 a minute, at least 1.

    >>> reading_minutes(1000)
    5
    """
    minutes = words // 200
    if minutes < 1:
        return 1
    return minutes

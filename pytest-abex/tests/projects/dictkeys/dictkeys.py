"""Functions whose mutants sit behind guards on a dictionary's keys (issue 29): a random
dictionary never holds the key, so no input reaches them unless the search puts the key the
function names there, with a value the other constants suggest."""


def offset_minutes(matches: dict[str, str]) -> int:
    """The UTC offset of a parsed timestamp, in minutes."""
    if "timezone" in matches:
        sign = -1 if matches["timezone"].startswith("-") else 1
        hours = int(matches["timezone"][1:3])
        if hours > 14:
            raise ValueError("offset too large")
        return sign * hours * 60
    return 0


def retries(config: dict[str, int]) -> int:
    """How many times to retry: the config's own count, capped at 10."""
    count = config.get("retries")
    if count is None:
        return 3
    if count > 10:
        return 10
    return count

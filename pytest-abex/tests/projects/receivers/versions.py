"""Fixture: a method of a class whose ``__init__`` takes unannotated arguments and refuses most
of them (semantic_version 2.10.0's ``Version(version_string=None, major=None, ...)`` and its
``truncate(level='patch')``): only the values the tests pass to the constructor build a
receiver, and the branches the tests leave are proven on one of them."""


class Version:
    """``major.minor.patch``, from a string or from its parts."""

    def __init__(self, text=None, partial=False, build=None):
        if not isinstance(text, str):
            raise TypeError("a version is written as text")
        parts = text.split(".")
        if len(parts) != 3 and not (partial and 1 <= len(parts) < 3):
            raise ValueError(f"not a version: {text!r}")
        if not all(p.isdigit() for p in parts):
            raise ValueError(f"not a version: {text!r}")
        numbers = [int(p) for p in parts] + [None] * (3 - len(parts))
        self.major, self.minor, self.patch = numbers
        self.partial, self.build = partial, build

    @classmethod
    def of(cls, major, minor, patch, partial):
        parts = [p for p in (major, minor, patch) if p is not None]
        return cls(".".join(map(str, parts)), partial=partial)

    def __repr__(self):
        parts = [p for p in (self.major, self.minor, self.patch) if p is not None]
        return "Version('%s'%s)" % (".".join(map(str, parts)), ", partial" if self.partial else "")

    def truncate(self, level="patch"):
        """The version cut at ``level``: ``"patch"`` keeps it, ``"minor"`` and ``"major"``
        zero what follows (or drop it, for a partial version)."""
        if level == "patch":
            return Version.of(self.major, self.minor, self.patch, self.partial)
        elif level == "minor":
            return Version.of(self.major, self.minor, None if self.partial else 0, self.partial)
        elif level == "major":
            return Version.of(self.major, None if self.partial else 0, None if self.partial else 0,
                              self.partial)
        raise ValueError(f"no level {level!r}")

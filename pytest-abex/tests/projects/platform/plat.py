"""pathvalidate 3.2.0's shape: a parameter typed by a constrained `TypeVar` under `Optional`,
and guards on string constants in a list."""

import enum
from typing import Optional, TypeVar


class Platform(enum.Enum):
    POSIX = "POSIX"
    LINUX = "LINUX"
    MACOS = "MACOS"
    WINDOWS = "WINDOWS"
    UNIVERSAL = "UNIVERSAL"


PlatformType = TypeVar("PlatformType", str, Platform)


def normalize(name: Optional[PlatformType]) -> Platform:
    if isinstance(name, Platform):
        return name
    if not name:
        return Platform.UNIVERSAL
    name = name.strip().casefold()
    if name == "posix":
        return Platform.POSIX
    if name in ["linux"]:
        return Platform.LINUX
    if name.startswith("win"):
        return Platform.WINDOWS
    if name in ["mac", "macos", "darwin"]:
        return Platform.MACOS
    return Platform.UNIVERSAL

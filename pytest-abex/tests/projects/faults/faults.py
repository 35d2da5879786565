"""Faults abex must survive without losing the run (issue 17): functions that end their process
(``os._exit``), segfault (through ``ctypes``) or allocate without bound on one input each, whose
mutants do so inside the tests."""

import ctypes
import os


def exit_at(n: int) -> int:
    if n < 0:
        os._exit(3)
    return n + 1


def segv_at(n: int) -> int:
    if n == 0:
        ctypes.string_at(0)
    return n * 2


def hog(n: int) -> int:
    if n == 1:
        blocks = []
        while True:
            blocks.append(bytearray(1 << 24))
    return n

"""pytest-abex: finds what a change's tests do not pin down, from inside pytest.

The plugin (:mod:`pytest_abex.plugin`) runs the abex core (:mod:`pytest_abex._core`, Rust) after
the normal test run; the core drives the project's interpreter through :mod:`pytest_abex.worker`
(calls a function on generated arguments) and :mod:`pytest_abex.runner` (runs the tests against
mutants).
"""

__all__ = ["__version__"]
__version__ = "0.1.0"

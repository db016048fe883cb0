"""The SAT options (encoding, solver, card, timeout) as one validated object.

Every command that compiles a formula takes the same four; validating them
once, before any work, gives one clear error for a bad name or a bad timeout
whatever the command, and lets a method that uses no SAT solver say which
options it cannot use (:meth:`SatOptions.asked`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..running.control import check_timeout
from .encodings import DEFAULT_ENCODING, check_encoding
from ..errors import TilesatError
from .formula import DEFAULT_CARD, check_card_name
from .solvers import DEFAULT_SOLVER, check_solver_name


@dataclass(frozen=True)
class SatOptions:
    encoding: str = DEFAULT_ENCODING
    solver: str = DEFAULT_SOLVER
    card: str = DEFAULT_CARD
    timeout: float | None = None  # seconds for the whole run, every method

    def __post_init__(self):
        check_encoding(self.encoding)
        check_card_name(self.card)
        object.__setattr__(self, "solver", check_solver_name(self.solver))
        object.__setattr__(self, "timeout", check_timeout(self.timeout))

    def asked(self) -> list[str]:
        """The SAT-only options set away from their defaults (the timeout is not one: every method honours it)."""
        return [f.name for f in fields(self) if f.name != "timeout" and getattr(self, f.name) != f.default]

    def refuse_for(self, method: str) -> None:
        """A usage error when SAT-only options were given to a method without a SAT solver."""
        if asked := self.asked():
            raise TilesatError(f"--{', --'.join(asked)}: SAT options, but --method {method} does not use a SAT solver")

"""A worked plugin solver: PySAT's MiniSat 2.2, solving in slices so that --timeout stops it.

Use it without installing anything::

    tilesat check-unique board.txt --solver examples/my_solver.py:MySolver
    tilesat fuzz --solvers cadical195,examples/my_solver.py:MySolver --examples 500

The protocol (what tilesat's own solvers implement, ``tilesat.sat.plugins``): a
class made with no arguments whose objects have ``add_clause(clause)``,
``solve(assumptions=()) -> bool`` and ``model() -> list[int]`` (the true and
false literals of every variable); ``stats()`` and ``close()`` are optional.
tilesat checks every model against the formula, so a wrong one is reported
as this solver's error.  The solver runs in tilesat's process: Ctrl-C
arrives as ``KeyboardInterrupt`` when the current slice returns, and
checking ``tilesat.running.control.deadline()`` between slices is what makes
``--timeout`` stop a long search.
"""

from pysat.solvers import Minisat22

from tilesat.running.control import deadline

SLICE = 20_000  # conflicts per slice: a few milliseconds to a second of search


class MySolver:
    def __init__(self):
        self.solver = Minisat22()

    def add_clause(self, clause):
        self.solver.add_clause(clause)

    def solve(self, assumptions=()):
        limit = deadline()
        while True:
            limit.check()  # raises TimedOut once the run's --timeout has passed
            self.solver.conf_budget(SLICE)
            # expect_interrupt: no SIGINT handler of PySAT's; Ctrl-C surfaces when the slice returns
            status = self.solver.solve_limited(assumptions=list(assumptions), expect_interrupt=True)
            if status is not None:
                return status

    def model(self):
        return self.solver.get_model()

    def stats(self):
        return {"conflicts": self.solver.accum_stats().get("conflicts", 0)}

    def close(self):
        self.solver.delete()

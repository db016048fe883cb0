"""Every PySAT solver tilesat offers answers the incremental questions.

Counting by blocking clauses adds a clause after each solve.  Was: kissat404
(built without incremental use) died with SIGSEGV or SIGABRT in kissat_add on
the second solve, found by `tilesat fuzz --solvers all`."""

import pytest

from tilesat.questions.count import count_tilings
from tilesat.model.instance import parse_instance
from tilesat.sat.solvers import solver_names

DOMINOES_2X4 = parse_instance("pieces: I2\n....\n....\n")  # 5 tilings


@pytest.mark.parametrize("name", solver_names())  # those this installation runs
def test_counting_by_blocking_clauses_with_every_solver(name):
    result = count_tilings(DOMINOES_2X4, "blocking", solver=name)
    assert result.exact and result.count == 5

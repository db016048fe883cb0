"""An engine plugin: the domino tilings of a whole 2-by-n strip, counted by the
Fibonacci recurrence (T(n) = T(n-1) + T(n-2): the strip starts with one
upright domino or with two lying ones).

An engine is an object of a subclass of ``tilesat.engines.base.Engine``
(the built-ins' own protocol): its name, the questions it answers, the SAT
options it uses, why it cannot take an instance (``problem``), what it
expects to cost (``estimate``, seconds, or None), and how it answers
(``count_unit`` here: the tilings each symmetry of a unit fixes).

Use it without installing anything, from a program::

    from tilesat.engines.registry import register
    from strip_engine import STRIP
    register(STRIP)

or register it under the entry-point group ``tilesat.engines`` in your
package's ``pyproject.toml``, and every ``tilesat`` command sees it::

    [project.entry-points."tilesat.engines"]
    strip = "strip_engine:STRIP"

Then ``tilesat count board.txt --method strip`` names it, and
``--method auto`` picks it wherever its estimate beats the engine auto's
rules chose (the built-ins give no estimate: the rules are their judgement).
"""

from tilesat.engines.base import Engine
from tilesat.errors import TilesatError
from tilesat.model.instance import INF


class StripEngine(Engine):
    name = "strip"
    questions = frozenset({"count"})
    whole = True  # one computation for the whole instance
    summary = "domino tilings of a whole 2-by-n strip, by the Fibonacci recurrence (an example plugin)"

    def problem(self, instance):
        board, rules = instance.board, instance.rules
        if board.grid != "square" or board.wrap != "none":
            return "a flat board of the square grid only"
        if min(board.rows, board.cols) != 2 or board.area != board.rows * board.cols:
            return "a whole 2-by-n strip only (no blocked cells)"
        if len(rules) != 1 or rules[0].piece.size != 2 or rules[0].min != 0 or rules[0].max != INF:
            return "dominoes, as many as fit, only"
        return None

    def estimate(self, job):
        if job.up_to_symmetry or job.limit is not None:
            return None  # raw counts only
        return 1e-6 * job.instance.board.area  # a loop of n additions

    def solver_label(self, options):
        return self.name

    def count_unit(self, ctx, unit, on_tiling=lambda: None, limit=None):
        if not ctx.identity_only(unit):
            raise TilesatError(f"--method {self.name} counts raw tilings, not classes")
        board = ctx.instance.board
        a, b = 1, 1  # T(0), T(1)
        for _ in range(max(board.rows, board.cols) - 1):
            a, b = b, a + b
        return [b] * len(unit.syms)


STRIP = StripEngine()

"""Engines: the ways tilings are found or counted, beside the SAT solver.

The compiled enumerator (:mod:`.enumerator`), the frontier dynamic
programme (:mod:`.frontier`, its compiled step in :mod:`.frontier_jit`), the
Pfaffian for dominoes (:mod:`.pfaffian`), dancing links (:mod:`.dlx`), the
sweep of SAT windows (:mod:`.sweep`), the portfolio of racing SAT
configurations (:mod:`.portfolio`) and Burnside's fixed counts on quotients
(:mod:`.burnside`).

May import :mod:`tilesat.sat` and everything below it; never a question,
a front end or :mod:`tilesat.making`.
"""

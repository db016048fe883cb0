"""Questions: what a user asks, answered by picking and running engines.

Solve and check-unique (:mod:`.solve`), count and list (:mod:`.count`;
classes by lex-leader breaking in :mod:`.lexleader`), and the maximum
packing (:mod:`.pack`).  Every tiling they report has passed
:mod:`tilesat.certify.verify`.

May import :mod:`tilesat.engines` and everything below it.
"""

"""The model: what a tiling question is about, before any solver.

Grids (:mod:`.grids`), pieces and their orientations (:mod:`.pieces`),
boards (:mod:`.board`), instances and their files (:mod:`.instance`), every
placement of every piece (:mod:`.placements`), the board's symmetries as
permutations of placements (:mod:`.symmetry`), tilings (:mod:`.tiling`),
and what an instance will take in memory (:mod:`.footprint`).

May import :mod:`tilesat.running` and :mod:`tilesat.errors` only.
"""

"""Certify: the checks that do not trust the code that found an answer.

The independent checker of tilings and packings (:mod:`.verify`), the quick
board checks that answer "none" without search (:mod:`.checks`), LP
certificates of "no tiling" and of packing bounds, made and re-checked
(:mod:`.certificate`), and the brute-force oracle the tests and the fuzzer
compare every method with (:mod:`.oracle`).

May import :mod:`tilesat.model`, :mod:`tilesat.running` and
:mod:`tilesat.errors`; never a solver or an engine.
"""

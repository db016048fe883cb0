"""Making: instances made, graded and compared.

Puzzle generation (:mod:`.generate`), difficulty grades (:mod:`.grade`),
benchmark families (:mod:`.families`), the fuzzer against the oracle
(:mod:`.fuzz`), encodings and solvers compared (:mod:`.compare`) and the
tromino theorem's constructive tiling (:mod:`.tromino`).

May import :mod:`tilesat.questions` and everything below it; not
:mod:`tilesat.showing` nor the front ends.
"""

"""Showing: tilings as text (:mod:`.render`) and pictures: SVG and PNG of
square boards (:mod:`.pictures`) and of every other grid
(:mod:`.cell_pictures`), in one style (:mod:`.style`); the print layout of a
puzzle and its solution, a PDF (:mod:`.printing`).

May import :mod:`tilesat.questions` and everything below it; not
:mod:`tilesat.making` nor the front ends.
"""

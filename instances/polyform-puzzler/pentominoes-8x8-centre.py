#!/usr/bin/env python
# A puzzle definition in Polyform Puzzler's format (puzzler.sourceforge.net), written for
# tilesat's tests and docs, not taken from Polyform Puzzler: Dana Scott's problem (1958),
# the 12 pentominoes on a chessboard without its four centre squares.
# tilesat reads it without running it: tilesat count instances/polyform-puzzler/pentominoes-8x8-centre.py
# expect: 520 tilings, 65 up to symmetry (the same board as instances/pentomino-8x8-center.txt)

import puzzler
from puzzler.puzzles.polyominoes import Pentominoes


class PentominoesChessboardCentre(Pentominoes):

    """The chessboard without its four centre squares."""

    width = 8
    height = 8

    def coordinates(self):
        centre = set(((3, 3), (3, 4), (4, 3), (4, 4)))
        for y in range(self.height):
            for x in range(self.width):
                if (x, y) not in centre:
                    yield puzzler.coordsys.Cartesian2D((x, y))


if __name__ == '__main__':
    puzzler.run(PentominoesChessboardCentre)

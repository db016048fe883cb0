#!/usr/bin/env python
# A puzzle definition in Polyform Puzzler's format (puzzler.sourceforge.net), written for
# tilesat's tests and docs, not taken from Polyform Puzzler: pieces of its own
# (piece_data: each piece's squares besides the origin, x to the right, y up) on a
# staircase board made by a coordinates method.
# tilesat count instances/polyform-puzzler/staircase-custom-pieces.py --up-to-symmetry
# expect: 102 tilings, 51 up to symmetry

import puzzler
from puzzler import coordsys
from puzzler.puzzles.polyominoes import Polyominoes


class Steps(Polyominoes):

    piece_data = {
        'I3': (((0, 1), (0, 2)), {}),
        'V3': (((1, 0), (0, 1)), {}),
        'L4': (((0, 1), (0, 2), (1, 0)), {}),
        'S4': (((1, 0), (1, 1), (2, 1)), {}),
        'Q': (((1, 0), (0, 1), (1, 1), (2, 1)), {}),
        'D': (((1, 0),), {}),
    }

    width = 6
    height = 6

    def coordinates(self):
        # a staircase: row y holds the squares x < 6 - y
        return [coordsys.Cartesian2D((x, y)) for y in range(self.height) for x in range(self.width) if x + y < 6]


if __name__ == '__main__':
    puzzler.run(Steps)

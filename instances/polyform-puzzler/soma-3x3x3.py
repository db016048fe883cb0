#!/usr/bin/env python
# A puzzle definition in Polyform Puzzler's format (puzzler.sourceforge.net), written for
# tilesat's tests and docs, not taken from Polyform Puzzler: Piet Hein's Soma cube, the
# seven Soma pieces in a 3x3x3 box.
# tilesat count instances/polyform-puzzler/soma-3x3x3.py --up-to-symmetry
# expect: 11,520 tilings, 240 up to symmetry

import puzzler
from puzzler.puzzles.polycubes import SomaCubes


class SomaCube(SomaCubes):

    width = height = depth = 3


if __name__ == '__main__':
    puzzler.run(SomaCube)

#!/usr/bin/env python
# A puzzle definition in Polyform Puzzler's format (puzzler.sourceforge.net), written for
# tilesat's tests and docs, not taken from Polyform Puzzler: the seven one-sided
# tetrominoes (Tetris's pieces: turned, never flipped over) in a 6x5 rectangle without two
# corners of one colour (no rectangle of 28 squares can be tiled: the T covers three squares
# of one colour of a chessboard colouring, the others two of each).
# tilesat count instances/polyform-puzzler/one-sided-tetrominoes-6x5.py --up-to-symmetry
# expect: 20 tilings, 10 up to symmetry

import puzzler
from puzzler.puzzles.polyominoes import OneSidedTetrominoes


class OneSidedTetrominoes6x5(OneSidedTetrominoes):

    width = 6
    height = 5

    def coordinates(self):
        corners = {(0, 0), (0, 4)}  # both on the same colour
        for coord in self.coordinates_rectangle(self.width, self.height):
            if tuple(coord) not in corners:
                yield coord


if __name__ == '__main__':
    puzzler.run(OneSidedTetrominoes6x5)

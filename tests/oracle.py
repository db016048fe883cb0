"""The oracle moved into the package (tilesat.oracle); this re-export keeps ``from oracle import ...`` working."""
from tilesat.oracle import *  # noqa: F401,F403
from tilesat.oracle import TooHard, board_maps, brute_force_max_packing, brute_force_tilings, orbit_count, orientations, tiling_checker  # noqa: F401

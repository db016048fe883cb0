"""The one exception for bad input: the CLI prints its message and exits 2."""


class TilesatError(Exception):
    """Bad input or an impossible option, explained in one line."""


class VerificationError(AssertionError):
    """A tiling failed the independent checker: a bug in tilesat, never bad input."""

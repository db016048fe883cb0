"""The author's questions after check-unique: where is the board ambiguous, what
makes it unique, where does it fail (``tilesat explain``).

A question of its own layer, above :mod:`tilesat.showing` (its pictures) and
:mod:`tilesat.questions` (it asks check-unique and count): it may import
every package but the front ends."""

from .analysis import Explanation, Suggestion, explain

__all__ = ["Explanation", "Suggestion", "explain"]

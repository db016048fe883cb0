"""Each command's answer whole, shared by the two front ends: the request
objects in (:class:`~tilesat.questions.solve.FindRequest`,
:class:`~tilesat.questions.count.CountRequest`,
:class:`~tilesat.sat.options.SatOptions`, ...), the question asked, the
extras a command adds (check-unique's grade, generate's header and message),
the pictures drawn, and the JSON document that ``tilesat COMMAND --json``
prints and the studio answers, so that the two cannot differ.

Its own layer, above :mod:`tilesat.explain`: it may import every package
but the front ends (:mod:`tilesat.cli`, :mod:`tilesat.studio`)."""

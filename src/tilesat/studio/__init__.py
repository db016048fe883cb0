"""The puzzle author's studio (``tilesat serve``): a local web page to draw
boards and watch check-unique answer as they change, and the JSON API it uses.

- :mod:`.worker`: each API request is answered in a process of its own,
  forked from a forkserver that imported the library once, killed when the
  client goes away or the time limit passes;
- :mod:`.answers`: in that process, the command's request objects built from
  the request's options and the library asked, as the CLI asks it
  (:mod:`tilesat.reports`: the same documents);
- :mod:`.server`: the Starlette application (routes, request limits, the
  option whitelist that turns a request into checked options);
- ``static/``: the page (plain HTML, CSS and JavaScript, nothing fetched from
  elsewhere).

May import every package below the CLI (the layers' contract in pyproject.toml).
"""

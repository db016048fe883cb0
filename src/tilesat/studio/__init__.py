"""The puzzle author's studio (``tilesat serve``): a local web page to draw
boards and watch check-unique answer as they change, and the JSON API it uses.

- :mod:`.worker`: each API request runs one ``tilesat`` command in a process
  of its own, forked from a forkserver that imported the CLI once, killed when
  the client goes away or the time limit passes;
- :mod:`.server`: the Starlette application (routes, request limits, the
  option whitelist that turns a request into a command line);
- ``static/``: the page (plain HTML, CSS and JavaScript, nothing fetched from
  elsewhere).

May import every package below the CLI; its worker still runs the CLI's
commands (the one import upwards the layers' contract allows, in pyproject.toml).
"""

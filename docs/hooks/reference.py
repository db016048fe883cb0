"""MkDocs hook: pages written from the code when the site is built, so they cannot drift.

- ``reference/cli.md``: ``<!-- cli-reference -->`` becomes every command's help, usage and
  options, read from the command line's own definitions (what ``tilesat COMMAND --help`` says).
- ``api/index.md``: ``<!-- public-api -->`` becomes one mkdocstrings entry per name of
  ``tilesat.__all__``, at the module that defines it (``tilesat`` loads its names lazily, which
  static analysis cannot follow).
"""

from __future__ import annotations

import html
import importlib


def _cell(text: str) -> str:
    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|").replace("*", "\\*")


def cli_reference() -> str:
    import typer

    from tilesat.cli import app

    group = typer.main.get_command(app)
    root = type(group.make_context("tilesat", ["solve"], resilient_parsing=True))(group, info_name="tilesat")
    out = []
    options = [p.get_help_record(root) for p in group.params if not p.hidden]
    out += ["## `tilesat`", "", _cell(group.help or ""), "", "Options before the command:", "",
            "| option | what it does |", "|---|---|"]
    out += [f"| `{name}` | {_cell(text)} |" for name, text in options if name]
    out.append("")
    for name in group.list_commands(root):
        command = group.get_command(root, name)
        if command.hidden:
            continue
        ctx = command.make_context(name, [], parent=root, resilient_parsing=True)
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        usage = " ".join(["tilesat", name, "[OPTIONS]"] + [
            (p.name.upper() + ("…" if p.nargs == -1 else "")) if p.required else f"[{p.name.upper()}]"
            for p in arguments])
        out += [f"## `tilesat {name}`", "", _cell(command.help or ""), "", f"`{usage}`", "",
                "| argument or option | what it does |", "|---|---|"]
        for param in command.params:
            if param.hidden:
                continue
            record = param.get_help_record(ctx)
            label = param.name.upper() if param.param_type_name == "argument" else record[0]
            out.append(f"| `{label}` | {_cell(record[1])} |")
        out.append("")
    return "\n".join(out)


def public_api() -> str:
    import tilesat

    out = []
    for name in tilesat.__all__:
        module = tilesat._WHERE.get(name)
        if module is None:  # defined in the package itself
            out.append(f"::: tilesat.{name}")
        else:
            importlib.import_module(f"tilesat.{module}")  # fails here, loudly, if the map is stale
            out.append(f"::: tilesat.{module}.{name}")
        out.append("")
    return "\n".join(out)


MARKERS = {
    "reference/cli.md": ("<!-- cli-reference -->", cli_reference),
    "api/index.md": ("<!-- public-api -->", public_api),
}


def on_page_markdown(markdown, page, config, files, **kwargs):
    marker, render = MARKERS.get(page.file.src_uri, (None, None))
    if marker is None:
        return markdown
    if marker not in markdown:
        raise ValueError(f"{page.file.src_uri}: the marker {marker} is missing")
    return markdown.replace(marker, render())

"""The ``mnemo`` command line: a thin layer of click over the library API.

Each command opens an engine (the daemon's client, or in-process) and calls one method; all
logic lives in the library. Errors from the ``MnemoError`` family print as ``Error: …`` with a
hint and exit 1; usage errors exit 2; ``MNEMO_DEBUG=1`` shows the real traceback.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from ..errors import MnemoError

if TYPE_CHECKING:
    from ..config import Settings


class App:
    """What every command shares: the settings (loaded once) and a way to get an engine."""

    def __init__(self, home: str | None, vault: str | None, now: str | None) -> None:
        self.home, self.vault, self.now = home, vault, now
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from ..config import load_settings

            self._settings = load_settings(home=self.home, vault=self.vault, now=self.now)
        return self._settings

    @contextmanager
    def engine(self) -> Any:
        from ..connect import open_engine

        eng = open_engine(self.settings)
        try:
            yield eng
        finally:
            eng.close()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--home", type=click.Path(file_okay=False), envvar="MNEMO_HOME", help="Data folder (default: the platform's user data folder).")
@click.option("--vault", type=click.Path(file_okay=False), envvar="MNEMO_VAULT", help="The Obsidian vault mnemo lives beside.")
@click.option("--now", metavar="ISO-8601", envvar="MNEMO_NOW", help="Pretend the current time is this (tests, simulations).")
@click.version_option(package_name="mnemo")
@click.pass_context
def cli(ctx: click.Context, home: str | None, vault: str | None, now: str | None) -> None:
    """mnemo: long-term memory for LLM assistants, beside an Obsidian vault."""
    if now:
        from ..clock import parse_time

        parse_time(now)  # fail early on a bad --now
    ctx.obj = App(home, vault, now)


def main(argv: list[str] | None = None) -> None:
    debug = os.environ.get("MNEMO_DEBUG") == "1"
    try:
        cli.main(args=argv, prog_name="mnemo", standalone_mode=False)
    except MnemoError as exc:
        if debug:
            raise
        click.echo(f"Error: {exc.message}", err=True)
        if exc.hint:
            click.echo(f"Hint: {exc.hint}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:
        if debug:
            raise
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        click.echo(f"Error: {exc.strerror or exc}{where}", err=True)
        sys.exit(1)


# Command modules register themselves on ``cli`` when imported (``vault`` is imported under
# another name: the global option of that name is a parameter above).
from . import core, daemon, doctor, dream, graph, history, hook, mcp, obsidian, recall, scoring  # noqa: E402,F401
from . import vault as _vault_commands  # noqa: E402,F401

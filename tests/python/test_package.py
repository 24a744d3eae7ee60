"""The package imports, finds its extension, and the command line behaves."""

from __future__ import annotations

import subprocess
import sys

import parjava
from parjava import _core, errors
from parjava.cli import main


def test_extension_version_matches_package() -> None:
    assert _core.__version__ == parjava.__version__


def test_errors_form_one_hierarchy() -> None:
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.Error)
    assert issubclass(errors.UsageError, ValueError)


def test_cli_help_exits_zero() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "parjava", "--help"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert "usage: parjava" in proc.stdout


def test_cli_unknown_verb_is_usage_error(capsys) -> None:
    try:
        main(["no-such-verb"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("an unknown verb must exit with status 2")
    assert "invalid choice" in capsys.readouterr().err

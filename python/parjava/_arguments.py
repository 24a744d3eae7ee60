"""Program inputs: from a command line, or a user's spelling, to model parameters.

The model builder names every input that reaches control flow or communication after its
variable (``nSteps``, ``nx``) and records how the program reads it: the option spellings that
set it (``-N``, ``--nSteps``), the program's own default, and the control variables it sets
(``cmd.nSteps``). Constant indices of ``argv`` are the parameters ``argv1``, ``argv2``, ... and
``argc`` counts the arguments. This module turns a command line into those parameters the way
the program parses it, and resolves the names users write in ``params=``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import UsageError

Number = int | float


def number(text: str, floating: bool) -> Number:
    """Read a command-line argument as ``atoi`` / ``atof`` do (0 when it is not a number)."""
    text = text.strip()
    if floating:
        digits = ""
        for ch in text:
            if ch.isdigit() or ch in "+-.eE":
                digits += ch
            else:
                break
        try:
            return float(digits)
        except ValueError:
            return 0.0
    digits = ""
    for i, ch in enumerate(text):
        if ch.isdigit() or (i == 0 and ch in "+-"):
            digits += ch
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


def option_value(argv: Sequence[str], options: Sequence[str], position: int = 1) -> str | None:
    """Return the value ``argv`` gives one of ``options``: ``-N 100``, ``--nSteps=100``, ``-N100``.

    ``position`` k > 1 takes the k-th value after a separate option (``-n 20 30 40``: 2 gives
    ``30``). The last occurrence wins, as with most parsers. Returns ``None`` if no option is
    given.
    """
    found: str | None = None
    args = list(argv)
    for i in range(1, len(args)):
        arg = args[i]
        for o in options:
            if arg == o:
                if i + position < len(args):
                    found = args[i + position]
            elif position > 1:
                continue
            elif arg.startswith(o + "="):
                found = arg[len(o) + 1 :]
            elif (
                len(o) == 2
                and o[0] == "-"
                and o[1] != "-"
                and arg.startswith(o)
                and len(arg) > 2
                and (arg[2].isdigit() or arg[2] == ".")
            ):
                found = arg[2:]  # getopt's -N100
    return found


def _spec(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"value": value}


def _chosen(spec: Mapping[str, Any], argv: Sequence[str]) -> tuple[Number, int] | None:
    """Return the constant the last of a parameter's choice words on ``argv`` sets, and where.

    ``choices`` (docs/model-schema.md): XSBench's ``-m history`` / ``-m event`` set
    simulation_method to 1 / 2. None when no word of them is on the command line.
    """
    found = None
    for i, arg in enumerate(list(argv)[1:], start=1):
        if arg in (spec.get("choices") or {}):
            found = (spec["choices"][arg], i)
    return found


def _option_after(spec: Mapping[str, Any], argv: Sequence[str], start: int) -> bool:
    """Return whether one of the parameter's value options is on ``argv`` after ``start``."""
    options = spec.get("options") or []
    return any(
        arg == o or arg.startswith(o + "=") for arg in list(argv)[start + 1 :] for o in options
    )


def _read_positions(parameters: Mapping[str, Any], argv: Sequence[str]) -> set[int] | None:
    """Return the positions of ``argv`` some parameter reads.

    None when a parameter reads a position the builder could not tell (any may be read).
    """
    read: set[int] = set()
    for name, raw in parameters.items():
        spec = _spec(raw)
        for i, arg in enumerate(argv):
            if i > 0 and arg in (spec.get("choices") or {}):
                # The word, and the option that introduces it (`-G hash`).
                read.update((i, i - 1) if i > 1 and argv[i - 1].startswith("-") else (i,))
        if name.startswith("argv") and name[4:].isdigit():
            read.add(int(name[4:]))
        elif spec.get("options") and "flag" in spec:
            read.update(i for i, arg in enumerate(argv) if i > 0 and arg in spec["options"])
        elif spec.get("options"):
            for i, arg in enumerate(argv):
                for o in spec["options"]:
                    if arg == o:
                        read.update((i, i + int(spec.get("position", 1))))
                    elif arg.startswith(o) and (len(o) == 2 or arg.startswith(o + "=")):
                        read.add(i)
        elif spec.get("origin") == "argv":
            return None
    return read


def unread_differences(
    parameters: Mapping[str, Any], argv: Sequence[str], estimated: Sequence[str]
) -> str | None:
    """Return the warning for arguments that differ from the estimation run's, unread.

    None when every differing argument is read by a parameter. HPCG parses `--nx=16` into an
    array the model does not keep: its loops keep the trip counts the estimation measured, and
    `--nx=64` changed nothing in the prediction, silently (issue 13, never silently wrong).

    The arguments no parameter reads are compared in order, each command line's own: an option
    a parameter reads may be added, dropped or moved (`-i 200` before `-s 15`) without shifting
    what is compared, which a position-by-position comparison took for unread changes.
    """
    read = _read_positions(parameters, argv)
    read_then = _read_positions(parameters, estimated)
    if read is None or read_then is None:
        return None
    now = [a for i, a in enumerate(argv) if i > 0 and i not in read]
    then = [a for i, a in enumerate(estimated) if i > 0 and i not in read_then]
    diffs = []
    for i in range(max(len(now), len(then))):
        new = now[i] if i < len(now) else None
        old = then[i] if i < len(then) else None
        if new != old:
            diffs.append(
                f"'{new}' (was '{old}')"
                if old is not None and new is not None
                else f"'{new}' (absent then)"
                if new is not None
                else f"'{old}' dropped"
            )
    if not diffs:
        return None
    # An argument that names an input file (PENNANT's `sedov.pnt`) changes the settings the model
    # read from the file as parameters: they keep the estimation's values unless given.
    from_file = [n for n, raw in parameters.items() if _spec(raw).get("origin") == "file"]
    files = (
        f"; the parameters read from input files ({', '.join(from_file[:6])}"
        f"{' and more' if len(from_file) > 6 else ''}) keep the estimation run's values: give "
        f"this input's with params="
        if from_file
        else ""
    )
    # Values the program's own parsing function set (miniXyce's get_parms()) from the command
    # line or its files, measured by the estimation run.
    helped = [n for n, raw in parameters.items() if _spec(raw).get("origin") == "helper"]
    if helped:
        files += (
            f"; the parameters the program's own parsing functions set ({', '.join(helped[:6])}"
            f"{' and more' if len(helped) > 6 else ''}) keep the estimation run's values unless "
            f"an option the builder found gives them: give this input's with params="
        )
    return (
        f"the command line differs from the estimation run's at {', '.join(diffs[:4])}"
        f"{' and more' if len(diffs) > 4 else ''}, and no model parameter reads "
        f"{'it' if len(diffs) == 1 else 'them'}: the program keeps such inputs in data the model "
        f"does not follow, so the prediction keeps what the estimation run measured (trip "
        f"counts, sizes); estimate with this command line, or set the values with params="
        f"{files}"
    )


def arguments(
    parameters: Mapping[str, Any], argv: Sequence[str], estimated: Sequence[str] | None = None
) -> dict[str, Number]:
    """Return the parameters a command line (``argv[0]`` first) sets.

    ``parameters`` is the model's ``parameters`` object (name -> value or description).
    Named inputs take the value their option has on the command line, else the program's
    default; an input without an option keeps the value the model has (measured by the
    estimation run), and one whose option is absent and whose default is unknown keeps it too,
    with a warning. ``estimated`` is the estimation run's command line: arguments that differ
    from it where no parameter reads them are warned about.
    """
    if estimated is not None:
        unread = unread_differences(parameters, argv, estimated)
        if unread is not None:
            warnings.warn(unread, stacklevel=3)
    params: dict[str, Number] = {}
    for name, raw in parameters.items():
        spec = _spec(raw)
        floating = isinstance(spec["value"], float)
        if name == "argc":
            params[name] = len(argv)
        elif name.startswith("argv") and name[4:].isdigit():
            k = int(name[4:])
            if k >= len(argv) and "default" in spec:
                # Absent, the value the program keeps (`if (argc == 4) tile = atoi(argv[3]);`).
                params[name] = spec["default"]
            else:
                params[name] = number(argv[k] if k < len(argv) else "", floating)
        elif (chosen := _chosen(spec, argv)) is not None and (
            "flag" in spec or not _option_after(spec, argv, chosen[1])
        ):
            # A word that sets a constant (`-m event`), unless a value option comes after it.
            params[name] = chosen[0]
        elif spec.get("options") and "flag" in spec:
            # An option without a value (`-q`): its constant when given, else the program's.
            given = any(a in spec["options"] for a in list(argv)[1:])
            params[name] = spec["flag"] if given else spec.get("default", spec["value"])
        elif spec.get("options"):
            text = option_value(argv, spec["options"], int(spec.get("position", 1)))
            if text is not None:
                params[name] = number(text, floating)
            elif "default" in spec:
                params[name] = spec["default"]
            elif spec.get("origin") == "helper" and (
                estimated is None
                or option_value(estimated, spec["options"], int(spec.get("position", 1))) is None
            ):
                # Set by the program's own parsing function from a file when the command line
                # leaves it out (miniXyce's default_params.txt), as in the estimation run: the
                # value that run measured.
                pass
            else:
                warnings.warn(
                    f"parameter '{name}': {' / '.join(spec['options'])} is not on the command "
                    f"line and the program's default is not known; keeping {spec['value']}",
                    stacklevel=3,
                )
        elif spec.get("origin") == "argv" and len(argv) > 1:
            # Read from the command line at a place the builder could not tell (a position
            # reached by steps in branches or loops): never silently the estimation's value.
            warnings.warn(
                f"parameter '{name}' ({spec.get('doc', 'read from the command line')}) is read "
                f"at a position of the command line the model could not tell, so a command "
                f"line does not set it: keeping {spec['value']}; give it with "
                f"params={{'{name}': ...}}",
                stacklevel=3,
            )
    return params


def resolve(
    parameters: Mapping[str, Any], params: Mapping[str, Number] | None
) -> dict[str, Number]:
    """Map the names users write in ``params=`` to parameter names.

    A key may be a parameter's name, one of its options (``--nSteps``, ``-N``) or one of the
    control variables it sets (``cmd.nSteps``, ``Command::nSteps``). Unknown keys are an error
    that lists what the model has.
    """
    if not params:
        return {}
    lookup: dict[str, str] = {}
    # An option that gives several values (`-n 20 30 40`) names none of their parameters.
    several = {
        o
        for raw in parameters.values()
        if int(_spec(raw).get("position", 1)) > 1
        for o in _spec(raw).get("options", [])
    }
    for name, raw in parameters.items():
        spec = _spec(raw)
        options = [o for o in spec.get("options", []) if o not in several]
        for alias in [*options, *spec.get("aliases", [])]:
            lookup.setdefault(alias, name)
            # `Command::nSteps` also answers to `nSteps.` forms users write: cmd.nSteps.
            lookup.setdefault(alias.replace("::", "."), name)
    out: dict[str, Number] = {}
    for key, value in params.items():
        if key in parameters:
            out[key] = value
        elif key in lookup:
            out[lookup[key]] = value
        else:
            names = ", ".join(sorted(parameters)) or "none"
            raise UsageError(
                f"no parameter '{key}' in the model, nor an option or a variable that sets one "
                f"(parameters: {names})"
            )
    return out

"""TOML text from Python values: the case dictionaries and ``set=`` overrides of eddy.Simulation.

Only writing, and only what a case file holds: tables, arrays of tables ([[solid]]), strings, booleans, integers,
floats and arrays of them. The text goes to eddy's own case reader (io/case_config.cpp), which validates it exactly
as it validates a file, so nothing is checked here beyond the Python types.
"""

import math
import os
import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def key(name):
    """A TOML key: bare when it can be, else a quoted string."""
    name = str(name)
    return name if _BARE_KEY.match(name) else string(name)


def string(text):
    """A TOML basic string."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def value(v):
    """A TOML value: bool, int, float (inf and nan as TOML spells them), str or os.PathLike, list or tuple (an
    array), dict (an inline table). Raises TypeError for anything else."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, (str, os.PathLike)):
        return string(os.fspath(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(key(k) + " = " + value(x) for k, x in v.items()) + "}"
    if hasattr(v, "item") and callable(v.item):  # NumPy scalars
        return value(v.item())
    raise TypeError("eddy: cannot write %r (%s) as a TOML value" % (v, type(v).__name__))


def _is_table_array(v):
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def dumps(case):
    """A TOML document of the dictionary `case`: its dict values become tables ([domain], [boundary.x_min]), lists
    of dicts arrays of tables ([[solid]]), everything else keys."""
    lines = []

    def table(path, t):
        plain = [(k, v) for k, v in t.items() if not isinstance(v, dict) and not _is_table_array(v)]
        if path and (plain or not t):
            lines.append("[" + ".".join(key(p) for p in path) + "]")
        for k, v in plain:
            lines.append(key(k) + " = " + value(v))
        for k, v in t.items():
            if isinstance(v, dict):
                table(path + [k], v)
            elif _is_table_array(v):
                for entry in v:
                    lines.append("[[" + ".".join(key(p) for p in path + [k]) + "]]")
                    for kk, vv in entry.items():
                        lines.append(key(kk) + " = " + value(vv))

    if not isinstance(case, dict):
        raise TypeError("eddy: a case is a path to a TOML file or a dict mirroring one (got %s)" % type(case).__name__)
    table([], case)
    return "\n".join(lines) + "\n"


def override(name, v):
    """One --set override, "section.key=value", from a key and a Python value."""
    return str(name) + "=" + value(v)

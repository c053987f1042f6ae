"""The Python names a statement binds, read from its source, so that buffers,
block indices and loop variables carry the names the user gave them (as
TileLang's do): `A_s = T.alloc_shared(...)` allocates "A_s", and
`for i, j in T.Parallel(64, 64)` declares "i" and "j". None where the source is
not available (a REPL, exec) or the statement binds something else."""

import ast
import functools
import linecache


@functools.lru_cache(maxsize=64)
def _tree(filename):
    source = "".join(linecache.getlines(filename))
    if not source:
        return None
    try:
        return ast.parse(source, filename)
    except SyntaxError:
        return None


def _innermost(frame, accept):
    """The innermost node `accept` maps to a span containing the frame's line."""
    tree = _tree(frame.f_code.co_filename)
    if tree is None:
        return None
    line, best, best_start = frame.f_lineno, None, -1
    for node in ast.walk(tree):
        span = accept(node)
        if span and span[0] <= line <= span[1] and span[0] > best_start:
            best, best_start = node, span[0]
    return best


def _names(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None


def loop_targets(frame):
    """The names of `for NAMES in <call on this line>:`."""
    node = _innermost(frame, lambda n: isinstance(n, ast.For) and (n.lineno, n.iter.end_lineno))
    return _names(node.target) if node else None


def with_targets(frame):
    """The names of `with <call on this line> as NAMES:`."""
    def span(node):
        if isinstance(node, ast.With) and node.items:
            return node.lineno, node.items[-1].context_expr.end_lineno
        return None
    node = _innermost(frame, span)
    if node is None:
        return None
    for item in node.items:
        if item.optional_vars is not None:
            return _names(item.optional_vars)
    return None


def assigned_name(frame):
    """The name of `NAME = <call on this line>`."""
    def span(node):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            return node.lineno, node.value.end_lineno
        return None
    node = _innermost(frame, span)
    if node is None:
        return None
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = _names(targets[0]) if len(targets) == 1 else None
    return names[0] if names and len(names) == 1 else None

"""T.alloc_var: TileLang's per-thread scalar variable. It is a one-element local buffer; the
variable reads as its element wherever an expression goes, and Python's assignments to its
name (`x = v`, `x += v`) store into it, since the rewritten kernel function routes them here
(ast_rewrite.py's assign)."""

from tile.language import allocations, dtypes
from tile.language import expr as expr_module
from tile.language.builder import statement_site


class Variable(expr_module._Operators):  # pylint: disable=protected-access
    """A T.alloc_var variable: loads and stores of its buffer's one element."""

    def __init__(self, buffer):
        self.buffer = buffer
        self._fresh_variable = True  # its first binding is the allocation, not a store

    @property
    def variable_buffer(self):
        """The buffer tile operations see (T.clear(x), T.fill(x, v))."""
        return self.buffer

    @property
    def dtype(self):
        return self.buffer.dtype

    @property
    def name(self):
        return self.buffer.name

    def _load(self):
        return self.buffer[0]._load()  # pylint: disable=protected-access

    def _assign(self, value):
        self.buffer[0] = value

    def __getitem__(self, index):
        return self.buffer[index]

    def __setitem__(self, index, value):
        self.buffer[index] = value

    def __repr__(self):
        return f"<tile.language variable {self.buffer.name}: {self.buffer.dtype}>"


def alloc_var(dtype, init=None, scope="local.var", name=None):
    """TileLang's T.alloc_var(dtype, init=None): a scalar each thread keeps (a local buffer of
    one element), set to `init` when given."""
    what = "T.alloc_var"
    builder, site = statement_site(what)
    if scope not in ("local.var", "local"):
        raise builder.fail(NotImplementedError, what, f"scope={scope!r}: a variable lives in "
                           "'local.var' (a thread's registers)")
    dtypes.parse(dtype, f"{site}: {what}")
    buffer = allocations.alloc_local([1], dtype, name=name)
    if init is not None:
        buffer[0] = init
    variable = Variable(buffer)
    return variable


def mark_bound(variable):
    """After its first binding a variable's later assignments are stores."""
    variable._fresh_variable = False  # pylint: disable=protected-access

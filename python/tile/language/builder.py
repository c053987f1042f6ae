"""The kernel under construction. A @T.prim_func function runs once (it is
traced): each T.* call appends tile_ir.v1 statements to the innermost open
block of the active KernelBuilder, carrying the user's file and line."""

import threading

from tile.language import _where
from tile.language._proto import pb

_active = threading.local()


class KernelBuilder:
    def __init__(self, name, site):
        self.name = name
        self.site = site
        self.names = set()
        self.dims = []            # the symbolic dims of the parameters' shapes, in order
        self.dim_set = set()
        self.params = []          # tile_ir.v1.Param
        self.launch = None        # tile_ir.v1.Launch, from T.Kernel
        self.launch_site = None
        self.kernel_open = False  # inside `with T.Kernel(...)`
        self.kernel_done = False
        self.blocks = [[]]        # open blocks of tile_ir.v1.Stmt, innermost last
        self.ir_version = 1
        self.errors = []          # found where no exception can be raised (a loop left early)
        self.previous = None
        # A prim_func of several T.Kernel blocks: the (launch, statements, site) of each block
        # before the current one, and the T.alloc_global workspaces every kernel takes.
        self.finished = []
        self.workspaces = []
        self.views = []           # Buffers over a global buffer's memory (views.py)

    def start_next_kernel(self):
        """A T.Kernel block after another: the one before is kept, the next starts empty."""
        self.finished.append((self.launch, self.blocks[0], self.launch_site))
        self.launch, self.launch_site = None, None
        self.blocks = [[]]
        self.kernel_done = False
        self.thread_indices = None

    # --- activation ---
    def __enter__(self):
        self.previous = getattr(_active, "builder", None)
        _active.builder = self
        return self

    def __exit__(self, *exc):
        _active.builder = self.previous

    # --- errors ---
    def fail(self, cls, what, message, site=None):
        """An exception naming the user's line, the kernel and the construct."""
        site = site or _where.here()
        return cls(f"{site}: in kernel '{self.name}': {what}: {message}")

    # --- names: one namespace per kernel, each name declared once ---
    @staticmethod
    def legal_name(name):
        """`name`, with '_' appended while it is a keyword of the text form ("kernel",
        "copy", "f16"), which the IR refuses as a name (libtile's tile_is_identifier)."""
        from tile._lib import lib  # pylint: disable=import-outside-toplevel
        while not lib.tile_is_identifier(name.encode()) and name.isidentifier():
            name += "_"
        return name

    def fresh_name(self, base):
        base = self.legal_name(base)
        name, suffix = base, 1
        while name in self.names:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.names.add(name)
        return name

    def claim_name(self, name, what):
        if name in self.names:
            raise self.fail(ValueError, what, f"the name '{name}' is already taken in this "
                            "kernel (dims, parameters, buffers and variables share one "
                            "namespace)", self.site)
        self.names.add(name)

    # --- statements ---
    def require_body(self, what):
        """Statements belong inside `with T.Kernel(...)`."""
        if not self.kernel_open:
            where = "after its T.Kernel block" if self.kernel_done else "before T.Kernel"
            raise self.fail(ValueError, what, f"called {where}; every statement of a kernel "
                            "goes inside its `with T.Kernel(...)` block")

    def append(self, stmt):
        self.blocks[-1].append(stmt)

    def open_block(self):
        self.blocks.append([])

    def close_block(self):
        return pb.Stmt(seq=pb.Seq(stmts=self.blocks.pop()))

    def use(self, expr, what):
        """Checks that an expression only names what this kernel can see."""
        for var in expr.vars:
            if var.owner is not None and var.owner is not self:
                raise self.fail(ValueError, what, f"'{var.name}' belongs to kernel "
                                f"'{var.owner.name}' ({var.site}), not this one")
            if var.kind == "dim" and var not in self.dim_set:
                raise self.fail(ValueError, what, f"symbolic dimension '{var.name}' is in no "
                                "parameter's shape, so no launch could bind it")
        return expr


def current(what):
    """The active builder; `what` names the construct in the error when there is none."""
    builder = getattr(_active, "builder", None)
    if builder is None:
        raise RuntimeError(f"{_where.here()}: {what}: called outside a kernel; tile.language "
                           "statements go inside a @T.prim_func function's "
                           "`with T.Kernel(...)` block")
    return builder


def statement_site(what):
    """The active builder, checked to be inside its T.Kernel block, and the call's Site."""
    builder = current(what)
    builder.require_body(what)
    return builder, _where.here()

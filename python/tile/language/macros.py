"""TileLang's @T.macro (a helper traced inline where it is called, its Python control flow on
kernel values rewritten as a kernel's is) and T.sync_threads (a barrier of the block)."""

import functools

from tile.language import ast_rewrite
from tile.language._proto import pb
from tile.language.builder import statement_site


def macro(fn=None, **unused):
    """@T.macro: `fn` runs where it is called inside a kernel; its statements become the
    kernel's (TileLang's macro, inlined at each call)."""
    del unused
    if fn is None:
        return macro
    rewritten = ast_rewrite.rewrite(fn)
    functools.update_wrapper(rewritten, fn)
    return rewritten


def sync_threads():
    """T.sync_threads(): every thread of the block waits for the others (the IR's
    `barrier(block)`). Tile programs need none (insert-barriers places them); thread-level code
    written with T.get_thread_binding may. On the CPU a block's threads run one after another,
    so it orders nothing there."""
    builder, site = statement_site("T.sync_threads")
    builder.append(pb.Stmt(barrier=pb.Barrier(scope=pb.BARRIER_SCOPE_BLOCK), loc=site.proto()))

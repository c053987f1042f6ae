"""TileLang's statements that steer code generation without changing a value: register
allocation hints for warp-specialized kernels. The targets here choose register budgets
themselves (sm_90a's warp-specialize pass sets the producer's and consumers' setmaxnreg), so
these are accepted and emit nothing; they are checked to be called inside a kernel body."""

from tile.language.builder import statement_site


def no_set_max_nreg():
    """TileLang's: do not set per-warp-group register limits (the target decides here)."""
    statement_site("T.no_set_max_nreg")


def disable_warp_group_reg_alloc():
    """TileLang's alias of no_set_max_nreg."""
    statement_site("T.disable_warp_group_reg_alloc")


def set_max_nreg(reg_count, is_inc):
    """TileLang's per-warp-group register limit: a hint; the target sets its own."""
    del reg_count, is_inc
    statement_site("T.set_max_nreg")


def annotate_producer_reg_alloc(reg_count):
    del reg_count
    statement_site("T.annotate_producer_reg_alloc")


def annotate_consumer_reg_alloc(reg_count):
    del reg_count
    statement_site("T.annotate_consumer_reg_alloc")


def assume(cond):
    """TVM's T.assume(cond): a fact the compiler may rely on. Nothing here relies on a user's
    assumption (bounds are proven or masked), so it emits nothing; the condition is still
    checked to be a boolean expression of the kernel."""
    from tile.language import expr  # pylint: disable=import-outside-toplevel
    from tile.language import dtypes  # pylint: disable=import-outside-toplevel
    builder, _ = statement_site("T.assume")
    cond = expr.typed(expr.as_expr(cond, "T.assume"), dtypes.bool_)
    if cond.dtype.kind != "bool":
        raise builder.fail(TypeError, "T.assume", f"the condition is {cond.dtype.ir_name}, "
                           "not bool")

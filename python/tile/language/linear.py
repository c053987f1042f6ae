"""stop - start of a slice as a constant where the two differ by one, so that
`A[bx * 64:(bx + 1) * 64]` is a region of extent 64 as TileLang users expect:
both sides are read as sums of terms (+, -, and * by an integer literal),
terms compared structurally."""

from tile.language import expr as expr_module
from tile.language._proto import pb


def _terms(node, scale, terms):
    """Adds node * scale into terms: {serialized atom: coefficient}, b"" the constant."""
    kind = node.WhichOneof("node")
    if kind == "int_imm":
        terms[b""] = terms.get(b"", 0) + scale * node.int_imm.value
        return
    if kind == "binary":
        op, a, b = node.binary.op, node.binary.a, node.binary.b
        if op in (pb.BINARY_OP_ADD, pb.BINARY_OP_SUB):
            _terms(a, scale, terms)
            _terms(b, scale if op == pb.BINARY_OP_ADD else -scale, terms)
            return
        if op == pb.BINARY_OP_MUL:
            for factor, other in ((b, a), (a, b)):
                if factor.WhichOneof("node") == "int_imm":
                    _terms(other, scale * factor.int_imm.value, terms)
                    return
    key = node.SerializeToString(deterministic=True)
    terms[key] = terms.get(key, 0) + scale


def extent_between(start, stop):
    """stop - start: a literal when the terms cancel, else the subtraction."""
    if start.dtype.is_int and stop.dtype.is_int:
        terms = {}
        _terms(stop.node, 1, terms)
        _terms(start.node, -1, terms)
        if all(coefficient == 0 for key, coefficient in terms.items() if key):
            return expr_module.typed(expr_module.literal(terms.get(b"", 0)), stop.dtype)
    return stop - start

"""Element types by their TileLang names ("float16", T.float16) and the IR's
("f16"), each mapped onto tile_ir.v1.ScalarType."""

from tile.language._proto import pb


class DType(str):
    """An element type. It is the string of TileLang's spelling (as TileLang's dtypes are), so
    `getattr(torch, T.float32)` and `{"float32": ...}[dtype]` work; it also compares equal to
    its other spellings (`== "f32"`); calling it makes a literal of the type:
    T.float16(0.5)."""

    def __new__(cls, name, ir_name, scalar, kind, bits):
        del ir_name, scalar, kind, bits
        return super().__new__(cls, name)

    def __init__(self, name, ir_name, scalar, kind, bits):  # pylint: disable=super-init-not-called
        self.name = name        # TileLang's spelling
        self.ir_name = ir_name  # the text form's
        self.scalar = scalar    # tile_ir.v1.ScalarType
        self.kind = kind        # "float", "int", "uint" or "bool"
        self.bits = bits

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_int(self):
        return self.kind in ("int", "uint")

    def proto(self):
        # Every type reaches the IR through here, so a kernel that writes a type newer than the
        # first IR version declares the version that has it.
        version = _IR_VERSION.get(self.ir_name)
        if version is not None:
            from tile.language import builder  # pylint: disable=import-outside-toplevel
            active = getattr(builder._active, "builder", None)  # pylint: disable=protected-access
            if active is not None:
                active.ir_version = max(active.ir_version, version)
        return pb.DataType(scalar=self.scalar)

    def __call__(self, value):
        from tile.language import expr
        return expr.literal_of(value, self)

    def __eq__(self, other):
        if isinstance(other, str):
            return other in (self.name, self.ir_name) or _ALIASES.get(other) is self
        return isinstance(other, DType) and other.ir_name == self.ir_name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        # The hash of TileLang's spelling, so a DType finds a dict entry keyed by that string.
        return str.__hash__(self)

    def __str__(self):
        return self.name

    def as_torch(self):
        """The torch dtype of this type (TileLang's dtype.as_torch()); torch is imported."""
        from tile import _frameworks  # pylint: disable=import-outside-toplevel
        return _frameworks._dtype("torch", self.ir_name)  # pylint: disable=protected-access

    def __repr__(self):
        return f"T.{self.name}"


_TYPES = [
    DType("bool", "bool", pb.SCALAR_TYPE_BOOL, "bool", 8),
    DType("int4", "i4", pb.SCALAR_TYPE_I4, "int", 4),
    DType("int8", "i8", pb.SCALAR_TYPE_I8, "int", 8),
    DType("int16", "i16", pb.SCALAR_TYPE_I16, "int", 16),
    DType("int32", "i32", pb.SCALAR_TYPE_I32, "int", 32),
    DType("int64", "i64", pb.SCALAR_TYPE_I64, "int", 64),
    DType("uint8", "u8", pb.SCALAR_TYPE_U8, "uint", 8),
    # ir_version 7: a kernel using one is written as version 7.
    DType("uint16", "u16", pb.SCALAR_TYPE_U16, "uint", 16),
    DType("uint32", "u32", pb.SCALAR_TYPE_U32, "uint", 32),
    DType("uint64", "u64", pb.SCALAR_TYPE_U64, "uint", 64),
    # TileLang's (and torch's) name for OCP e4m3, the format the IR's f8e4m3 is.
    DType("float8_e4m3fn", "f8e4m3", pb.SCALAR_TYPE_F8E4M3, "float", 8),
    DType("float8_e5m2", "f8e5m2", pb.SCALAR_TYPE_F8E5M2, "float", 8),
    DType("float16", "f16", pb.SCALAR_TYPE_F16, "float", 16),
    DType("bfloat16", "bf16", pb.SCALAR_TYPE_BF16, "float", 16),
    DType("float32", "f32", pb.SCALAR_TYPE_F32, "float", 32),
    DType("float64", "f64", pb.SCALAR_TYPE_F64, "float", 64),
]
BY_NAME = {t.name: t for t in _TYPES}
# The types that came after IR version 1, with the version that introduced them.
_IR_VERSION = {"u16": 7, "u32": 7, "u64": 7}
# Other spellings TileLang and TVM accept for the same types.
_ALIASES = {"float8_e4m3": BY_NAME["float8_e4m3fn"], "half": BY_NAME["float16"],
            "float": BY_NAME["float32"], "double": BY_NAME["float64"]}
_LOOKUP = {**{t.ir_name: t for t in _TYPES}, **BY_NAME, **_ALIASES}

bool_, int32, int64, float32 = BY_NAME["bool"], BY_NAME["int32"], BY_NAME["int64"], BY_NAME[
    "float32"]


def parse(dtype, what):
    """The DType of a spelling (or of a torch or numpy dtype, as TileLang takes them); `what`
    names the argument in the error."""
    framework = type(dtype).__module__.split(".")[0]
    if framework in ("torch", "numpy") and not isinstance(dtype, str):
        # torch.float16 prints "torch.float16"; numpy's dtype("float16") prints "float16".
        dtype = str(dtype).rsplit(".", 1)[-1]
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        found = _LOOKUP.get(dtype)
        if found is None:
            raise ValueError(f"{what}: unknown dtype '{dtype}'; use one of "
                             f"{', '.join(repr(t.name) for t in _TYPES)} (or the IR's "
                             f"{', '.join(t.ir_name for t in _TYPES)})")
        return found
    raise TypeError(f"{what}: a dtype is a string such as 'float16' or T.float16, "
                    f"not {type(dtype).__name__}")

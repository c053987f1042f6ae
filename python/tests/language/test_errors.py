"""Every refusal of tile.language names what was wrong and where: the user's
file and line (this file's), the kernel, and the construct."""

import re

import pytest

import tile
import tile.language as T

M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
HERE = re.escape(__file__)


def at(message):
    """A pattern: this file, a line, then `message`."""
    return rf"{HERE}:\d+: {message}"


def test_unknown_dtype_in_a_tensor_annotation():
    with pytest.raises(ValueError, match=at(r"T.Tensor: unknown dtype 'float17'; use one of "
                                            r"'bool', .*'float16'")):
        T.Tensor((M,), "float17")


def test_unknown_dtype_in_an_allocation():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.alloc_shared: unknown dtype "
                                            r"'f33'")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float16")):
            with T.Kernel(1):
                T.alloc_shared((64,), "f33")


def test_a_dtype_that_is_not_a_string():
    with pytest.raises(TypeError, match=r"a dtype is a string such as 'float16' or T.float16, "
                                        r"not float"):
        T.Tensor((M,), 1.5)


def test_a_buffer_used_outside_its_kernel():
    leaked = {}

    @T.prim_func
    def first(A: T.Tensor((M,), "float32")):
        with T.Kernel(1):
            leaked["tile"] = T.alloc_fragment((64,), "float32", name="tile")
            leaked["A"] = A

    with pytest.raises(ValueError, match=at(r"in kernel 'second': T.copy: buffer 'tile' "
                                            r"belongs to kernel 'first' \(.*\), not this one")):
        @T.prim_func
        def second(B: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                T.copy(B[0], leaked["tile"])
    with pytest.raises(ValueError, match=at(r"in kernel 'third': a load of A: buffer 'A' "
                                            r"belongs to kernel 'first'")):
        @T.prim_func
        def third(B: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                B[0] = leaked["A"][0]
    with pytest.raises(RuntimeError, match=at(r"T.copy: called outside a kernel")):
        T.copy(leaked["A"], leaked["tile"])


def test_a_block_index_used_in_another_kernel():
    leaked = []

    @T.prim_func
    def first(A: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, 64)) as bx:
            leaked.append(bx)

    with pytest.raises(ValueError, match=at(r"in kernel 'second': a store to B: 'bx' belongs "
                                            r"to kernel 'first'")):
        @T.prim_func
        def second(B: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                B[leaked[0]] = 1.0


def test_statements_outside_the_kernel_block():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.alloc_fragment: called before "
                                            r"T.Kernel; every statement")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            T.alloc_fragment((64,), "float32")
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.fill: called after its "
                                            r"T.Kernel block")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                pass
            T.fill(A, 0)


@pytest.mark.parametrize("transpose_B, message", [
    (False, r"shapes disagree: A is \[128, 32\], B is \[64, 128\], C is \[128, 128\] "
            r"\(transpose_A=False, transpose_B=False\), so K is 32 in A but 64 in B"),
    (True, r"shapes disagree: .* so K is 32 in A but 128 in B"),
])
def test_gemm_shape_mismatch(transpose_B, message):
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.gemm: " + message)):
        @T.prim_func
        def k(A: T.Tensor((M, K), "float16")):
            with T.Kernel(1):
                a = T.alloc_shared((128, 32), "float16")
                b = T.alloc_shared((64, 128), "float16")
                c = T.alloc_fragment((128, 128), "float32")
                T.gemm(a, b, c, transpose_B=transpose_B)


def test_gemm_operands_in_the_wrong_memory():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.gemm: C 'c' is in shared memory; it must be in "
                                            r"fragment or local memory")):
        @T.prim_func
        def k(A: T.Tensor((M, K), "float16")):
            with T.Kernel(1):
                a = T.alloc_shared((64, 32), "float16")
                b = T.alloc_shared((32, 64), "float16")
                c = T.alloc_shared((64, 64), "float32")
                T.gemm(a, b, c)
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.gemm: A 'A' is in global memory")):
        @T.prim_func
        def k2(A: T.Tensor((64, 32), "float16")):
            with T.Kernel(1):
                b = T.alloc_shared((32, 64), "float16")
                c = T.alloc_fragment((64, 64), "float32")
                T.gemm(A, b, c)


def test_copy_extents_disagree():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.copy: the source A\[..., ...\] is \[1, 64\] but the "
                                            r"destination a is \[32\]")):
        @T.prim_func
        def k(A: T.Tensor((M, K), "float16")):
            with T.Kernel(1):
                a = T.alloc_shared((32,), "float16")
                T.copy(A[0, 0:64], a)


def test_non_constant_tile_shapes():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.alloc_shared: dimension 1 of the "
                                            r"shape is not a constant: shared memory is sized "
                                            r"when the kernel is compiled")):
        @T.prim_func
        def k(A: T.Tensor((M, K), "float16")):
            with T.Kernel(1):
                T.alloc_shared((64, K), "float16")
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.alloc_fragment: dimension 0 of the shape is not "
                                            r"a constant: it uses bx, which changes within a "
                                            r"launch")):
        @T.prim_func
        def k2(A: T.Tensor((M, K), "float16")):
            with T.Kernel(T.ceildiv(M, 64)) as bx:
                T.alloc_fragment((bx * 2,), "float16")
    with pytest.raises(TypeError, match=at(r"in kernel 'k3': T.alloc_local: dimension 0 of the shape is 2.5, "
                                           r"not an integer")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float16")):
            with T.Kernel(1):
                T.alloc_local((2.5,), "float16")
    with pytest.raises(ValueError, match=at(r"T.Tensor: dimension 1 of the shape is 0")):
        T.Tensor((M, 0), "float16")


def test_a_kernel_dim_used_in_no_parameter():
    SEQ = T.symbolic("SEQ")
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.Kernel: symbolic dimension 'SEQ' is in no "
                                            r"parameter's shape")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float16")):
            with T.Kernel(SEQ):
                pass


def test_python_control_flow_on_kernel_values():
    # `if`, and/or/not and conditional expressions on kernel values are rewritten into the
    # IR's branches (test_python_control.py); a `while` on one is not.
    with pytest.raises(TypeError, match=at(r"in kernel 'k': a tile expression used as a Python "
                                           r"bool: .*with T.If\(cond\):")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(T.ceildiv(M, 64)) as bx:
                a = T.alloc_fragment((64,), "float32")
                for i in T.Parallel(64):
                    while bx * 64 + i < M:
                        a[i] = 1.0


def test_leaving_a_loop_early():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.Parallel: the loop body was left "
                                            r"early \(break or return\)")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                a = T.alloc_fragment((64,), "float32")
                for i in T.Parallel(64):
                    a[i] = 1.0
                    break


def test_type_mismatches():
    # Mixed types meet at one by TileLang's rules (test_promotion.py); what TileLang refuses
    # stays refused: two float8 formats, `/` on integers, an integer to a float intrinsic.
    with pytest.raises(TypeError, match=at(r"in kernel 'k': '\*': operands of f8e4m3 and "
                                           r"f8e5m2: TileLang \(TVM\) does not mix two float8 "
                                           r"formats either; convert both with "
                                           r"T.cast\(x, 'float16'\) or 'float32'")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float8_e4m3"), B: T.Tensor((M,), "float8_e5m2")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    A[i] = A[i] * B[i]
    with pytest.raises(TypeError, match=at(r"in kernel 'k2': T.if_then_else: operands of f8e5m2 "
                                           r"and f8e4m3")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float8_e4m3"), B: T.Tensor((M,), "float8_e5m2")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    A[i] = T.if_then_else(i < 3, B[i], A[i])
    with pytest.raises(TypeError, match=at(r"in kernel 'k3': T.exp2: takes floating-point arguments, not i32")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "int32")):
            with T.Kernel(1):
                A[0] = T.exp2(A[1])
    with pytest.raises(TypeError, match=at(r"in kernel 'k4': '/': on i32: use // for floor division")):
        @T.prim_func
        def k4(A: T.Tensor((M,), "int32")):
            with T.Kernel(1):
                A[0] = A[1] / 2


def test_indexing_errors():
    with pytest.raises(IndexError, match=at(r"in kernel 'k': A\[...\]: 'A' has 2 dimensions "
                                            r"\(\[\?, \?\]\), indexed with 1")):
        @T.prim_func
        def k(A: T.Tensor((M, K), "float32")):
            with T.Kernel(1):
                A[0] = 1.0
    with pytest.raises(TypeError, match=at(r"in kernel 'k2': a store to A: A\[...\] is a region \(it has "
                                           r"slices\), not an element")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                A[0:4] = 1.0
    with pytest.raises(ValueError, match=at(r"in kernel 'k3': T.copy: both operands are single points")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                T.copy(A[0], B[0])


def test_bad_parameters():
    with pytest.raises(TypeError, match=r"parameter 'A': annotate it T.Tensor\(shape, dtype\)"):
        @T.prim_func
        def k(A):
            pass
    with pytest.raises(ValueError, match=r"in kernel 'k2': parameter 'M': the name 'M' is "
                                         r"already taken"):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32"), M: T.int32):
            pass
    with pytest.raises(ValueError, match=r"kernel 'k3' has no `with T.Kernel\(...\)` block"):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float32")):
            pass


def test_what_the_ir_lacks_is_not_implemented():
    with pytest.raises(NotImplementedError, match=at(r"T.call_extern: the IR calls only the "
                                                     r"intrinsics registered")):
        T.call_extern("float32", "my_function")
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k': T.serial: a step that is "
                                                     r"an expression: the IR's For has no step")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                for s in T.serial(0, 8, M):
                    pass
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k2': T.Pipelined: sync and group")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                for s in T.Pipelined(4, num_stages=2, sync=[[0, 1]]):
                    pass
    with pytest.raises(NotImplementedError, match=at(r"in kernel 'k3': T.gemm: k_pack and wg_wait")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                a = T.alloc_shared((64, 32), "float16")
                b = T.alloc_shared((32, 64), "float16")
                c = T.alloc_fragment((64, 64), "float32")
                T.gemm(a, b, c, k_pack=2)


def test_what_only_the_verifier_sees_names_the_python_line():
    with pytest.raises(tile.InvalidArgumentError,
                       match=rf"in kernel 'k' at {HERE}:\d+:\d+: buffer 'a' is used outside "
                             r"the block or loop that declares it"):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    a = T.alloc_fragment((64,), "float32")
                a[0] = 1.0


def test_launch_errors():
    with pytest.raises(ValueError, match=at(r"in kernel 'k': T.Kernel: threads must be 1 to 3 "
                                            r"positive Python ints, not 0")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(1, threads=0):
                pass
    # Several T.Kernel blocks follow one another (test_jit.py); they do not nest.
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.Kernel: T.Kernel blocks do not "
                                            r"nest")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                with T.Kernel(1):
                    pass
    with pytest.raises(TypeError, match=at(r"in kernel 'k3': T.Kernel: grid axis 0 is f32, not "
                                           r"an integer")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float32")):
            with T.Kernel(2.5):
                pass


def test_tile_operation_operands():
    with pytest.raises(TypeError, match=at(r"in kernel 'k': T.fill: expected a buffer or a "
                                           r"region of one .*, got list")):
        @T.prim_func
        def k(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                T.fill([0.0] * 4, 1.0)
    with pytest.raises(ValueError, match=at(r"in kernel 'k2': T.reduce_max: dim 2 is not a "
                                            r"dimension of the rank-2 source S")):
        @T.prim_func
        def k2(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                S = T.alloc_fragment((16, 16), "float32")
                m = T.alloc_fragment((16,), "float32")
                T.reduce_max(S, m, dim=2)
    with pytest.raises(OverflowError, match=at(r"in kernel 'k3': T.fill: the constant 256 does "
                                               r"not fit in u8 \(0 to 255\)")):
        @T.prim_func
        def k3(A: T.Tensor((M,), "float32")):
            with T.Kernel(1):
                S = T.alloc_fragment((16,), "uint8")
                T.fill(S, 256)


def test_unknown_names_are_not_implemented_at_the_users_line():
    with pytest.raises(NotImplementedError,
                       match=r"test_errors.py:\d+: T.no_such_construct: tile.language has no "
                             r"such name"):
        T.no_such_construct(1)
    # Also an AttributeError: hasattr and getattr with a default keep working.
    assert not hasattr(T, "no_such_construct")
    assert getattr(T, "no_such_construct", 7) == 7
    with pytest.raises(AttributeError, match="__no_such_dunder__"):
        T.__no_such_dunder__


def test_tilelang_dtype_spellings():
    assert T.float == T.float32 and T.half == T.float16 and T.double == T.float64
    assert T.float8_e4m3fn == T.float8_e4m3
    assert T.uint16 == "u16" and T.uint32 == "u32" and T.uint64 == "u64"  # IR version 7


def test_tilelang_keywords_accepted_where_they_mean_what_the_ir_does():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((64,), "float32", scope="shared.dyn")
            f = T.alloc_fragment((64,), "float32", scope="local.fragment")
            T.copy(A, s, disable_tma=True)
            T.copy(s, f)
            for i in T.Parallel(64):
                f[i] = T.clamp(f[i], -1.0, 1.0)
            for j in T.Serial(1):
                T.atomic_add(B, f, memory_order="relaxed")

    text = k.module.ir() if hasattr(k.module, "ir") else str(k.proto)
    assert "atomic_add" in text
    with pytest.raises(NotImplementedError, match=r"memory_order='seq_cst': the IR's atomic "
                                                   r"adds are relaxed"):
        @T.prim_func
        def k2(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                T.atomic_add(B[0], A[0], memory_order="seq_cst")
    with pytest.raises(NotImplementedError, match=r"scope='global': this call makes "
                                                   r"'shared.dyn' buffers"):
        @T.prim_func
        def k3(A: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                T.alloc_shared((64,), "float32", scope="global")
    with pytest.raises(NotImplementedError, match=r"eviction_policy: the IR has no cache hints"):
        @T.prim_func
        def k4(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
            with T.Kernel(1):
                T.copy(A, B, eviction_policy="evict_first")


def test_clamp_and_serial_run():
    import numpy as np

    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                B[i] = T.clamp(A[i], -0.5, 0.5)

    a = np.linspace(-1, 1, 64).astype(np.float32)
    b = np.full(64, np.nan, np.float32)
    tile.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b, np.clip(a, -0.5, 0.5))

"""Kernels written in tile.language print as the same canonical text as the C++
DSL's: the operator suite's ops/<name>.tile (which //ops:op_suite_test keeps
equal to what ops/ops_gemm.cc and ops/ops_attention.cc build), byte for byte
after the producer line, which names who wrote the module."""

import os

import pytest

import tile
import flash_attention
import gemm
from conftest import ROOT

CASES = {
    "gemm_f16": lambda: gemm.matmul(name="gemm_f16"),
    "gemm_bf16": lambda: gemm.matmul(dtype="bfloat16", name="gemm_bf16"),
    "gemm_f32": lambda: gemm.matmul(64, 64, 32, "float32", num_stages=2, name="gemm_f32"),
    "flash_attn_d64": lambda: flash_attention.flashattn(name="flash_attn_d64"),
    "flash_attn_d64_causal": lambda: flash_attention.flashattn(causal=True,
                                                               name="flash_attn_d64_causal"),
    "flash_attn_d128_b128_causal": lambda: flash_attention.flashattn(
        dim=128, block_M=128, block_N=128, threads=256, causal=True,
        name="flash_attn_d128_b128_causal"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_prints_as_the_cpp_dsl_kernel(name):
    with open(os.path.join(ROOT, "ops", name + ".tile")) as f:
        cpp_header, cpp_kernel = f.read().split("\n", 2)[1:]
    text = CASES[name]().compile("cpu").ir()
    version, header, kernel = text.split("\n", 2)
    assert version == "ir_version 1;"
    assert header == 'producer "tile-python" "0.1.0";'
    assert cpp_header == 'producer "tile-cpp" "0.1.0";'
    assert kernel == cpp_kernel


def test_the_module_is_the_protobuf_message_handed_to_libtile():
    func = gemm.matmul(name="gemm_f16")
    assert func.proto.DESCRIPTOR.full_name == "tile_ir.v1.Module"
    assert func.proto.kernels[0].body.seq.stmts[0].WhichOneof("node") == "allocate"
    data = func.serialize()
    assert tile.load(data, name="gemm.tilepb", format="proto").kernels == ["gemm_f16"]


def test_statements_carry_the_python_line_that_wrote_them():
    func = gemm.matmul()
    stmts = func.proto.kernels[0].body.seq.stmts
    assert stmts[0].loc.file.endswith("examples/gemm.py")
    with open(stmts[0].loc.file) as f:
        line = f.read().split("\n")[stmts[0].loc.line - 1]
    assert "A_s = T.alloc_shared" in line

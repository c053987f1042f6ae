# Times hand-variant cubins of the unsplit d128 b128 flash attention (no tensor maps) against
# torch SDPA for correctness. Experiment only; not part of the product.
import ctypes, sys, torch, math
cu = ctypes.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0: raise RuntimeError(f"{what}: CUresult {r}")
B, H, S, D = 4, 32, 4096, 128
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float())
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    mod = ctypes.c_void_p(); fn = ctypes.c_void_p()
    ck(cu.cuModuleLoadData(ctypes.byref(mod), data), "load " + path)
    ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"flash_attn_d128_b128"), "getfn")
    split = "/split/" in path
    smem = 197632 if split else 163840 + 1024
    threads = 384 if split else 256
    ck(cu.cuFuncSetAttribute(fn, 8, smem), "smem attr")
    o = torch.full_like(q, float("nan"))
    ptrs = [ctypes.c_void_p(t.data_ptr()) for t in (q, k, v, o)]
    holders = [ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in ptrs]
    if split:
        U64 = ctypes.c_ulonglong
        for t in (k, v):
            m = (ctypes.c_ubyte * 128)()
            dims = (U64 * 4)(D, S, H, B); strides = (U64 * 3)(D * 2, D * 2 * S, D * 2 * S * H)
            box = (ctypes.c_uint * 4)(64, 128, 1, 1); es = (ctypes.c_uint * 4)(1, 1, 1, 1)
            ck(cu.cuTensorMapEncodeTiled(m, 6, 4, ctypes.c_void_p(t.data_ptr()), dims, strides, box, es, 0, 3, 3, 0), "encode")
            globals().setdefault("keep", []).append(m)
            holders.append(ctypes.cast(m, ctypes.c_void_p))
    args = (ctypes.c_void_p * len(holders))(*holders)
    def launch():
        ck(cu.cuLaunchKernel(fn, S // 128, H, B, threads, 1, 1, smem, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), args, None), "launch")
    launch(); torch.cuda.synchronize()
    err = (o.float() - ref).abs().max().item()
    for _ in range(5): launch()
    st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    st.record()
    for _ in range(30): launch()
    en.record(); torch.cuda.synchronize()
    ms = st.elapsed_time(en) / 30
    print(f"{path}: max abs err {err:.2e}, {ms:.3f} ms, {4*B*H*S*S*D/ms/1e9:.0f} TFLOP/s", flush=True)

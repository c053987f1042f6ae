#!/usr/bin/env python3
"""Writes a GPU run's figures.json (../shared/docs/FIGURES.md) from the files a
`scripts/gpu/gemm_gap.sh bench` call and a `scripts/gpu/tilelang_peer.sh` call bring back.

  python3 scripts/gpu/figures_json.py --bench-dir DIR [--tilelang-dir DIR2] \\
      --date 2026-12-06 --commit abc1234 --hardware "NVIDIA H200 ..." --command "..." \\
      --out bench/results/<run>/figures.json

DIR holds baselines.json (peer_baselines.py), gemm_gap_bench.log (tile-run --bench lines) and
gemm_do_bench.log (bench/python_call/gemm_do_bench.py); DIR2 holds tilelang_peer.json. For each
figure `ours` is the fastest variant tile-run timed (named in the note, with the others), and a
peer missing from the run is left out, never filled from another run. Standard library only."""

import argparse
import json
import os
import re
import sys

GEMMS = {  # figure name -> (operator, shapes, cuBLAS key, TileLang key)
    "gemm_bf16_4096": ("gemm_bf16_to_bf16", "M=4096,N=4096,K=4096", "cublas_bf16_4096_TFLOPs",
                       "tilelang_gemm_bf16_4096_TFLOPs"),
    "gemm_f16_4096": ("gemm_f16_to_f16", "M=4096,N=4096,K=4096", "cublas_fp16_4096_TFLOPs",
                      "tilelang_gemm_fp16_4096_TFLOPs"),
    "gemm_bf16_8192": ("gemm_bf16_to_bf16", "M=8192,N=8192,K=8192", "cublas_bf16_8192_TFLOPs",
                       "tilelang_gemm_bf16_8192_TFLOPs"),
    "gemm_f16_8192": ("gemm_f16_to_f16", "M=8192,N=8192,K=8192", "cublas_fp16_8192_TFLOPs",
                      "tilelang_gemm_fp16_8192_TFLOPs"),
}
ATTENTION = {  # figure name -> (operator, cuDNN key, SDPA flash key, TileLang key)
    "flash_attn_d128_full": ("flash_attn_d128_b128", "sdpa_cudnn_full_b4h32s4096d128_TFLOPs",
                             "sdpa_flash_full_b4h32s4096d128_TFLOPs",
                             "tilelang_fa_fwd_full_TFLOPs"),
    "flash_attn_d128_causal": ("flash_attn_d128_b128_causal",
                               "sdpa_cudnn_causal_b4h32s4096d128_TFLOPs",
                               "sdpa_flash_causal_b4h32s4096d128_TFLOPs",
                               "tilelang_fa_fwd_causal_TFLOPs"),
}


def read_json(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def tile_run_figures(path):
    """{(header words): TFLOP/s} from '== op shapes target config' headers and bench lines."""
    figures = {}
    header = None
    if not os.path.exists(path):
        return figures
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                header = line[3:].strip()
            elif header and line.strip().startswith("bench"):
                m = re.search(r"([0-9.e+]+) GFLOP/s", line)
                if m:
                    figures[header] = float(m.group(1)) / 1e3
    return figures


def do_bench_figures(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        for line in f:
            if line.startswith("gemm_do_bench "):
                return json.loads(line[len("gemm_do_bench "):])["figures"]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench-dir", required=True)
    parser.add_argument("--tilelang-dir")
    for key in ("date", "commit", "hardware", "command", "out"):
        parser.add_argument("--" + key, required=True)
    args = parser.parse_args()
    peers = read_json(os.path.join(args.bench_dir, "baselines.json"))
    tilelang = read_json(os.path.join(args.tilelang_dir, "tilelang_peer.json")) if args.tilelang_dir else {}
    ours = tile_run_figures(os.path.join(args.bench_dir, "gemm_gap_bench.log"))
    python = do_bench_figures(os.path.join(args.bench_dir, "gemm_do_bench.log"))
    if not ours:
        sys.exit(f"figures_json: no tile-run bench lines in {args.bench_dir}/gemm_gap_bench.log")

    figures = []
    for name, (op, shapes, cublas, tl_key) in GEMMS.items():
        variants = {h: v for h, v in ours.items()
                    if h.startswith(f"{op} {shapes} ") and not h.startswith("dynamic")}
        best = max(variants, key=variants.get) if variants else None
        entry = {"name": name, "unit": "TFLOP/s",
                 "ours": round(variants[best], 1) if best else None, "peers": {}}
        for key, peer in ((cublas, "cublas"), (cublas.replace("cublas", "triton"), "triton")):
            if key in peers:
                entry["peers"][peer] = round(peers[key], 1)
        if tl_key in tilelang:
            entry["peers"]["tilelang"] = round(tilelang[tl_key], 1)
        notes = [f"tile-run --static-shapes, best of: " + ", ".join(
            f"{h[len(op) + len(shapes) + 2:]} {v:.0f}" for h, v in sorted(variants.items()))
                 if variants else "ours not timed in this run"]
        dtype, size = ("bfloat16" if "bf16" in name else "float16"), int(name.split("_")[-1])
        same = [f for f in python if f["dtype"] == dtype and f["size"] == size]
        if same:
            notes.append("do_bench in one process: " + ", ".join(
                f"{f['name']} {f['tflops']:.0f}" for f in same))
        entry["note"] = "; ".join(notes)
        figures.append(entry)
    for name, (op, cudnn, flash, tl_key) in ATTENTION.items():
        variants = {h[len(op) + 1:]: v for h, v in ours.items() if h.startswith(f"{op} ")}
        # The default target's figure when the log has one: the other targets are variants
        # timed beside it ({overlap=off}, {pingpong=on}), not what a user gets.
        default = [h for h in variants if h.endswith(" cuda default")]
        best = default[0] if default else (max(variants, key=variants.get) if variants else None)
        entry = {"name": name, "unit": "TFLOP/s",
                 "ours": round(variants[best], 1) if best else None, "peers": {}}
        for key, peer in ((cudnn, "cudnn"), (flash, "sdpa_flash")):
            if key in peers:
                entry["peers"][peer] = round(peers[key], 1)
        if tl_key in tilelang:
            entry["peers"]["tilelang"] = round(tilelang[tl_key], 1)
        entry["note"] = ("b4 h32 s4096 d128 fwd, tile-run --static-shapes at the default config; "
                         + ("ours is the default target's; " if default else "best of: ")
                         + "timed: " + ", ".join(f"{h} {v:.0f}" for h, v in sorted(variants.items())))
        figures.append(entry)
    if "copy_bw_TBps" in peers:
        figures.append({"name": "copy", "unit": "GB/s", "ours": None,
                        "peers": {"device_copy": round(peers["copy_bw_TBps"] * 1e3, 1)}})
    result = {"date": args.date, "commit": args.commit, "hardware": args.hardware,
              "command": args.command, "figures": figures}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for entry in figures:
        ratios = ", ".join(f"{p} {entry['ours'] / v:.2f}x" for p, v in entry["peers"].items()
                           if entry["ours"] and v)
        print(f"{entry['name']:24s} ours {entry['ours']}  {ratios}")


if __name__ == "__main__":
    main()

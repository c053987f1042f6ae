"""Runs python/examples/tilelang/ on the GPU: every example at its default and ragged shapes
with torch tensors on CUDA (target "auto" follows them), each output checked against float64
as in CI. Records pass/fail and the largest error per case.

    python3 tilelang_examples_on_gpu.py EXAMPLES_DIR OUT.json"""

import importlib
import importlib.util
import json
import os
import sys
import time
import traceback


def main(folder, out_path):
    sys.path.insert(0, folder)
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))
    results = []
    for name in names:
        try:
            spec = importlib.util.spec_from_file_location(f"tilelang_examples.{name}",
                                                          os.path.join(folder, name + ".py"))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except Exception as error:  # pylint: disable=broad-except
            results.append({"example": name, "shape": "-", "status": "fail",
                            "error": f"import: {error}"})
            continue
        for shape, sizes in module.SHAPES.items():
            began = time.time()
            try:
                error = module.run(framework="torch", **sizes)
                record = {"status": "pass", "max_error": error}
            except Exception as failure:  # pylint: disable=broad-except
                record = {"status": "fail", "error": f"{type(failure).__name__}: {failure}"[:600],
                          "trace": traceback.format_exc()[-1200:]}
            record.update(example=name, shape=shape, seconds=round(time.time() - began, 2))
            results.append(record)
            print(f"{record['status']:5s} {name:28s} {shape:8s} "
                  f"{record.get('max_error', record.get('error', ''))}", flush=True)
    passed = sum(r["status"] == "pass" for r in results)
    print(f"{passed} of {len(results)} example cases pass on the GPU")
    with open(out_path, "w") as handle:
        json.dump({"passed": passed, "total": len(results), "results": results}, handle,
                  indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

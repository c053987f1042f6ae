# Writes the .npy fixtures of //tools/npy:npy_test with NumPy and ml_dtypes
# (not needed by the build: the files are checked in; run it by hand with
# numpy>=2 and ml_dtypes>=0.5 to see what current NumPy writes).
import numpy as np
import ml_dtypes
from numpy.lib import format as npy_format

np.save("f32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
np.save("i8_4.npy", np.array([-128, -1, 0, 127], dtype=np.int8))
np.save("f64_scalar.npy", np.array(3.25))
np.save("f16_fortran.npy", np.asfortranarray(np.ones((2, 2), dtype=np.float16)))
# ml_dtypes' types are user dtypes: np.save writes '<V2' for bfloat16, '<V1'
# for float8_e4m3fn and '<f1' for float8_e5m2 (which np.load cannot read back).
np.save("bf16_3.npy", np.array([1.0, -2.0, 0.5], dtype=ml_dtypes.bfloat16))
np.save("f8e4m3_3.npy", np.array([1.0, -2.0, 448.0], dtype=ml_dtypes.float8_e4m3fn))
np.save("f8e5m2_3.npy", np.array([1.0, -2.0, 0.5], dtype=ml_dtypes.float8_e5m2))
with open("f32_v2.npy", "wb") as f:
    npy_format.write_array(f, np.arange(4, dtype=np.float32), version=(2, 0))

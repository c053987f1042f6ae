"""TileLang's tilelang.contrib.nvcc: the compute capability of CUDA device 0, asked of the CUDA
driver. (tile compiles CUDA with NVRTC at run time; there is no nvcc step to configure.)"""

from tile import _targets


def get_target_compute_version(target=None):
    """"MAJOR.MINOR" of CUDA device 0 ("9.0" on Hopper), as TileLang's."""
    del target
    found = _targets.cuda_attributes(75, 76)  # COMPUTE_CAPABILITY_MAJOR, _MINOR
    if found is None:
        raise RuntimeError("tilelang.contrib.nvcc.get_target_compute_version: no CUDA device "
                           "answers (no libcuda.so.1, or no device)")
    return f"{found[0]}.{found[1]}"


def parse_compute_version(compute_version):
    """(major, minor) of "MAJOR.MINOR"."""
    major, _, minor = str(compute_version).partition(".")
    return int(major), int(minor or 0)

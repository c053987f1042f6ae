"""TileLang's carver architectures (CUDA, CDNA): the facts of the device a program sizes its
kernels by. The numbers come from the driver; nothing here is a table of guesses."""

from tile import _targets
from tile.carver.arch import driver


class CUDA:
    """CUDA device 0, as TileLang's carver.arch.CUDA: `sm_version`, `compute_max_core` (the SM
    count), `smem_cap` (bytes a block may use), `l2_cache_size_bytes`, `reg_cap`."""

    platform = "CUDA"

    def __init__(self, target="cuda"):
        self.target = str(target)
        arch = _targets.cuda_arch()
        if arch is None:
            raise RuntimeError("carver.arch.CUDA: no CUDA device answers (no libcuda.so.1, or "
                               "no device)")
        self.arch = arch
        self.sm_version = int(arch[3:].rstrip("a"))
        self.compute_max_core = driver.get_num_sms()
        self.smem_cap = driver.get_max_dynamic_shared_size_bytes()
        self.l2_cache_size_bytes = driver.get_l2_cache_size()
        self.reg_cap = driver.get_registers_per_block()
        self.warp_size = 32

    def __repr__(self):
        return f"CUDA({self.arch}, {self.compute_max_core} SMs)"


class CDNA:
    """TileLang's AMD architecture: not described here (tile's HIP target compiles, but no
    device facts are queried from Python yet)."""

    platform = "CDNA"

    def __init__(self, target="hip"):
        raise NotImplementedError(f"carver.arch.CDNA({target!r}): tile does not query AMD "
                                  "devices from Python; size kernels explicitly")


def auto_infer_current_arch():
    """The architecture of the device present: CUDA device 0."""
    return CUDA("cuda")

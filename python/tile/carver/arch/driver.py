"""TileLang's tilelang.carver.arch.driver: facts of CUDA device 0, asked of the CUDA driver
(no framework is imported)."""

from tile import _targets

# CUdevice_attribute numbers (cuda.h).
_MULTIPROCESSOR_COUNT = 16
_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
_MAX_REGISTERS_PER_BLOCK = 12
_L2_CACHE_SIZE = 38


def _attribute(attribute, what):
    found = _targets.cuda_attributes(attribute)
    if found is None:
        raise RuntimeError(f"tilelang.carver.arch.driver.{what}: no CUDA device answers (no "
                           "libcuda.so.1, or no device); this asks device 0 of the CUDA driver")
    return found[0]


def get_num_sms(device_id=0):
    """The number of streaming multiprocessors of device 0."""
    _only_device_zero(device_id)
    return _attribute(_MULTIPROCESSOR_COUNT, "get_num_sms")


def get_max_dynamic_shared_size_bytes(device_id=0):
    """The shared memory a block may opt in to, in bytes."""
    _only_device_zero(device_id)
    return _attribute(_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "get_max_dynamic_shared_size_bytes")


def get_registers_per_block(device_id=0):
    _only_device_zero(device_id)
    return _attribute(_MAX_REGISTERS_PER_BLOCK, "get_registers_per_block")


def get_l2_cache_size(device_id=0):
    _only_device_zero(device_id)
    return _attribute(_L2_CACHE_SIZE, "get_l2_cache_size")


def _only_device_zero(device_id):
    if device_id != 0:
        raise NotImplementedError(f"device_id={device_id}: tile runs on CUDA device 0")

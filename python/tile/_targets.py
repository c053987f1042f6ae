"""Which target a call compiles for: TileLang's target names ("auto", "cuda", "llvm"), the
device a call's tensors live on, and TileLang's pass_configs as target options."""

import ctypes
import functools
import os

# DLPack's device types (dlpack.h, DLDeviceType).
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_ROCM, _DLPACK_METAL = 1, 2, 3, 10, 8
_DEVICE_TARGETS = {_DLPACK_CPU: "cpu", _DLPACK_CUDA_HOST: "cpu", _DLPACK_CUDA: "cuda",
                   _DLPACK_ROCM: "hip", _DLPACK_METAL: "metal"}

# TileLang's names of targets, by what they mean here.
_TARGET_ALIASES = {"llvm": "cpu", "c": "cpu", "cpu": "cpu", "cuda": "cuda", "nvidia": "cuda",
                   "hip": "hip", "rocm": "hip", "metal": "metal"}


@functools.lru_cache(maxsize=None)
def cuda_attributes(*attributes):
    """The values of CUDA device 0's attributes (CUdevice_attribute numbers), or None without a
    usable driver or device. Asks the driver through ctypes: no framework is imported."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0 or (
            count.value < 1):
        return None
    values = []
    for attribute in attributes:
        value = ctypes.c_int(0)
        if driver.cuDeviceGetAttribute(ctypes.byref(value), attribute, 0) != 0:
            return None
        values.append(value.value)
    return values


def cuda_arch():
    """The compute capability of CUDA device 0 as 'sm_XY' ('sm_90a' on Hopper, whose
    architecture-specific instructions this project uses), or None without a usable driver or
    device."""
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76.
    found = cuda_attributes(75, 76)
    if found is None:
        return None
    arch = f"sm_{found[0]}{found[1]}"
    return "sm_90a" if arch == "sm_90" else arch


def default_target():
    """The target of "auto" when no tensor says: $TILE_TARGET, else CUDA where a CUDA device
    is usable, else the CPU."""
    chosen = os.environ.get("TILE_TARGET")
    if chosen:
        return chosen
    return "cuda" if cuda_arch() else "cpu"


def tensor_target(value):
    """The target family of the device a DLPack tensor lives on, or None for a non-tensor."""
    device = getattr(value, "__dlpack_device__", None)
    if device is None:
        return None
    device_type = int(device()[0])
    found = _DEVICE_TARGETS.get(device_type)
    if found is None:
        raise ValueError(f"a tensor lives on DLPack device type {device_type}, which no target "
                         "of tile runs on (cpu, cuda, hip, metal)")
    return found


def resolve(target, tensors=()):
    """The target name libtile compiles for: "auto" (or None) follows the first tensor's
    device, else default_target(); TileLang's spellings map to this project's; "cuda" names
    the device's architecture so that architecture-only options apply."""
    if target is None or target == "auto":
        found = next((t for t in map(tensor_target, tensors) if t is not None), None)
        target = found or default_target()
    if not isinstance(target, str):
        target = str(target)  # a TVM Target object prints its name
    family, _, rest = target.partition(":")
    head = family.split()[0] if family.split() else family
    base = _TARGET_ALIASES.get(head.lower())
    if base is None:
        return target  # libtile names what it does not know, with its targets
    if base == "cuda" and not rest and cuda_arch():
        return f"cuda:{cuda_arch()}"
    return base + (":" + rest if rest else "")


# TileLang's pass_configs keys (tilelang.PassConfigKey) that have a meaning here, as options of
# the target, and those accepted because they change no value here.
PASS_CONFIG_OPTIONS = {
    # Warp specialization and TMA are what sm_90a's warp-specialize pass does: its producer
    # loads with the TMA, and its consumers may store with it.
    "tl.disable_warp_specialized": {"warp_specialize": "off"},
    "tl.disable_tma_lower": {"warp_specialize": "off", "tma_store": "off"},
}
PASS_CONFIG_ACCEPTED = {
    "tl.enable_fast_math": "the CUDA and HIP targets compile without fast math; the fast "
                           "forms are explicit intrinsics (T.exp2_ftz), so True changes nothing",
    "tl.disable_fast_math": "fast math is never on here",
    "tl.disable_thread_storage_sync": "insert-barriers places every barrier a tile program "
                                      "needs; a program's own syncs are never needed",
    "tl.ptxas_register_usage_level": "a register-allocation hint to ptxas; ignored",
    "tl.disable_safe_memory_legalize": "out-of-bounds accesses are masked by lower-tile-ops",
    "tl.disable_dynamic_tail_split": "tails are masked, never split",
    "tl.dynamic_alignment": "divisibility is classified at each call "
                            "(runtime/jit/specialization_plan.h)",
    "tl.disable_out_of_bound_warning": "no such warning is printed",
}


def options_of(pass_configs, target):
    """The target options `pass_configs` sets on `target` (a resolved name): a dict, or a
    NotImplementedError naming a key with no meaning here."""
    options = {}
    for key, value in (pass_configs or {}).items():
        name = getattr(key, "value", key)  # a PassConfigKey member
        if name in PASS_CONFIG_ACCEPTED:
            continue
        if name not in PASS_CONFIG_OPTIONS:
            known = sorted(PASS_CONFIG_OPTIONS) + sorted(PASS_CONFIG_ACCEPTED)
            raise NotImplementedError(
                f"pass_configs: '{name}' has no meaning in tile (the keys it takes: "
                f"{', '.join(known)}); leave it out")
        if value and target.startswith("cuda:sm_90a"):
            options.update(PASS_CONFIG_OPTIONS[name])  # warp specialization is sm_90a's only
    return options


def with_options(target, options):
    """`target` with `options` added to those it names: "cuda:sm_90a{warp_specialize=off}"."""
    if not options:
        return target
    base, brace, existing = target.partition("{")
    merged = {}
    for item in existing.rstrip("}").split(",") if brace else []:
        key, _, value = item.partition("=")
        merged[key.strip()] = value.strip()
    merged.update(options)
    return base + "{" + ",".join(f"{k}={v}" for k, v in merged.items()) + "}"

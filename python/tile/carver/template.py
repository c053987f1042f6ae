"""TileLang's carver templates (MatmulTemplate): the roller that recommends tile configs is not
here. A template records its problem so that the error names it."""


class MatmulTemplate:
    """TileLang's roller template of a GEMM. `with_arch` records the device;
    `recommend_hints` and `equivalent_function` raise NotImplementedError: tile has no roller
    (use tile.autotune / AutoTuner over explicit configs, or `tile-run --autotune`, whose
    config space is the GEMM operator's)."""

    def __init__(self, M=None, N=None, K=None, in_dtype="float16", out_dtype="float16",
                 accum_dtype="float16", with_bias=False):
        self.problem = dict(M=M, N=N, K=K, in_dtype=in_dtype, out_dtype=out_dtype,
                            accum_dtype=accum_dtype, with_bias=with_bias)
        self.arch = None

    def with_arch(self, arch):
        self.arch = arch
        return self

    def _refuse(self, what):
        raise NotImplementedError(
            f"carver.MatmulTemplate.{what} ({self.problem}): tile has no roller; give "
            "tile.autotune / AutoTuner explicit configs (TileLang's examples do when "
            "with_roller is False)")

    def equivalent_function(self):
        self._refuse("equivalent_function")

    def recommend_hints(self, topk=10):
        del topk
        self._refuse("recommend_hints")


__all__ = ["MatmulTemplate"]

// The float64 references of issue 42's attention operators, against formulations of their own:
// the backward against central differences of the forward, the log-sum-exp summed directly, GQA,
// paged decoding and varlen against plain attention on the rows they name, the combine on cases
// worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ops/attention_reference.h"
#include "ops/op_suite.h"
#include "ops/op_tensors.h"

namespace tile_ir::ops {
namespace {

using Adjust = std::function<void(RefTensors&)>;

// The op's reference on seeded inputs at `dims`, after `adjust` has replaced some of them.
RefTensors RunReference(const std::string& name, const Shapes& dims, const Adjust& adjust = {}) {
  const OpCase* op = FindOp(name);
  EXPECT_NE(op, nullptr) << name;
  absl::StatusOr<std::vector<Kernel>> kernels = OpKernels(*op);
  EXPECT_TRUE(kernels.ok()) << kernels.status();
  std::vector<const KernelNode*> stages;
  for (const Kernel& kernel : *kernels) stages.push_back(kernel.get());
  absl::StatusOr<RefTensors> t =
      MakeRefTensors(*op, *StageParams(stages), dims, 3, InputCase::kOpRanges);
  EXPECT_TRUE(t.ok()) << t.status();
  if (adjust) adjust(*t);
  op->reference(*t, dims, op->scalars);
  return *t;
}

void ExpectNear(const double* got, const double* want, int64_t n, double tol) {
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// sum(dO * attention(q, k, v)), whose gradient the backward gives.
double Loss(const HeadRows& h, const std::vector<double>& d_o) {
  std::vector<double> o(h.queries * h.dim);
  AttentionForwardHead(h, o.data(), nullptr);
  return std::inner_product(o.begin(), o.end(), d_o.begin(), 0.0);
}

TEST(ReferenceAttentionTest, BackwardIsTheForwardsGradient) {
  for (const char* name : {"flash_attn_bwd_d64", "flash_attn_bwd_d64_causal", "flash_attn_bwd_d128",
                           "flash_attn_bwd_d128_causal"}) {
    SCOPED_TRACE(name);
    const int64_t seq = 4;
    RefTensors t = RunReference(name, {{"BATCH", 1}, {"HEADS", 1}, {"SEQ", seq}});
    const int dim = static_cast<int>(t.at("Q").shape.back());
    const bool causal = std::string(name).ends_with("_causal");
    std::vector<double> q = t.at("Q").data, k = t.at("K").data, v = t.at("V").data;
    const std::vector<double>& d_o = t.at("dO").data;
    // Central differences on a spread of elements of each input.
    for (auto [input, grad] : {std::pair{&q, "dQ"}, std::pair{&k, "dK"}, std::pair{&v, "dV"}}) {
      for (int64_t at = 0; at < seq * dim; at += 37) {
        const double saved = (*input)[at], step = 1e-5;
        (*input)[at] = saved + step;
        const double up = Loss({q.data(), k.data(), v.data(), seq, seq, dim, causal}, d_o);
        (*input)[at] = saved - step;
        const double down = Loss({q.data(), k.data(), v.data(), seq, seq, dim, causal}, d_o);
        (*input)[at] = saved;
        EXPECT_NEAR(t.at(grad).data[at], (up - down) / (2 * step), 1e-7) << grad << " " << at;
      }
    }
  }
}

TEST(ReferenceAttentionTest, LseIsTheLogOfTheSummedExponentials) {
  for (const char* name : {"flash_attn_d64_lse", "flash_attn_d64_causal_lse", "flash_attn_d128_lse",
                           "flash_attn_d128_causal_lse"}) {
    SCOPED_TRACE(name);
    const int64_t seq = 5;
    RefTensors t = RunReference(name, {{"BATCH", 1}, {"HEADS", 1}, {"SEQ", seq}});
    const int dim = static_cast<int>(t.at("Q").shape.back());
    const bool causal = std::string(name).find("causal") != std::string::npos;
    for (int64_t i = 0; i < seq; ++i) {
      double sum = 0;
      for (int64_t j = 0; j <= (causal ? i : seq - 1); ++j) {
        double dot = 0;
        for (int d = 0; d < dim; ++d)
          dot += t.at("Q").data[i * dim + d] * t.at("K").data[j * dim + d];
        sum += std::exp(dot / std::sqrt(dim));
      }
      EXPECT_NEAR(t.at("LSE").data[i], std::log(sum), 1e-12) << i;
    }
    // The first causal query sees the first key alone: its output is that key's value.
    if (causal) ExpectNear(&t.at("O").data[0], &t.at("V").data[0], dim, 1e-12);
  }
}

TEST(ReferenceAttentionTest, PreprocessAndPostprocessOnKnownRows) {
  RefTensors pre = RunReference("flash_attn_bwd_pre_d64", {{"BATCH", 1}, {"HEADS", 1}, {"SEQ", 2}},
                                [](RefTensors& t) {
                                  std::fill(t.at("O").data.begin(), t.at("O").data.end(), 0.5);
                                  std::fill(t.at("dO").data.begin(), t.at("dO").data.end(), -2.0);
                                });
  EXPECT_EQ(pre.at("Delta").data, (std::vector<double>{-64.0, -64.0}));
  for (double x : pre.at("dQ_acc").data) EXPECT_EQ(x, 0.0);
  RefTensors post =
      RunReference("flash_attn_bwd_post_d128", {{"BATCH", 1}, {"HEADS", 1}, {"SEQ", 3}});
  EXPECT_EQ(post.at("dQ").data, post.at("dQ_acc").data);
}

TEST(ReferenceAttentionTest, GqaHeadsReadTheirGroupsKvHead) {
  const int64_t seq = 3, dim = 128;
  RefTensors t =
      RunReference("gqa_fwd_d128", {{"BATCH", 1}, {"HEADS", 4}, {"KV_HEADS", 2}, {"SEQ", seq}});
  for (int64_t h = 0; h < 4; ++h) {
    const int64_t q_at = h * seq * dim, kv_at = (h / 2) * seq * dim;
    std::vector<double> want(seq * dim);
    AttentionForwardHead({&t.at("Q").data[q_at], &t.at("K").data[kv_at], &t.at("V").data[kv_at],
                          seq, seq, dim, false},
                         want.data(), nullptr);
    ExpectNear(&t.at("O").data[q_at], want.data(), seq * dim, 1e-12);
  }
}

TEST(ReferenceAttentionTest, PagedDecodeReadsTheBlockTablesPages) {
  // One K/V head, pages of 16 tokens in the order 2, 0, 1: 40 keys are page 2, page 0 and the
  // first half of page 1, gathered here by hand.
  const Shapes dims = {
      {"BATCH", 1}, {"HEADS", 2}, {"KV_HEADS", 1}, {"NUM_PAGES", 3}, {"MAX_PAGES", 3}};
  const int64_t page = 16 * 128;
  for (int64_t keys : {40, 1}) {
    RefTensors t = RunReference("decode_paged_d128", dims, [keys](RefTensors& t) {
      t.at("block_table").data = {2, 0, 1};
      t.at("seq_lens").data = {static_cast<double>(keys)};
    });
    std::vector<double> k, v;
    for (int64_t p : {2, 0, 1}) {
      k.insert(k.end(), &t.at("K_pages").data[p * page], &t.at("K_pages").data[(p + 1) * page]);
      v.insert(v.end(), &t.at("V_pages").data[p * page], &t.at("V_pages").data[(p + 1) * page]);
    }
    std::vector<double> want(128);
    for (int64_t h = 0; h < 2; ++h) {
      AttentionForwardHead({&t.at("Q").data[h * 128], k.data(), v.data(), 1, keys, 128, false},
                           want.data(), nullptr);
      ExpectNear(&t.at("O").data[h * 128], want.data(), 128, 1e-12);
    }
    // One key: the output is its value row, the first of page 2.
    if (keys == 1) ExpectNear(&t.at("O").data[0], &t.at("V_pages").data[2 * page], 128, 1e-12);
  }
}

TEST(ReferenceAttentionTest, CombineWeighsSplitsByTheirLse) {
  // Equal log-sum-exps average the partials; a much larger one takes over.
  for (double gap : {0.0, 100.0}) {
    RefTensors t =
        RunReference("decode_combine_d128", {{"BATCH", 1}, {"HEADS", 1}}, [gap](RefTensors& t) {
          t.at("LSE_partial").data = {gap, 0, 0, 0};
        });
    for (int d = 0; d < 128; ++d) {
      double mean = 0;
      for (int s = 0; s < 4; ++s) mean += t.at("O_partial").data[s * 128 + d] / 4;
      const double want = gap == 0 ? mean : t.at("O_partial").data[d];
      EXPECT_NEAR(t.at("O").data[d], want, 1e-12) << d;
    }
  }
}

TEST(ReferenceAttentionTest, VarlenIsEachSequenceAlone) {
  for (bool causal : {false, true}) {
    const std::string name = causal ? "flash_attn_varlen_d128_causal" : "flash_attn_varlen_d128";
    RefTensors t =
        RunReference(name, {{"TOTAL", 6}, {"HEADS", 1}, {"OFFSETS", 3}}, [](RefTensors& t) {
          t.at("cu_seqlens").data = {0, 1, 6};
        });
    // Sequence 0 is one token: its output is its own value row.
    ExpectNear(&t.at("O").data[0], &t.at("V").data[0], 128, 1e-12);
    std::vector<double> want(5 * 128);
    AttentionForwardHead(
        {&t.at("Q").data[128], &t.at("K").data[128], &t.at("V").data[128], 5, 5, 128, causal},
        want.data(), nullptr);
    ExpectNear(&t.at("O").data[128], want.data(), 5 * 128, 1e-12);
  }
}

}  // namespace
}  // namespace tile_ir::ops

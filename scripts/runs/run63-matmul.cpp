// Run 63's kernel file (scripts/runs/gpu-run63.sh): 05_matmul's f16 kernel without activation at
// 128 x 256 x 32 on 16 warps, as written in examples/05_matmul.cpp; with -DNOMASK the loads of A
// and B go unmasked. tessera compile scripts/runs/run63-matmul.cpp [-DNOMASK] -o DIR/matmul_f16_none_fast_128x256x32w16.tspkg
// --target=spirv --subgroup-size=32 --coopmat=all
#include "tessera/aot.hpp"
namespace tl = tessera::tl;
using tessera::DType;
constexpr int BM = 128, BN = 256, BK = 32, GROUP_M = 8;
void matmul(tl::Ptr<tessera::f16> a, tl::Ptr<tessera::f16> b, tl::Ptr<float> bias, tl::Ptr<tessera::f16> c, tl::Scalar<int32_t> M,
            tl::Scalar<int32_t> N, tl::Scalar<int32_t> K) {
    tl::Tile pid = tl::program_id(0);
    tl::Tile blocksM = (M + (BM - 1)) / BM, blocksN = (N + (BN - 1)) / BN;
    tl::Tile perGroup = blocksN * GROUP_M, firstM = pid / perGroup * GROUP_M;
    tl::Tile groupRows = tl::minimum(blocksM - firstM, GROUP_M);
    tl::Tile pm = firstM + pid % perGroup % groupRows, pn = pid % perGroup / groupRows;
    tl::Tile rows = tl::expand_dims(pm * BM + tl::arange(0, BM), 1);
    tl::Tile cols = tl::expand_dims(pn * BN + tl::arange(0, BN), 0);
    tl::Tile acc = tl::for_range(0, K, BK, tl::zeros({BM, BN}, DType::F32), [&](const tl::Tile &k, const tl::Tile &acc) {
      tl::Tile ka = tl::expand_dims(k + tl::arange(0, BK), 0), kb = tl::expand_dims(k + tl::arange(0, BK), 1);
#ifndef NOMASK
      tl::Tile x = tl::load(a + rows * K + ka, (rows < M) & (ka < K), 0);
      tl::Tile y = tl::load(b + kb * N + cols, (kb < K) & (cols < N), 0);
#else // valid only where BM, BN and BK divide M, N and K
      tl::Tile x = tl::load(a + rows * K + ka);
      tl::Tile y = tl::load(b + kb * N + cols);
#endif
      return tl::dot(x, y, acc);
    });
    tl::Tile v = acc + tl::load(bias + cols, cols < N, 0);
    tl::store(c + rows * N + cols, tl::cast(v, DType::F16), (rows < M) & (cols < N));
}
TESSERA_EXPORT_KERNEL(matmul, {.numWarps = 16, .argNames = {"a", "b", "bias", "c", "M", "N", "K"}});

#!/bin/bash
# Builds one binary per variant (here, with nvcc for sm_90a).
set -e
cd "$(dirname "$0")"
INC=/tmp/w/inc
mkdir -p bin
build() { name=$1; shift; mkdir -p vh; echo "#define VARIANT $1" > vh/$name.h; shift; nvcc -include vh/$name.h -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -diag-suppress 550 -I$INC "$@" -o bin/$name hand_gemm.cu -Xptxas -v 2>&1 | grep -E "registers|spill|serializ|warn|error" | sed "s/^/$name: /" | grep -v "0 bytes spill" ; }
V=(
 "h128x256s3w2sync_b0:Hand<128,256,3,2,false,0>(c)"
 "h128x256s3w2sync_b1:Hand<128,256,3,2,false,1>(c)"
 "h128x256s3w2async_b0:Hand<128,256,3,2,true,0>(c)"
 "h128x256s4w2async_b0:Hand<128,256,4,2,true,0>(c)"
 "h128x128s4w1async_b0:Hand<128,128,4,1,true,0>(c)"
 "h128x128s3w1sync_b0:Hand<128,128,3,1,false,0>(c)"
 "h256x128s3w2async_b0:Hand<256,128,3,2,true,0>(c)"
 "h128x128s4w1sync_b0:Hand<128,128,4,1,false,0>(c)"
)
for v in "${V[@]}"; do build "${v%%:*}" "${v#*:}" & done
wait
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -diag-suppress 550 -I$INC -DGENERATED='"gen_wgmma.cu"' -DGEN_SMEM=50288 -DGEN_GX=32 -DGEN_GY=32 -DGEN_THREADS=128 -o bin/gen_wgmma hand_gemm.cu &
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -diag-suppress 550 -I$INC -DGENERATED='"gen_mma.cu"' -DGEN_SMEM=56816 -DGEN_GX=32 -DGEN_GY=32 -DGEN_THREADS=128 -o bin/gen_mma hand_gemm.cu &
wait

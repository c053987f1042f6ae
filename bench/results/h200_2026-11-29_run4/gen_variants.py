import sys
T='''ir_version 1;
producer "tile-cpp" "0.1.0";

kernel gemm_{dt}<M: i32, N: i32, K: i32>(A: {dt}[M, K], B: {dt}[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, {BN}), by: ceildiv(M, {BM})) threads({T}) swizzle(panel=8, order=row) {{
  alloc A_s: shared {dt}[{BM}, {BK}];
  alloc B_s: shared {dt}[{BK}, {BN}];
  alloc C_l: fragment f32[{BM}, {BN}];
  fill C_l = 0.0;
  for k in 0 +: ceildiv(K, {BK}) pipelined(num_stages={S}) {{
    copy A[by * {BM} +: {BM}, k * {BK} +: {BK}] -> A_s;
    copy B[k * {BK} +: {BK}, bx * {BN} +: {BN}] -> B_s;
    gemm A_s, B_s -> C_l {{transpose_a=false, transpose_b=false, policy=square, clear_accum=false}};
  }}
  copy C_l -> C[by * {BM} +: {BM}, bx * {BN} +: {BN}];
}}
'''
for spec in sys.argv[1:]:
    dt,BM,BN,BK,S,Tn=spec.split('_')
    open(f"gemm_{spec}.tile","w").write(T.format(dt=dt,BM=BM,BN=BN,BK=BK,S=S,T=Tn))

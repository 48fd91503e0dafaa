#!/usr/bin/env python3
"""Writes a SPIR-V-dialect module (MLIR text) for one workgroup-scope cooperative-matrix matmul:
C[M x N] = A[M x K] @ B[K x N], A and B f16 row-major, C f16 or f32 row-major, f32 accumulation.

A measuring instrument for VK_NV_cooperative_matrix2's workgroup-scope matrices (the driver
stages them through shared memory itself), not a Tessera lowering: each workgroup of WG
invocations owns one BM x BN block of C and walks K in steps of BK, loading its BM x BK slice of A
and BK x BN slice of B straight from the storage buffers with OpCooperativeMatrixLoadKHR. Sizes
are baked in (they must be multiples of the blocks). Serialize with
  mlir-translate --no-implicit-module --serialize-spirv OUT.mlir -o OUT.spv
and run with tessera-wgmatrix-probe (bench/WgMatrixProbe.cpp).

usage: gen_wg_matmul.py M N K BM BN BK WG {f16|f32} [--bf16] [--prefetch] [--push-sizes]
                        [--align] [--glsl450] > OUT.mlir
  --bf16        A and B hold bf16 bits (loaded as bf16 matrices, VK_KHR_shader_bfloat16)
  --prefetch    the slices for step k + 1 are loaded before step k's product (the last step loads
                step 0's again, unused)
  --push-sizes  N and K (the strides and the loop's bound) come from push constants (bytes 0 and
                4: tessera-wgmatrix-probe --push-sizes passes them) instead of being constants
  --align       ... and are rounded down to multiples of 8 (x & ~7), as Tessera's lowering does
  --glsl450     the GLSL450 memory model instead of Vulkan's (as Tessera's modules have)
  --bias        C = A @ B + bias (binding 3, N f32, in every row: loaded with stride 0)
  --guard       all of it under `row0 < M && col0 < N` (a structured selection)
  --grouped     programs on one row (grid M/BM * N/BN, 1, 1), numbered in groups of 8 block-rows
                as 05_matmul numbers them (tessera-wgmatrix-probe --grid1d)
"""
import io
import sys


LOOP_PLAIN = """    %acc = spirv.mlir.loop -> {tacc} {{
      spirv.Branch ^header(%c0, %acc0 : i32, {tacc})
    ^header(%k: i32, %c: {tacc}):
      %more = spirv.SLessThan %k, %cK : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
{loads_k}      %d = spirv.KHR.CooperativeMatrixMulAdd %a, %b, %c : {ta}, {tb} -> {tacc}
      %k1 = spirv.IAdd %k, %cBK : i32
      spirv.Branch ^header(%k1, %d : i32, {tacc})
    ^merge:
      spirv.mlir.merge %c : {tacc}
    }}
"""
LOOP_PRE = """{loads_0}    %acc = spirv.mlir.loop -> {tacc} {{
      spirv.Branch ^header(%c0, %acc0, %a0, %b0 : i32, {tacc}, {ta}, {tb})
    ^header(%k: i32, %c: {tacc}, %a: {ta}, %b: {tb}):
      %more = spirv.SLessThan %k, %cK : i32
      spirv.BranchConditional %more, ^body, ^merge
    ^body:
      %k1 = spirv.IAdd %k, %cBK : i32
      %inside = spirv.SLessThan %k1, %cK : i32
      %kn = spirv.Select %inside, %k1, %c0 : i1, i32
{loads_n}      %d = spirv.KHR.CooperativeMatrixMulAdd %a, %b, %c : {ta}, {tb} -> {tacc}
      spirv.Branch ^header(%k1, %d, %an, %bn : i32, {tacc}, {ta}, {tb})
    ^merge:
      spirv.mlir.merge %c : {tacc}
    }}
"""


def main():
    real, sys.stdout = sys.stdout, io.StringIO()
    emit()
    text, sys.stdout = sys.stdout.getvalue(), real
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    N, K = args[1], args[2]
    if "--push-sizes" in flags:
        pc = "!spirv.ptr<!spirv.struct<(i32 [0], i32 [4])>, PushConstant>"
        text = text.replace("  spirv.GlobalVariable @wgid", f"  spirv.GlobalVariable @sizes : {pc}\n  spirv.GlobalVariable @wgid", 1)
        text = text.replace("@main, @wgid,", "@main, @sizes, @wgid,")
        for name, index in (("cN", 0), ("cK", 1)):
            value = N if name == "cN" else K
            load = (f"    %p{name} = spirv.mlir.addressof @sizes : {pc}\n"
                    f"    %e{name} = spirv.AccessChain %p{name}[%c{index}i] : {pc}, i32 -> !spirv.ptr<i32, PushConstant>\n")
            if "--align" in flags:
                load += (f"    %l{name} = spirv.Load \"PushConstant\" %e{name} : i32\n"
                         f"    %{name} = spirv.BitwiseAnd %l{name}, %cm8 : i32\n")
            else:
                load += f"    %{name} = spirv.Load \"PushConstant\" %e{name} : i32\n"
            text = text.replace(f"    %{name} = spirv.Constant {value} : i32\n", load, 1)
        text = text.replace("    %c0 = spirv.Constant 0 : i32\n", "    %c0 = spirv.Constant 0 : i32\n"
                            "    %c0i = spirv.Constant 0 : i32\n    %c1i = spirv.Constant 1 : i32\n"
                            "    %cm8 = spirv.Constant -8 : i32\n", 1)
    if "--guard" in flags:  # the body under `row0 < M && col0 < N`, as Tessera's lowering has it
        head = "    %col0 = spirv.IMul %bx, %cBN : i32\n"
        text = text.replace(head, head + "    %inRows = spirv.SLessThan %row0, %cM : i32\n"
                            "    %inCols = spirv.SLessThan %col0, %cN : i32\n"
                            "    %inside = spirv.LogicalAnd %inRows, %inCols : i1\n"
                            "    spirv.mlir.selection {\n    spirv.BranchConditional %inside, ^then, ^done\n    ^then:\n", 1)
        text = text.replace("    spirv.Return\n", "    spirv.Branch ^done\n    ^done:\n    spirv.mlir.merge\n    }\n"
                            "    spirv.Return\n", 1)
    if "--grouped" in flags:  # one row of programs, numbered in groups of 8 block-rows (05_matmul's order)
        M, BM, BN = int(args[0]), int(args[3]), int(args[4])
        blocks_m, blocks_n = M // BM, int(N) // BN
        old = ("    %row0 = spirv.IMul %by, %cBM : i32\n"
               "    %col0 = spirv.IMul %bx, %cBN : i32\n")
        new = (f"    %gPer = spirv.Constant {blocks_n * 8} : i32\n"
               f"    %gBlocksM = spirv.Constant {blocks_m} : i32\n"
               "    %g8 = spirv.Constant 8 : i32\n"
               "    %gGroup = spirv.UDiv %bx, %gPer : i32\n"
               "    %gFirst = spirv.IMul %gGroup, %g8 : i32\n"
               "    %gLeft = spirv.ISub %gBlocksM, %gFirst : i32\n"
               "    %gRows = spirv.GL.UMin %gLeft, %g8 : i32\n"
               "    %gIn = spirv.UMod %bx, %gPer : i32\n"
               "    %gOff = spirv.UMod %gIn, %gRows : i32\n"
               "    %gPm = spirv.IAdd %gFirst, %gOff : i32\n"
               "    %gPn = spirv.UDiv %gIn, %gRows : i32\n"
               "    %row0 = spirv.IMul %gPm, %cBM : i32\n"
               "    %col0 = spirv.IMul %gPn, %cBN : i32\n")
        assert old in text
        text = text.replace(old, new, 1)
    if "--glsl450" in flags:
        text = text.replace("Logical Vulkan", "Logical GLSL450").replace(", VulkanMemoryModel", "").replace(
            ", SPV_KHR_vulkan_memory_model", "")
    print(text, end="")


def emit():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    known = ("--bf16", "--prefetch", "--push-sizes", "--align", "--glsl450", "--bias", "--guard", "--grouped")
    if len(args) != 8 or any(f not in known for f in flags):
        sys.exit(__doc__)
    M, N, K, BM, BN, BK, WG = (int(v) for v in args[:7])
    out = args[7]
    el = "bf16" if "--bf16" in flags else "f16"
    prefetch = "--prefetch" in flags
    if out not in ("f16", "f32"):
        sys.exit("the output type is f16 or f32")
    for size, block, what in ((M, BM, "M"), (N, BN, "N"), (K, BK, "K")):
        if size % block:
            sys.exit(f"{what} = {size} is not a multiple of its block {block}")
    buf = lambda t, w: f"!spirv.ptr<!spirv.struct<(!spirv.rtarray<{t}, stride={w}> [0])>, StorageBuffer>"
    ta, tb = f"!spirv.coopmatrix<{BM}x{BK}x{el}, Workgroup, MatrixA>", f"!spirv.coopmatrix<{BK}x{BN}x{el}, Workgroup, MatrixB>"
    caps, exts = "Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR, VulkanMemoryModel", \
        "SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model"
    if el == "bf16":
        caps += ", BFloat16TypeKHR, BFloat16CooperativeMatrixKHR"
        exts += ", SPV_KHR_bfloat16"
    tacc = f"!spirv.coopmatrix<{BM}x{BN}xf32, Workgroup, MatrixAcc>"
    tout = f"!spirv.coopmatrix<{BM}x{BN}x{out}, Workgroup, MatrixAcc>"
    ow = 2 if out == "f16" else 4
    bias_var = f"\n  spirv.GlobalVariable @bias bind(0, 3) : {buf('f32', 4)}" if "--bias" in sys.argv else ""
    bias_ref = ", @bias" if "--bias" in sys.argv else ""
    print(f"""// gen_wg_matmul.py {' '.join(sys.argv[1:])}
spirv.module Logical Vulkan requires #spirv.vce<v1.6, [{caps}], [{exts}]> {{
  spirv.GlobalVariable @wgid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @A bind(0, 0) : {buf('f16', 2)}
  spirv.GlobalVariable @B bind(0, 1) : {buf('f16', 2)}
  spirv.GlobalVariable @C bind(0, 2) : {buf(out, ow)}{bias_var}
  spirv.func @main() "None" {{
    %c0 = spirv.Constant 0 : i32
    %cM = spirv.Constant {M} : i32
    %cN = spirv.Constant {N} : i32
    %cK = spirv.Constant {K} : i32
    %cBM = spirv.Constant {BM} : i32
    %cBN = spirv.Constant {BN} : i32
    %cBK = spirv.Constant {BK} : i32
    %pid = spirv.mlir.addressof @wgid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %pid : vector<3xi32>
    %bx = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %by = spirv.CompositeExtract %id[1 : i32] : vector<3xi32>
    %row0 = spirv.IMul %by, %cBM : i32
    %col0 = spirv.IMul %bx, %cBN : i32
    %rowA = spirv.IMul %row0, %cK : i32
    %pa = spirv.mlir.addressof @A : {buf('f16', 2)}
    %pb = spirv.mlir.addressof @B : {buf('f16', 2)}
    %pc = spirv.mlir.addressof @C : {buf(out, ow)}
    %zero = spirv.Constant 0.0 : f32
    %acc0 = spirv.CompositeConstruct %zero : (f32) -> {tacc}
""")
    def loads(k, suffix, indent):
        return "".join(indent + line + "\n" for line in f"""%offA{suffix} = spirv.IAdd %rowA, {k} : i32
%ea{suffix} = spirv.AccessChain %pa[%c0, %offA{suffix}] : {buf('f16', 2)}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
%a{suffix} = spirv.KHR.CooperativeMatrixLoad %ea{suffix}, %cK, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {ta}
%rowB{suffix} = spirv.IMul {k}, %cN : i32
%offB{suffix} = spirv.IAdd %rowB{suffix}, %col0 : i32
%eb{suffix} = spirv.AccessChain %pb[%c0, %offB{suffix}] : {buf('f16', 2)}, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
%b{suffix} = spirv.KHR.CooperativeMatrixLoad %eb{suffix}, %cN, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> {tb}""".split("\n"))
    if prefetch:
        print(LOOP_PRE.format(loads_0=loads("%c0", "0", "    "), loads_n=loads("%kn", "n", "      "), tacc=tacc, ta=ta, tb=tb), end="")
    else:
        print(LOOP_PLAIN.format(loads_k=loads("%k", "", "      "), tacc=tacc, ta=ta, tb=tb), end="")
    print(f"""    %rowC = spirv.IMul %row0, %cN : i32
    %offC = spirv.IAdd %rowC, %col0 : i32
    %ec = spirv.AccessChain %pc[%c0, %offC] : {buf(out, ow)}, i32, i32 -> !spirv.ptr<{out}, StorageBuffer>""")
    result = "%acc"
    if "--bias" in sys.argv:  # bias[col0 + j] in every row: its row loaded with stride 0
        print(f"""    %pbias = spirv.mlir.addressof @bias : {buf('f32', 4)}
    %ebias = spirv.AccessChain %pbias[%c0, %col0] : {buf('f32', 4)}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %vbias = spirv.KHR.CooperativeMatrixLoad %ebias, %c0, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, i32 -> {tacc}
    %biased = spirv.FAdd %acc, %vbias : {tacc}""")
        result = "%biased"
    if out == "f16":
        print(f"    %r = spirv.FConvert {result} : {tacc} to {tout}")
        result = "%r"
    print(f"""    spirv.KHR.CooperativeMatrixStore %ec, {result}, %cN, <RowMajor> : !spirv.ptr<{out}, StorageBuffer>, {tout}, i32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @wgid, @A, @B, @C{bias_ref}
  spirv.ExecutionMode @main "LocalSize", {WG}, 1, 1
}}""")


if __name__ == "__main__":
    main()

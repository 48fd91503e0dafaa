#!/usr/bin/env python3
"""Edits the compiled workgroup-matrix kernel of 05_matmul, one difference from the hand-written
probe (gen_wg_matmul.py) at a time, to find which of them costs its speed. A measuring
instrument, not part of any lowering.

Input: the +wgmat artifact of a package that 05_matmul --write-package wrote, deserialized
(mlir-translate --deserialize-spirv) to SPIR-V-dialect text. The edits match that text as this
compiler writes it and stop with an error where a pattern is missing. Output: the edited text;
serialize it with mlir-translate --no-implicit-module --serialize-spirv and run it with
tessera-wgmatrix-probe --package=PKG --spv=OUT.spv@tessera.

usage: edit_compiled.py IN.mlir [EDIT...] > OUT.mlir
  const-sizes=M,N,K  M, N and K as constants instead of push constants (the probe bakes them in)
  const-sizes=,N,    only the sizes given become constants
  spec-sizes=M,N,K   M, N and K as specialization constants (ids 0, 1, 2) with these defaults
  align=A            `& ~7` of the strides and offsets becomes `& ~(A - 1)` (A a power of two)
  no-align           `& ~7` of the strides and offsets becomes `& ~0`
  loop               the loop counts k in steps of BK (k < K), its body and continue block one
                     block, as the probe's loop does (the compiled one counts steps: i < K / BK)
  no-bias            C = A @ B, no bias load and add
  no-guard           the `row0 < M && col0 < N` selection always taken
  vulkan-mm          the Vulkan memory model instead of GLSL450
  writable           A, B and bias lose NonWritable
  simple-pid=BN      program p computes block row p / BN, block column p % BN (BN: blocks along N)
                     instead of 05_matmul's grouped order
"""
import re
import sys


def replace(text, old, new, count=1, regex=False):
    found = len(re.findall(old, text)) if regex else text.count(old)
    if found == 0 or (count and found != count):
        sys.exit(f"edit_compiled.py: expected {count or 'some'} of {old!r}, found {found}")
    return re.sub(old, new, text) if regex else text.replace(old, new)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    for edit in sys.argv[2:]:
        name, _, value = edit.partition("=")
        if name == "const-sizes":
            sizes = value.split(",")
            if len(sizes) != 3:
                sys.exit("const-sizes=M,N,K")
            for var, size in zip(("%1", "%3", "%5"), sizes):
                if not size:
                    continue  # this one stays a push constant
                text = replace(text, rf"    {var} = spirv.Load \"PushConstant\" %\d+ : i32\n",
                               f"    {var} = spirv.Constant {int(size)} : i32\n", regex=True)
        elif name == "spec-sizes":  # Vulkan specialization constants (ids 0, 1, 2), defaults M, N, K
            sizes = value.split(",")
            if len(sizes) != 3:
                sys.exit("spec-sizes=M,N,K")
            specs = "".join(f"  spirv.SpecConstant @size{i} spec_id({i}) = {int(v)} : i32\n" for i, v in enumerate(sizes))
            text = replace(text, "  spirv.func @matmul()", specs + "  spirv.func @matmul()")
            for i, var in enumerate(("%1", "%3", "%5")):
                text = replace(text, rf"    {var} = spirv.Load \"PushConstant\" %\d+ : i32\n",
                               f"    {var} = spirv.mlir.referenceof @size{i} : i32\n", regex=True)
        elif name == "align":  # `& ~7` becomes `& ~(VALUE - 1)`
            text = replace(text, "spirv.Constant -8 : i32", f"spirv.Constant {-int(value)} : i32", count=0)
        elif name == "no-align":
            text = replace(text, "spirv.Constant -8 : i32", "spirv.Constant -1 : i32", count=0)
        elif name == "loop":
            step = re.search(r"%(\w+) = spirv.SDiv %5, %(cst(\d+)_i32\w*) : i32", text)
            if not step:
                sys.exit("edit_compiled.py: no `K / BK` trip count")
            header = re.search(r"\^bb1\((%\d+): i32, %\d+: !spirv.coopmatrix", text)
            if not header:
                sys.exit("edit_compiled.py: no loop header")
            k = header.group(1)
            text = replace(text, rf"spirv.SLessThan {k}, %{step.group(1)} : i32", f"spirv.SLessThan {k}, %5 : i32")
            text = replace(text, rf"(%\d+) = spirv.IMul {k}, %cst\d+_i32\w* : i32",
                           rf"\1 = spirv.BitwiseOr {k}, {k} : i32", regex=True)
            text = replace(text, r"(%cst1_i32\w*) = spirv.Constant 1 : i32\n(\s+%\d+ = spirv.IAdd " + k + r", \1 : i32)",
                           rf"\1 = spirv.Constant {step.group(3)} : i32\n\2", regex=True)
            text = replace(text, r"        spirv.Branch \^bb3\n      \^bb3:  // pred: \^bb2\n", "", regex=True)
        elif name == "no-bias":  # the store takes the loop's result; the unused bias load goes too
            add = re.search(r"(%\d+) = spirv.FAdd (%\d+), %\d+ : !spirv.coopmatrix", text)
            if not add:
                sys.exit("edit_compiled.py: no bias add")
            text = replace(text, f"spirv.FConvert {add.group(1)} :", f"spirv.FConvert {add.group(2)} :")
        elif name == "no-guard":
            text = replace(text, "    spirv.Branch ^bb1\n  ^bb1:  // pred: ^bb0\n    spirv.mlir.selection {\n"
                           "      spirv.BranchConditional %53,",
                           "    %always = spirv.Constant true\n    spirv.Branch ^bb1\n  ^bb1:  // pred: ^bb0\n"
                           "    spirv.mlir.selection {\n      spirv.BranchConditional %always,")
        elif name == "vulkan-mm":
            text = replace(text, "Logical GLSL450 requires #spirv.vce<v1.6, [Shader,",
                           "Logical Vulkan requires #spirv.vce<v1.6, [Shader, VulkanMemoryModel,")
            text = replace(text, "[SPV_KHR_16bit_storage,", "[SPV_KHR_vulkan_memory_model, SPV_KHR_16bit_storage,")
        elif name == "writable":
            text = replace(text, " {non_writable}", "", count=3)
        elif name == "simple-pid":
            blocks = int(value)
            text = replace(text, r"    %49 = spirv.IMul %44, (%cst128_i32\w*) : i32\n",
                           f"    %pidBlocksN = spirv.Constant {blocks} : i32\n    %pidRow = spirv.UDiv %7, %pidBlocksN : i32\n"
                           r"    %49 = spirv.IMul %pidRow, \1 : i32\n", regex=True)
            text = replace(text, r"    %50 = spirv.IMul %48, (%cst256_i32\w*) : i32\n",
                           "    %pidCol = spirv.UMod %7, %pidBlocksN : i32\n"
                           r"    %50 = spirv.IMul %pidCol, \1 : i32\n", regex=True)
        else:
            sys.exit(f"edit_compiled.py: unknown edit '{edit}'\n" + __doc__)
    print(text, end="")


if __name__ == "__main__":
    main()

// tessera::Kernel: accessors, signature/ABI assignment, and kernels parsed from tile IR text.
#include "KernelImpl.hpp"
#include "tessera/compiler.hpp"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessera {

const std::string &TracedKernel::name() const { return impl_->name; }
const std::vector<ArgSpec> &TracedKernel::signature() const { return impl_->signature; }
uint32_t TracedKernel::numWarps() const { return impl_->numWarps; }
Numerics TracedKernel::numerics() const { return impl_->numerics; }

std::string TracedKernel::tileIR(bool withLocations) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false); // parses back
  impl_->module->print(os, flags);
  return text;
}

namespace detail {

func::FuncOp kernelFuncOf(ModuleOp module) {
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(tile::kKernelAttr))
      return f;
  return nullptr;
}

func::FuncOp KernelImpl::kernelFunc() const { return kernelFuncOf(module.get()); }

std::shared_ptr<MLIRContext> makeTileContext() {
  auto ctx = std::make_shared<MLIRContext>(MLIRContext::Threading::DISABLED);
  ctx->loadDialect<tile::TileDialect, arith::ArithDialect, func::FuncDialect, math::MathDialect, scf::SCFDialect>();
  return ctx;
}

void assignAbiSlots(std::vector<ArgSpec> &signature) {
  uint32_t binding = 0, offset = 0;
  for (ArgSpec &a : signature) {
    if (a.kind == ArgKind::Buffer) {
      a.abiSlot = binding++;
    } else {
      uint32_t size = uint32_t(sizeOf(a.dtype));
      offset = (offset + size - 1) / size * size;
      a.abiSlot = offset;
      offset += size;
    }
  }
}

static std::optional<DType> dtypeOfType(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isSignlessInteger(8))
    return DType::I8;
  if (t.isSignlessInteger(16))
    return DType::I16;
  if (t.isSignlessInteger(32))
    return DType::I32;
  if (t.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

std::optional<std::vector<ArgSpec>> signatureOf(func::FuncOp f, std::string *error) {
  std::vector<ArgSpec> signature;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    ArgSpec a;
    Type t = f.getArgument(i).getType();
    if (auto name = f.getArgAttrOfType<StringAttr>(i, tile::kArgNameAttr))
      a.name = name.str();
    else
      a.name = "arg" + std::to_string(i);
    if (auto ptr = dyn_cast<tile::PtrType>(t)) {
      a.kind = ArgKind::Buffer;
      t = ptr.getElementType();
    } else {
      a.kind = ArgKind::Scalar;
    }
    std::optional<DType> dt = dtypeOfType(t);
    if (auto named = f.getArgAttrOfType<StringAttr>(i, tile::kArgDTypeAttr)) {
      std::optional<DType> u = parseDType(named.getValue());
      if (!u || !dt || sizeOf(*u) != sizeOf(*dt)) {
        llvm::raw_string_ostream os(*error);
        os << "kernel '" << f.getName() << "' argument #" << i << " says dtype '" << named.getValue()
           << "', which does not fit its type " << f.getArgument(i).getType();
        return std::nullopt;
      }
      dt = u;
    }
    if (!dt) {
      llvm::raw_string_ostream os(*error);
      os << "kernel '" << f.getName() << "' argument #" << i << " has type " << f.getArgument(i).getType()
         << "; arguments must be buffers (!tile.ptr<T>) or scalars of f32, f16, bf16, i8, i16, i32 or i64";
      return std::nullopt;
    }
    a.dtype = *dt;
    signature.push_back(a);
  }
  assignAbiSlots(signature);
  return signature;
}

Result<TracedKernel> kernelFromFunc(std::shared_ptr<MLIRContext> context, OwningOpRef<ModuleOp> module) {
  auto impl = std::make_shared<KernelImpl>();
  impl->context = std::move(context);
  impl->module = std::move(module);
  func::FuncOp f = impl->kernelFunc();
  if (!f)
    return Status(StatusCode::InvalidArgument, "the module has no function marked 'tile.kernel'");
  impl->name = f.getName().str();
  if (auto w = f->getAttrOfType<IntegerAttr>(tile::kNumWarpsAttr))
    impl->numWarps = uint32_t(w.getInt());
  if (auto n = f->getAttrOfType<StringAttr>(tile::kNumericsAttr)) {
    if (n.getValue() != "fast" && n.getValue() != "portable")
      return Status(StatusCode::InvalidArgument, "kernel '" + impl->name + "' has " + tile::kNumericsAttr.str() + " = \"" +
                                                     n.getValue().str() + "\"; use \"fast\" or \"portable\"");
    impl->numerics = n.getValue() == "portable" ? Numerics::Portable : Numerics::Fast;
  }
  std::string error;
  std::optional<std::vector<ArgSpec>> signature = signatureOf(f, &error);
  if (!signature)
    return Status(StatusCode::InvalidArgument, error);
  impl->signature = std::move(*signature);
  TracedKernel k;
  k.impl_ = std::move(impl);
  return k;
}

} // namespace detail

Result<std::vector<TracedKernel>> parseTileIR(std::string_view text, std::string_view bufferName) {
  std::vector<TracedKernel> kernels;
  auto ctx = detail::makeTileContext();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(ctx.get(), [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  ParserConfig config(ctx.get());
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(
      llvm::StringRef(text.data(), text.size()), config, llvm::StringRef(bufferName.data(), bufferName.size()));
  if (!parsed)
    return Status(StatusCode::InvalidArgument, "cannot parse tile IR:\n" + diagnostics);
  // One module per kernel, so each can be compiled and packaged on its own.
  for (auto f : llvm::make_early_inc_range(parsed->getOps<func::FuncOp>())) {
    if (!f->hasAttr(tile::kKernelAttr))
      continue;
    OwningOpRef<ModuleOp> single = ModuleOp::create(parsed->getLoc());
    f->moveBefore(single->getBody(), single->getBody()->end());
    // Kernels share the parsed context; each Kernel keeps it alive.
    Result<TracedKernel> k = detail::kernelFromFunc(ctx, std::move(single));
    if (!k)
      return k.status();
    kernels.push_back(std::move(*k));
  }
  if (kernels.empty())
    return Status(StatusCode::InvalidArgument, "no function marked 'tile.kernel' in " + std::string(bufferName));
  return kernels;
}

} // namespace tessera

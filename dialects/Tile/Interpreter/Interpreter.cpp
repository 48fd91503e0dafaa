// The reference interpreter: runs a kernel's tile IR over a grid on host buffers, one program
// at a time, with the canonical reduction and scan orders of portable mode
// (docs/interpreter.md). Element-wise ops are in InterpreterOps.cpp. Compiled with
// -ffp-contract=off.
#include "tessera/interpreter.hpp"

#include "InterpreterValues.h"
#include "KernelImpl.hpp"
#include "Registration.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>
#include <map>

using namespace mlir;

namespace tessera {
namespace interp {
namespace {

// ---- the kernel prepared once: ops in order, each value in a slot --------------------------

struct Instr {
  enum Kind : uint8_t {
    Elementwise, ProgramId, NumPrograms, Arange, Splat, Load, Store, AtomicRMW, AtomicCAS,
    Broadcast, ExpandDims, Reshape, Trans, Reduce, Scan, Dot, For, EndFor, Return,
  };
  Kind kind;
  Operation *op;
  ElementwiseOp elementwise{};
  std::vector<int> operands; // slots of the op's operands (-1 for a buffer argument)
  std::vector<int> results;  // slots of its results
  std::vector<int> release;  // slots whose last use is this op
  // scf.for is two instructions around its body: For (operands lb, ub, step, inits; results the
  // loop's results; `body` the induction variable's slot, then the carried values' slots) and
  // EndFor (operands: the yielded values). `partner` is the index of the other one.
  std::vector<int> body;
  size_t partner = 0;
  std::vector<size_t> loops; // indices of the For instructions around this one, outermost first
};

struct Prepared {
  std::string name;
  std::vector<Instr> instrs;
  std::vector<TileValue> slots;   // constants filled in; every other slot is per program
  std::vector<bool> isConstant;
  std::vector<int> argSlots;      // per kernel argument: its slot (scalars) or -1 (buffers)
};

std::string locationOf(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getLoc();
  return s;
}

Status unsupported(Operation *op, const std::string &why) {
  return Status(StatusCode::Unsupported, "the interpreter cannot run '" + op->getName().getStringRef().str() +
                                             "' at " + locationOf(op) + ": " + why);
}

std::vector<int64_t> shapeOf(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return std::vector<int64_t>(tensor.getShape().begin(), tensor.getShape().end());
  return {};
}

int64_t countOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// The bits of one scalar attribute (integer or float) of element type `e`.
std::optional<uint64_t> attributeBits(Attribute a, Elem e) {
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getValue().getZExtValue() & lowMask(widthOf(e));
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValue().bitcastToAPInt().getZExtValue();
  return std::nullopt;
}

/// The value of an arith.constant (a scalar, or a dense tile, splat or not).
std::optional<TileValue> constantValue(Attribute attr, Type type) {
  std::optional<Elem> e = elemOf(type);
  if (!e) return std::nullopt;
  TileValue v;
  v.elem = *e;
  v.shape = shapeOf(type);
  size_t n = size_t(countOf(v.shape));
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat()) {
      std::optional<uint64_t> b = attributeBits(dense.getSplatValue<Attribute>(), *e);
      if (!b) return std::nullopt;
      v.bits.assign(n, *b);
      return v;
    }
    for (Attribute element : dense.getValues<Attribute>()) {
      std::optional<uint64_t> b = attributeBits(element, *e);
      if (!b) return std::nullopt;
      v.bits.push_back(*b);
    }
    return v.bits.size() == n ? std::optional<TileValue>(v) : std::nullopt;
  }
  std::optional<uint64_t> b = attributeBits(attr, *e);
  if (!b || n != 1) return std::nullopt;
  v.bits.assign(1, *b);
  return v;
}

Result<Prepared> prepare(func::FuncOp f) {
  Prepared p;
  p.name = f.getName().str();
  if (!f.getBody().hasOneBlock())
    return Status(StatusCode::Unsupported, "the interpreter runs kernels of one block; '" + p.name + "' has " +
                                               std::to_string(f.getBody().getBlocks().size()));
  DenseMap<Value, int> slotOf;
  auto newSlot = [&](Value v) {
    int s = int(p.slots.size());
    slotOf[v] = s;
    p.slots.emplace_back();
    p.isConstant.push_back(false);
    return s;
  };
  Block &body = f.getBody().front();
  for (BlockArgument a : body.getArguments()) {
    if (isa<tile::PtrType>(a.getType())) {
      p.argSlots.push_back(-1);
      continue;
    }
    if (!elemOf(a.getType()))
      return Status(StatusCode::Unsupported, "kernel '" + p.name + "' has a scalar argument the interpreter cannot hold");
    p.argSlots.push_back(newSlot(a));
  }
  std::vector<size_t> loops; // the For instructions enclosing the ops being prepared
  std::function<Status(Block &)> prepareBlock = [&](Block &block) -> Status {
  for (Operation &opRef : block) {
    Operation *op = &opRef;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      Instr in;
      in.kind = Instr::For;
      in.op = op;
      in.loops = loops;
      for (Value v : op->getOperands()) {
        auto it = slotOf.find(v);
        if (it == slotOf.end() || !elemOf(v.getType()))
          return unsupported(op, "an operand the interpreter cannot hold");
        in.operands.push_back(it->second);
      }
      for (Value v : loop.getBody()->getArguments()) {
        if (!elemOf(v.getType()))
          return unsupported(op, "a loop value the interpreter cannot hold");
        int slot = newSlot(v);
        p.slots[slot].elem = *elemOf(v.getType());
        p.slots[slot].shape = shapeOf(v.getType());
        in.body.push_back(slot);
      }
      for (Value r : op->getResults()) {
        int slot = newSlot(r);
        p.slots[slot].elem = *elemOf(r.getType());
        p.slots[slot].shape = shapeOf(r.getType());
        in.results.push_back(slot);
      }
      size_t begin = p.instrs.size();
      p.instrs.push_back(std::move(in));
      loops.push_back(begin);
      if (Status s = prepareBlock(*loop.getBody()); !s)
        return s;
      loops.pop_back();
      Instr end;
      end.kind = Instr::EndFor;
      end.op = loop.getBody()->getTerminator();
      end.loops = loops;
      end.loops.push_back(begin);
      for (Value v : end.op->getOperands())
        end.operands.push_back(slotOf.at(v));
      end.partner = begin;
      p.instrs[begin].partner = p.instrs.size();
      p.instrs.push_back(std::move(end));
      continue;
    }
    if (isa<scf::YieldOp>(op))
      return Status(); // EndFor, made by the loop
    if (op->getNumRegions())
      return unsupported(op, "ops with regions other than scf.for are not interpreted");
    for (Type t : op->getResultTypes())
      if (!elemOf(t))
        return unsupported(op, "its result type is not a scalar or tile of i1, i8, i16, i32, i64, f16, bf16, f32 or f64");
    StringRef name = op->getName().getStringRef();
    if (name == "arith.constant" || name == "ub.poison") {
      std::optional<TileValue> c;
      if (auto k = dyn_cast<arith::ConstantOp>(op)) {
        c = constantValue(k.getValue(), k.getType());
      } else { // poison: any value is allowed; zeros are defined
        c = TileValue{*elemOf(op->getResult(0).getType()), shapeOf(op->getResult(0).getType()), {}, {}};
        c->bits.assign(size_t(countOf(c->shape)), 0);
      }
      if (!c)
        return unsupported(op, "a constant attribute of this kind is not interpreted");
      int s = newSlot(op->getResult(0));
      p.slots[s] = std::move(*c);
      p.isConstant[s] = true;
      continue;
    }
    Instr in;
    in.kind = Instr::Return;
    in.op = op;
    if (isa<func::ReturnOp>(op)) in.kind = Instr::Return;
    else if (isa<tile::ProgramIdOp>(op)) in.kind = Instr::ProgramId;
    else if (isa<tile::NumProgramsOp>(op)) in.kind = Instr::NumPrograms;
    else if (isa<tile::ArangeOp>(op)) in.kind = Instr::Arange;
    else if (isa<tile::SplatOp>(op)) in.kind = Instr::Splat;
    else if (isa<tile::LoadOp>(op)) in.kind = Instr::Load;
    else if (isa<tile::StoreOp>(op)) in.kind = Instr::Store;
    else if (isa<tile::AtomicRMWOp>(op)) in.kind = Instr::AtomicRMW;
    else if (isa<tile::AtomicCASOp>(op)) in.kind = Instr::AtomicCAS;
    else if (isa<tile::BroadcastOp>(op)) in.kind = Instr::Broadcast;
    else if (isa<tile::ExpandDimsOp>(op)) in.kind = Instr::ExpandDims;
    else if (isa<tile::ReshapeOp>(op)) in.kind = Instr::Reshape;
    else if (isa<tile::TransOp>(op)) in.kind = Instr::Trans;
    else if (isa<tile::ReduceOp>(op)) in.kind = Instr::Reduce;
    else if (isa<tile::ScanOp>(op)) in.kind = Instr::Scan;
    else if (isa<tile::DotOp>(op)) in.kind = Instr::Dot;
    else if (std::optional<ElementwiseOp> e = elementwiseOpFor(op)) {
      in.kind = Instr::Elementwise;
      in.elementwise = *e;
      if (auto t = dyn_cast<arith::TruncFOp>(op))
        if (t.getRoundingmode() && *t.getRoundingmode() != arith::RoundingMode::to_nearest_even)
          return unsupported(op, "only rounding to nearest even is interpreted");
    } else {
      return unsupported(op, "the op is not in the interpreter's table (docs/interpreter.md lists what it runs)");
    }
    for (Value v : op->getOperands()) {
      if (isa<tile::PtrType>(v.getType())) {
        if (!isa<BlockArgument>(v))
          return unsupported(op, "its pointer is not a kernel argument");
        in.operands.push_back(-1);
        continue;
      }
      auto it = slotOf.find(v);
      if (it == slotOf.end() || !elemOf(v.getType()))
        return unsupported(op, "an operand the interpreter cannot hold");
      in.operands.push_back(it->second);
    }
    for (Value r : op->getResults()) {
      int s = newSlot(r);
      p.slots[s].elem = *elemOf(r.getType());
      p.slots[s].shape = shapeOf(r.getType());
      in.results.push_back(s);
    }
    in.loops = loops;
    p.instrs.push_back(std::move(in));
    if (p.instrs.back().kind == Instr::Return)
      break;
  }
  return Status();
  };
  if (Status s = prepareBlock(body); !s)
    return s;
  // Free each per-program value after its last use (tiles may hold 2^20 elements). A value
  // used inside a loop it was made outside of lives until that loop ends (EndFor releases only
  // when the loop exits).
  std::vector<int> defined(p.slots.size(), -1);
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    for (int s : p.instrs[i].results) defined[s] = int(i);
    for (int s : p.instrs[i].body) defined[s] = int(i);
  }
  std::vector<int> lastUse(p.slots.size(), -1);
  for (size_t i = 0; i < p.instrs.size(); ++i)
    for (int s : p.instrs[i].operands) {
      if (s < 0) continue;
      lastUse[s] = std::max(lastUse[s], int(i));
      for (size_t f : p.instrs[i].loops)
        if (defined[s] < int(f))
          lastUse[s] = std::max(lastUse[s], int(p.instrs[f].partner));
    }
  for (size_t s = 0; s < p.slots.size(); ++s)
    if (lastUse[s] >= 0 && !p.isConstant[s])
      p.instrs[lastUse[s]].release.push_back(int(s));
  return p;
}

// ---- running programs -------------------------------------------------------------------------

class Machine {
public:
  Machine(Prepared &p, const TracedKernel &k, std::span<const InterpArg> args, Grid grid, bool shadow)
      : p(p), kernel(k), args(args), grid(grid), shadow(shadow) {}

  Status runProgram(uint32_t x, uint32_t y, uint32_t z);

private:
  Status step(Instr &in);
  Status load(Instr &in);
  Status store(Instr &in);
  Status atomic(Instr &in);
  void broadcast(Instr &in);
  void transpose(Instr &in);
  void reduce(Instr &in);
  void scan(Instr &in);
  void dot(Instr &in);

  TileValue &at(int slot) { return p.slots[slot]; }
  /// The buffer argument of a pointer operand.
  size_t argIndexOf(Value ptr) const { return cast<BlockArgument>(ptr).getArgNumber(); }
  Status outOfBounds(const char *what, size_t arg, int64_t offset, size_t element, size_t count) const;

  Prepared &p;
  const TracedKernel &kernel;
  std::span<const InterpArg> args;
  Grid grid;
  bool shadow;
  uint32_t pid[3] = {0, 0, 0};
  std::map<size_t, std::pair<int64_t, int64_t>> loopBounds; // For index -> (upper bound, step)
};

Status Machine::runProgram(uint32_t x, uint32_t y, uint32_t z) {
  pid[0] = x, pid[1] = y, pid[2] = z;
  for (size_t i = 0; i < p.argSlots.size(); ++i) {
    if (p.argSlots[i] < 0) continue;
    TileValue &v = at(p.argSlots[i]);
    v.bits.assign(1, args[i].scalarBits() & lowMask(widthOf(v.elem)));
    v.shadow.clear();
  }
  auto releaseAfter = [&](const Instr &in) {
    for (int s : in.release) {
      at(s).bits = {};
      at(s).shadow = {};
    }
  };
  auto i32At = [&](int slot) { return int64_t(signExtend(at(slot).bits[0], 32)); };
  for (size_t pc = 0; pc < p.instrs.size();) {
    Instr &in = p.instrs[pc];
    if (in.kind == Instr::Return) break;
    if (in.kind == Instr::For) {
      // operands: lb, ub, step, inits; body: the induction variable, then the carried values
      int64_t lb = i32At(in.operands[0]), ub = i32At(in.operands[1]);
      loopBounds[pc] = {ub, i32At(in.operands[2])};
      for (size_t k = 3; k < in.operands.size(); ++k)
        (lb < ub ? at(in.body[k - 2]) : at(in.results[k - 3])) = at(in.operands[k]);
      at(in.body[0]).bits.assign(1, uint64_t(uint32_t(int32_t(lb))));
      releaseAfter(in);
      pc = lb < ub ? pc + 1 : in.partner + 1;
      continue;
    }
    if (in.kind == Instr::EndFor) {
      const Instr &loop = p.instrs[in.partner];
      std::vector<TileValue> next;
      for (int s : in.operands) next.push_back(at(s));
      auto [ub, stepBy] = loopBounds[in.partner];
      int64_t i = i32At(loop.body[0]) + stepBy; // no i32 wrap: bounds and step are i32
      bool again = i < ub;
      for (size_t k = 0; k < next.size(); ++k)
        at(again ? loop.body[k + 1] : loop.results[k]) = std::move(next[k]);
      if (again) {
        at(loop.body[0]).bits.assign(1, uint64_t(uint32_t(int32_t(i))));
        pc = in.partner + 1;
        continue;
      }
      releaseAfter(in);
      ++pc;
      continue;
    }
    if (Status s = step(in); !s) return s;
    releaseAfter(in);
    ++pc;
  }
  return Status();
}

Status Machine::step(Instr &in) {
  switch (in.kind) {
  case Instr::Elementwise: {
    std::vector<const TileValue *> operands;
    for (int s : in.operands) operands.push_back(&at(s));
    std::vector<TileValue *> results;
    for (int s : in.results) results.push_back(&at(s));
    std::string error;
    if (!evalElementwise(in.elementwise, operands, results, shadow, &error))
      return unsupported(in.op, error);
    return Status();
  }
  case Instr::ProgramId:
  case Instr::NumPrograms: {
    int axis = in.kind == Instr::ProgramId ? int(cast<tile::ProgramIdOp>(in.op).getAxis())
                                           : int(cast<tile::NumProgramsOp>(in.op).getAxis());
    uint32_t dims[3] = {grid.x, grid.y, grid.z};
    at(in.results[0]).bits.assign(1, in.kind == Instr::ProgramId ? pid[axis] : dims[axis]);
    return Status();
  }
  case Instr::Arange: {
    auto op = cast<tile::ArangeOp>(in.op);
    TileValue &r = at(in.results[0]);
    r.bits.resize(size_t(countOf(r.shape)));
    for (size_t i = 0; i < r.bits.size(); ++i) r.bits[i] = uint32_t(int32_t(op.getStart()) + int32_t(i));
    return Status();
  }
  case Instr::Splat: {
    const TileValue &s = at(in.operands[0]);
    TileValue &r = at(in.results[0]);
    r.bits.assign(size_t(countOf(r.shape)), s.bits[0]);
    r.shadow.clear();
    if (shadow && isFloatElem(r.elem)) r.shadow.assign(r.bits.size(), shadowAt(s, 0));
    return Status();
  }
  case Instr::Load: return load(in);
  case Instr::Store: return store(in);
  case Instr::AtomicRMW:
  case Instr::AtomicCAS: return atomic(in);
  case Instr::Broadcast: broadcast(in); return Status();
  case Instr::ExpandDims:
  case Instr::Reshape: { // the same elements in the same (row-major) order
    const TileValue &s = at(in.operands[0]);
    TileValue &r = at(in.results[0]);
    r.bits = s.bits;
    r.shadow = s.shadow;
    return Status();
  }
  case Instr::Trans: transpose(in); return Status();
  case Instr::Reduce: reduce(in); return Status();
  case Instr::Scan: scan(in); return Status();
  case Instr::Dot: dot(in); return Status();
  case Instr::For:
  case Instr::EndFor:
  case Instr::Return: return Status();
  }
  return Status();
}

Status Machine::outOfBounds(const char *what, size_t arg, int64_t offset, size_t element, size_t count) const {
  const ArgSpec &spec = kernel.signature()[arg];
  return Status(StatusCode::InvalidArgument,
                "kernel '" + p.name + "' program (" + std::to_string(pid[0]) + ", " + std::to_string(pid[1]) + ", " +
                    std::to_string(pid[2]) + "): " + what + " argument " + std::to_string(arg) + " '" + spec.name +
                    "' at offset " + std::to_string(offset) + " (element " + std::to_string(element) +
                    " of the offsets tile) is outside the buffer of " + std::to_string(count) +
                    " elements; mask it off or pass a larger buffer");
}

/// A buffer element's bits (little-endian, like the host and the devices).
uint64_t readElement(const HostBuffer &b, size_t index, size_t size) {
  uint64_t v = 0;
  std::memcpy(&v, b.bytes.data() + index * size, size);
  return v;
}
void writeElement(HostBuffer &b, size_t index, size_t size, uint64_t v) {
  std::memcpy(b.bytes.data() + index * size, &v, size);
}

/// Gives `b` a shadow (each element's own value) before a shadow run writes into it.
void ensureShadow(HostBuffer &b, Elem e) {
  size_t n = b.count(), size = sizeOf(b.dtype);
  if (b.shadow.size() == n) return;
  b.shadow.resize(n);
  for (size_t i = 0; i < n; ++i) b.shadow[i] = doubleOf(e, readElement(b, i, size));
}

Status Machine::load(Instr &in) {
  auto op = cast<tile::LoadOp>(in.op);
  size_t arg = argIndexOf(op.getPtr());
  HostBuffer &buf = *args[arg].buffer();
  const TileValue &offs = at(in.operands[1]);
  const TileValue *mask = op.getMask() ? &at(in.operands[2]) : nullptr;
  const TileValue *other = op.getOther() ? &at(in.operands[op.getMask() ? 3 : 2]) : nullptr;
  TileValue &r = at(in.results[0]);
  size_t n = offs.size(), size = sizeOf(buf.dtype), count = buf.count();
  bool withShadow = shadow && isFloatElem(r.elem);
  bool bufferShadow = withShadow && buf.shadow.size() == count;
  r.bits.resize(n);
  r.shadow.clear();
  if (withShadow) r.shadow.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(mask->bits[i] & 1)) {
      r.bits[i] = other ? other->bits[i] : 0;
      if (withShadow) r.shadow[i] = other ? shadowAt(*other, i) : 0.0;
      continue;
    }
    int64_t o = signExtend(offs.bits[i], 32);
    if (o < 0 || uint64_t(o) >= count) return outOfBounds("load from", arg, o, i, count);
    r.bits[i] = readElement(buf, size_t(o), size);
    if (withShadow) r.shadow[i] = bufferShadow ? buf.shadow[size_t(o)] : doubleOf(r.elem, r.bits[i]);
  }
  return Status();
}

Status Machine::store(Instr &in) {
  auto op = cast<tile::StoreOp>(in.op);
  size_t arg = argIndexOf(op.getPtr());
  HostBuffer &buf = *args[arg].buffer();
  const TileValue &offs = at(in.operands[1]), &value = at(in.operands[2]);
  const TileValue *mask = op.getMask() ? &at(in.operands[3]) : nullptr;
  size_t n = offs.size(), size = sizeOf(buf.dtype), count = buf.count();
  // Every offset is checked first, so a store that fails writes nothing.
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(mask->bits[i] & 1)) continue;
    int64_t o = signExtend(offs.bits[i], 32);
    if (o < 0 || uint64_t(o) >= count) return outOfBounds("store to", arg, o, i, count);
  }
  bool withShadow = shadow && isFloatElem(value.elem);
  if (withShadow) ensureShadow(buf, value.elem);
  else buf.shadow.clear(); // a run without shadows leaves none that could be stale
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(mask->bits[i] & 1)) continue;
    size_t o = size_t(signExtend(offs.bits[i], 32));
    writeElement(buf, o, size, value.bits[i]);
    if (withShadow) buf.shadow[o] = shadowAt(value, i);
  }
  return Status();
}

Status Machine::atomic(Instr &in) {
  bool isCas = in.kind == Instr::AtomicCAS;
  Value ptr = isCas ? cast<tile::AtomicCASOp>(in.op).getPtr() : cast<tile::AtomicRMWOp>(in.op).getPtr();
  Value maskValue = isCas ? cast<tile::AtomicCASOp>(in.op).getMask() : cast<tile::AtomicRMWOp>(in.op).getMask();
  size_t arg = argIndexOf(ptr);
  HostBuffer &buf = *args[arg].buffer();
  const TileValue &offs = at(in.operands[1]);
  const TileValue *cmp = isCas ? &at(in.operands[2]) : nullptr;
  const TileValue &value = at(in.operands[isCas ? 3 : 2]);
  const TileValue *mask = maskValue ? &at(in.operands[isCas ? 4 : 3]) : nullptr;
  TileValue &r = at(in.results[0]);
  size_t n = offs.size(), size = sizeOf(buf.dtype), count = buf.count();
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(mask->bits[i] & 1)) continue;
    int64_t o = signExtend(offs.bits[i], 32);
    if (o < 0 || uint64_t(o) >= count) return outOfBounds("atomic on", arg, o, i, count);
  }
  int w = widthOf(value.elem);
  bool isFloat = isFloatElem(value.elem), withShadow = shadow && isFloat;
  tile::AtomicKind kind = isCas ? tile::AtomicKind::Cas : cast<tile::AtomicRMWOp>(in.op).getKind();
  if (withShadow) ensureShadow(buf, value.elem);
  else buf.shadow.clear();
  r.bits.assign(n, 0);
  r.shadow.clear();
  if (withShadow) r.shadow.assign(n, 0.0);
  // One element after another in index order: repeated offsets see each other's updates.
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(mask->bits[i] & 1)) continue;
    size_t o = size_t(signExtend(offs.bits[i], 32));
    uint64_t old = readElement(buf, o, size), v = value.bits[i], next = old;
    int64_t so = signExtend(old, w), sv = signExtend(v, w);
    switch (kind) {
    case tile::AtomicKind::Add: next = isFloat ? bitsOf(f32Of(old) + f32Of(v)) : (old + v) & lowMask(w); break;
    case tile::AtomicKind::Max: next = sv > so ? v : old; break;
    case tile::AtomicKind::Min: next = sv < so ? v : old; break;
    case tile::AtomicKind::UMax: next = v > old ? v : old; break;
    case tile::AtomicKind::UMin: next = v < old ? v : old; break;
    case tile::AtomicKind::Xchg: next = v; break;
    case tile::AtomicKind::Cas: next = old == cmp->bits[i] ? v : old; break;
    }
    writeElement(buf, o, size, next);
    r.bits[i] = old;
    if (withShadow) {
      r.shadow[i] = buf.shadow[o];
      buf.shadow[o] = kind == tile::AtomicKind::Add ? buf.shadow[o] + shadowAt(value, i) : shadowAt(value, i);
    }
  }
  return Status();
}

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// result[c] = src[sum(c[i] * srcStride[i])] over every coordinate c of `shape`, in order.
void gather(const TileValue &src, TileValue &r, const std::vector<int64_t> &srcStride, bool shadow) {
  size_t n = size_t(countOf(r.shape)), rank = r.shape.size();
  r.bits.resize(n);
  r.shadow.clear();
  bool withShadow = shadow && isFloatElem(r.elem) && !src.shadow.empty();
  if (withShadow) r.shadow.resize(n);
  std::vector<int64_t> c(rank, 0);
  int64_t from = 0;
  for (size_t i = 0; i < n; ++i) {
    r.bits[i] = src.bits[size_t(from)];
    if (withShadow) r.shadow[i] = src.shadow[size_t(from)];
    for (int d = int(rank) - 1; d >= 0; --d) { // next coordinate, innermost first
      from += srcStride[d];
      if (++c[d] < r.shape[d]) break;
      from -= srcStride[d] * c[d];
      c[d] = 0;
    }
  }
}

void Machine::broadcast(Instr &in) {
  const TileValue &s = at(in.operands[0]);
  TileValue &r = at(in.results[0]);
  std::vector<int64_t> stride = stridesOf(s.shape);
  for (size_t d = 0; d < s.shape.size(); ++d)
    if (s.shape[d] == 1) stride[d] = 0; // a size-1 dimension repeats
  gather(s, r, stride, shadow);
}

/// tile.dot in the portable order: per element, from acc, k = 0, 1, ... adds the product rounded
/// to the accumulator type, each sum rounded (no fusion; this file is built without contraction).
void Machine::dot(Instr &in) {
  const TileValue &a = at(in.operands[0]), &b = at(in.operands[1]), &acc = at(in.operands[2]);
  TileValue &r = at(in.results[0]);
  const bool transposeB = cast<tile::DotOp>(in.op).getTransposeB(); // b is N x K
  const int64_t M = a.shape[0], K = a.shape[1], N = acc.shape[1];
  const int64_t bk = transposeB ? 1 : N, bn = transposeB ? K : 1; // b[k, n] at k * bk + n * bn
  const bool isFloat = isFloatElem(acc.elem), withShadow = shadow && isFloat;
  std::vector<uint64_t> bits(size_t(M * N));
  std::vector<double> sh(withShadow ? bits.size() : 0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      size_t o = size_t(m * N + n);
      if (isFloat) {
        float c = f32Of(acc.bits[o]);
        double cs = withShadow ? shadowAt(acc, o) : 0;
        for (int64_t k = 0; k < K; ++k) {
          size_t ia = size_t(m * K + k), ib = size_t(k * bk + n * bn);
          float p = floatOf(a.elem, a.bits[ia]) * floatOf(b.elem, b.bits[ib]);
          c = c + p;
          if (withShadow) cs += shadowAt(a, ia) * shadowAt(b, ib);
        }
        bits[o] = bitsOf(c);
        if (withShadow) sh[o] = cs;
      } else { // i8 x i8 -> i32, wrapping
        uint32_t c = uint32_t(acc.bits[o]);
        for (int64_t k = 0; k < K; ++k)
          c += uint32_t(int32_t(signExtend(a.bits[size_t(m * K + k)], 8)) * int32_t(signExtend(b.bits[size_t(k * bk + n * bn)], 8)));
        bits[o] = c;
      }
    }
  r.bits = std::move(bits);
  r.shadow = std::move(sh);
}

void Machine::transpose(Instr &in) {
  const TileValue &s = at(in.operands[0]);
  TileValue &r = at(in.results[0]);
  ArrayRef<int32_t> order = cast<tile::TransOp>(in.op).getOrder();
  std::vector<int64_t> srcStride = stridesOf(s.shape), stride(order.size());
  for (size_t i = 0; i < order.size(); ++i) stride[i] = srcStride[order[i]]; // result dim i is source dim order[i]
  gather(s, r, stride, shadow);
}

// ---- reductions and scans in the canonical order --------------------------------------------

/// x + y in element type e (f32 in float; f16/bf16 rounded back after each add).
uint64_t addIn(Elem e, uint64_t x, uint64_t y) {
  switch (e) {
  case Elem::F32: return bitsOf(f32Of(x) + f32Of(y));
  case Elem::F64: return bitsOf(f64Of(x) + f64Of(y));
  case Elem::F16:
  case Elem::BF16: return encodeFloat(e, floatOf(e, x) + floatOf(e, y));
  default: return (x + y) & lowMask(widthOf(e));
  }
}

/// Combines a (the lower indices) with b under `kind`; for argmax/argmin also the indices. A
/// float max/min is arith.maximumf/minimumf; arg* takes b only when it is strictly better or a
/// NaN after a number (so ties and NaNs go to the lowest index).
struct Combiner {
  tile::ReduceKind kind;
  Elem e;
  bool isArg() const { return kind == tile::ReduceKind::ArgMax || kind == tile::ReduceKind::ArgMin; }
  void combine(uint64_t &a, uint32_t &ai, uint64_t b, uint32_t bi) const {
    bool isMax = kind == tile::ReduceKind::Max || kind == tile::ReduceKind::ArgMax;
    if (kind == tile::ReduceKind::Sum) {
      a = addIn(e, a, b);
      return;
    }
    if (!isArg()) {
      if (isFloatElem(e)) {
        double x = doubleOf(e, a), y = doubleOf(e, b);
        double m = isMax ? maximumOf(x, y) : minimumOf(x, y);
        if (std::isnan(m)) a = std::isnan(x) ? a : b;  // the NaN itself, bits kept
        else a = (m == x && std::signbit(m) == std::signbit(x)) ? a : b;
        return;
      }
      int w = widthOf(e);
      int64_t x = signExtend(a, w), y = signExtend(b, w);
      if (isMax ? y > x : y < x) a = b;
      return;
    }
    bool take;
    if (isFloatElem(e)) {
      double x = doubleOf(e, a), y = doubleOf(e, b);
      take = (isMax ? y > x : y < x) || (std::isnan(y) && !std::isnan(x));
    } else {
      int w = widthOf(e);
      int64_t x = signExtend(a, w), y = signExtend(b, w);
      take = isMax ? y > x : y < x;
    }
    if (take) a = b, ai = bi;
  }
  double combineShadow(double x, double y) const {
    switch (kind) {
    case tile::ReduceKind::Sum: return x + y;
    case tile::ReduceKind::Max: return maximumOf(x, y);
    default: return minimumOf(x, y);
    }
  }
};

/// The pairwise tree over v[0, n): level by level, v[i] = v[2i] (+) v[2i+1]; an odd last
/// element moves up unchanged (as if padded with the identity).
void treeReduce(const Combiner &c, std::vector<uint64_t> &v, std::vector<uint32_t> &idx, std::vector<double> *s) {
  for (size_t m = v.size(); m > 1; m = (m + 1) / 2) {
    for (size_t i = 0; i < m / 2; ++i) {
      uint64_t a = v[2 * i];
      uint32_t ai = idx[2 * i];
      c.combine(a, ai, v[2 * i + 1], idx[2 * i + 1]);
      v[i] = a, idx[i] = ai;
      if (s) (*s)[i] = c.combineShadow((*s)[2 * i], (*s)[2 * i + 1]);
    }
    if (m % 2) {
      v[m / 2] = v[m - 1], idx[m / 2] = idx[m - 1];
      if (s) (*s)[m / 2] = (*s)[m - 1];
    }
  }
}

/// The tile as outer x n x inner around `axis`.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  Lines(const std::vector<int64_t> &shape, int axis) {
    for (int d = 0; d < int(shape.size()); ++d)
      (d < axis ? outer : d == axis ? n : inner) *= shape[d];
  }
  size_t at(int64_t o, int64_t k, int64_t i) const { return size_t((o * n + k) * inner + i); }
};

void Machine::reduce(Instr &in) {
  auto op = cast<tile::ReduceOp>(in.op);
  const TileValue &s = at(in.operands[0]);
  TileValue &r = at(in.results[0]);
  Combiner c{op.getKind(), s.elem};
  Lines lines(s.shape, int(int32_t(op.getAxis())));
  bool withShadow = shadow && isFloatElem(s.elem) && !c.isArg();
  r.bits.resize(size_t(lines.outer * lines.inner));
  r.shadow.clear();
  if (withShadow) r.shadow.resize(r.bits.size());
  std::vector<uint64_t> v(size_t(lines.n));
  std::vector<uint32_t> idx(size_t(lines.n));
  std::vector<double> sh(withShadow ? size_t(lines.n) : 0);
  for (int64_t o = 0; o < lines.outer; ++o)
    for (int64_t i = 0; i < lines.inner; ++i) {
      for (int64_t k = 0; k < lines.n; ++k) {
        v[k] = s.bits[lines.at(o, k, i)], idx[k] = uint32_t(k);
        if (withShadow) sh[k] = shadowAt(s, lines.at(o, k, i));
      }
      treeReduce(c, v, idx, withShadow ? &sh : nullptr);
      size_t out = size_t(o * lines.inner + i);
      r.bits[out] = c.isArg() ? uint64_t(idx[0]) : v[0];
      if (withShadow) r.shadow[out] = sh[0];
    }
}

void Machine::scan(Instr &in) {
  auto op = cast<tile::ScanOp>(in.op);
  const TileValue &s = at(in.operands[0]);
  TileValue &r = at(in.results[0]);
  Elem e = s.elem;
  Lines lines(s.shape, int(int32_t(op.getAxis())));
  bool withShadow = shadow && isFloatElem(e);
  r.bits.resize(s.size());
  r.shadow.clear();
  if (withShadow) r.shadow.resize(s.size());
  // level[k][j] = the pairwise-tree sum of the aligned block [j 2^k, (j + 1) 2^k).
  std::vector<std::vector<uint64_t>> level;
  std::vector<std::vector<double>> levelShadow;
  for (int64_t o = 0; o < lines.outer; ++o)
    for (int64_t i = 0; i < lines.inner; ++i) {
      level.assign(1, std::vector<uint64_t>(size_t(lines.n)));
      levelShadow.assign(1, std::vector<double>(withShadow ? size_t(lines.n) : 0));
      for (int64_t k = 0; k < lines.n; ++k) {
        level[0][k] = s.bits[lines.at(o, k, i)];
        if (withShadow) levelShadow[0][k] = shadowAt(s, lines.at(o, k, i));
      }
      while (level.back().size() > 1) {
        const std::vector<uint64_t> &below = level.back();
        std::vector<uint64_t> up(below.size() / 2);
        std::vector<double> upShadow(withShadow ? up.size() : 0);
        for (size_t j = 0; j < up.size(); ++j) {
          up[j] = addIn(e, below[2 * j], below[2 * j + 1]);
          if (withShadow) upShadow[j] = levelShadow.back()[2 * j] + levelShadow.back()[2 * j + 1];
        }
        level.push_back(std::move(up));
        levelShadow.push_back(std::move(upShadow));
      }
      // out[k]: the blocks of [0, k] that the binary digits of k + 1 give, largest first.
      for (int64_t k = 0; k < lines.n; ++k) {
        uint64_t m = uint64_t(k) + 1, start = 0, acc = 0;
        double accShadow = 0;
        bool first = true;
        for (int b = 63 - std::countl_zero(m); b >= 0; --b) {
          if (!(m & (uint64_t(1) << b))) continue;
          uint64_t block = level[b][start >> b];
          double blockShadow = withShadow ? levelShadow[b][start >> b] : 0;
          acc = first ? block : addIn(e, acc, block);
          accShadow = first ? blockShadow : accShadow + blockShadow;
          first = false;
          start += uint64_t(1) << b;
        }
        r.bits[lines.at(o, k, i)] = acc;
        if (withShadow) r.shadow[lines.at(o, k, i)] = accShadow;
      }
    }
}

// ---- arguments --------------------------------------------------------------------------------

std::string argLabel(const TracedKernel &k, size_t i) {
  return "kernel '" + k.name() + "' argument " + std::to_string(i) + " '" + k.signature()[i].name + "'";
}

std::string withArticle(DType t) {
  std::string name(toString(t));
  return (name[0] == 'f' || name[0] == 'i' ? "an " : "a ") + name;
}

Status checkArguments(const TracedKernel &k, Grid grid, std::span<const InterpArg> args) {
  const std::vector<ArgSpec> &sig = k.signature();
  if (args.size() != sig.size()) {
    std::string s;
    for (const ArgSpec &a : sig)
      s += (s.empty() ? "" : ", ") + std::string(a.kind == ArgKind::Buffer ? "buffer " : "scalar ") +
           std::string(toString(a.dtype)) + " " + a.name;
    return Status(StatusCode::InvalidArgument, "kernel '" + k.name() + "' expects " + std::to_string(sig.size()) +
                                                   " arguments (" + s + "), got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec &spec = sig[i];
    const InterpArg &arg = args[i];
    if (spec.kind != arg.kind()) {
      bool wantBuffer = spec.kind == ArgKind::Buffer;
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " is a " + (wantBuffer ? "buffer" : "scalar") +
                                                     " of " + std::string(toString(spec.dtype)) + ", but a " +
                                                     (wantBuffer ? "scalar" : "buffer") + " was passed");
    }
    if (spec.kind == ArgKind::Scalar) {
      if (arg.dtype() != spec.dtype)
        return Status(StatusCode::InvalidArgument, argLabel(k, i) + " is " + withArticle(spec.dtype) +
                                                       " scalar, but " + withArticle(arg.dtype()) +
                                                       " scalar was passed (no implicit conversion)");
      continue;
    }
    const HostBuffer *b = arg.buffer();
    if (!b)
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " is a null buffer");
    if (b->dtype != spec.dtype)
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " is a buffer of " + std::string(toString(spec.dtype)) +
                                                     ", but a buffer of " + std::string(toString(b->dtype)) + " was passed");
    if (b->bytes.size() % sizeOf(b->dtype))
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " holds " + std::to_string(b->bytes.size()) +
                                                     " bytes, not a whole number of " + std::string(toString(b->dtype)) +
                                                     " elements");
    if (!b->shadow.empty() && b->shadow.size() != b->count())
      return Status(StatusCode::InvalidArgument, argLabel(k, i) + " has a shadow of " + std::to_string(b->shadow.size()) +
                                                     " values for " + std::to_string(b->count()) +
                                                     " elements; leave it empty or give one per element");
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return Status(StatusCode::InvalidArgument, "kernel '" + k.name() + "' interpreted over an empty grid (" +
                                                   std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                                                   std::to_string(grid.z) + "): every dimension must be at least 1");
  return Status();
}

} // namespace
} // namespace interp

Status interpret(const TracedKernel &kernel, Grid grid, std::span<const InterpArg> args, const InterpretOptions &options) {
  if (!kernel.impl_)
    return Status(StatusCode::InvalidArgument, "interpret of an empty TracedKernel (trace failed?)");
  if (Status s = interp::checkArguments(kernel, grid, args); !s)
    return s;
  func::FuncOp f = kernel.impl_->kernelFunc();
  if (!f)
    return Status(StatusCode::InvalidArgument, "the kernel's module has no function marked 'tile.kernel'");
  OwningOpRef<ModuleOp> canonical;
  bool expand = options.portableExpansion && kernel.numerics() == Numerics::Portable;
  if (options.canonicalize || expand) {
    MLIRContext *ctx = kernel.impl_->context.get();
    std::string diagnostics;
    llvm::raw_string_ostream os(diagnostics);
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      os << d.getLocation() << ": " << d << "\n";
      return success();
    });
    canonical = kernel.impl_->module->clone();
    PassManager pm(ctx);
    if (expand)
      backend::addTilePasses(pm, true); // the compiler's own tile passes: the same IR the targets get
    else
      pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(*canonical)))
      return Status(StatusCode::Internal, "canonicalizing kernel '" + kernel.name() + "' failed:\n" + diagnostics);
    f = nullptr;
    for (auto g : canonical->getOps<func::FuncOp>())
      if (g->hasAttr(tile::kKernelAttr)) f = g;
    if (!f)
      return Status(StatusCode::Internal, "canonicalization removed kernel '" + kernel.name() + "'");
  }
  Result<interp::Prepared> prepared = interp::prepare(f);
  if (!prepared)
    return prepared.status();
  interp::Machine machine(*prepared, kernel, args, grid, options.shadow);
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x)
        if (Status s = machine.runProgram(x, y, z); !s)
          return s;
  return Status();
}

} // namespace tessera

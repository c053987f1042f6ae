// A thin layer over the tile_ir.v1 classes protoc generates for Java: expressions,
// regions and a statement list whose every statement carries the Java line that added it.
package tile.examples;

import java.util.function.Consumer;
import tile_ir.v1.TileIr.Allocate;
import tile_ir.v1.TileIr.Binary;
import tile_ir.v1.TileIr.BinaryOp;
import tile_ir.v1.TileIr.BufferDecl;
import tile_ir.v1.TileIr.BufferLoad;
import tile_ir.v1.TileIr.Copy;
import tile_ir.v1.TileIr.DataType;
import tile_ir.v1.TileIr.Expr;
import tile_ir.v1.TileIr.For;
import tile_ir.v1.TileIr.ForKind;
import tile_ir.v1.TileIr.IntImm;
import tile_ir.v1.TileIr.MemoryScope;
import tile_ir.v1.TileIr.Range;
import tile_ir.v1.TileIr.Region;
import tile_ir.v1.TileIr.ScalarType;
import tile_ir.v1.TileIr.Seq;
import tile_ir.v1.TileIr.SourceLocation;
import tile_ir.v1.TileIr.Stmt;
import tile_ir.v1.TileIr.Store;
import tile_ir.v1.TileIr.VarDecl;
import tile_ir.v1.TileIr.VarRef;

final class KernelBuilder {
  private final Seq.Builder stmts = Seq.newBuilder();

  // The producer's own position, so the reader's and verifier's messages name the Java
  // line (docs/PRODUCERS.md, "Source locations"). javac keeps line numbers by default; the
  // JVM knows no columns, so col stays 0 (the whole line).
  static SourceLocation callerLocation() {
    StackWalker.StackFrame frame =
        StackWalker.getInstance()
            .walk(
                frames ->
                    frames
                        .filter(f -> !f.getClassName().equals(KernelBuilder.class.getName()))
                        .findFirst()
                        .orElseThrow());
    return SourceLocation.newBuilder()
        .setFile(frame.getFileName())
        .setLine(frame.getLineNumber())
        .build();
  }

  static DataType dtype(ScalarType scalar) {
    return DataType.newBuilder().setScalar(scalar).build();
  }

  static VarDecl varDecl(String name, ScalarType scalar) {
    return VarDecl.newBuilder().setName(name).setDtype(dtype(scalar)).build();
  }

  static Expr i32(long value) {
    return Expr.newBuilder()
        .setIntImm(IntImm.newBuilder().setDtype(dtype(ScalarType.SCALAR_TYPE_I32)).setValue(value))
        .build();
  }

  static Expr var(String name) {
    return Expr.newBuilder().setVar(VarRef.newBuilder().setName(name)).build();
  }

  static Expr binary(BinaryOp op, Expr a, Expr b) {
    return Expr.newBuilder().setBinary(Binary.newBuilder().setOp(op).setA(a).setB(b)).build();
  }

  static Expr load(String buffer, Expr... indices) {
    BufferLoad.Builder load = BufferLoad.newBuilder().setBuffer(buffer);
    for (Expr index : indices) load.addIndices(index);
    return Expr.newBuilder().setBufferLoad(load).build();
  }

  static Range range(Expr min, Expr extent) {
    return Range.newBuilder().setMin(min).setExtent(extent).build();
  }

  // The schema has no short form for a whole buffer: every dimension is spelled out.
  static Region region(String buffer, Range... ranges) {
    Region.Builder region = Region.newBuilder().setBuffer(buffer);
    for (Range r : ranges) region.addRanges(r);
    return region.build();
  }

  static BufferDecl buffer(String name, ScalarType scalar, MemoryScope scope, Expr... shape) {
    BufferDecl.Builder decl =
        BufferDecl.newBuilder().setName(name).setDtype(dtype(scalar)).setScope(scope);
    for (Expr extent : shape) decl.addShape(extent);
    return decl.build();
  }

  KernelBuilder allocate(String name, ScalarType scalar, MemoryScope scope, Expr... shape) {
    return add(
        Stmt.newBuilder()
            .setAllocate(Allocate.newBuilder().setBuffer(buffer(name, scalar, scope, shape))));
  }

  KernelBuilder copy(Region src, Region dst) {
    return add(Stmt.newBuilder().setCopy(Copy.newBuilder().setSrc(src).setDst(dst)));
  }

  KernelBuilder store(String buffer, Expr value, Expr... indices) {
    Store.Builder store = Store.newBuilder().setBuffer(buffer).setValue(value);
    for (Expr index : indices) store.addIndices(index);
    return add(Stmt.newBuilder().setStore(store));
  }

  // An element-wise loop over [0, extent): layout inference maps it onto the threads.
  KernelBuilder parallelFor(String var, Expr extent, Consumer<KernelBuilder> body) {
    SourceLocation loc = callerLocation();  // the loop's line, not its body's last one
    KernelBuilder inner = new KernelBuilder();
    body.accept(inner);
    For.Builder loop =
        For.newBuilder()
            .setVar(varDecl(var, ScalarType.SCALAR_TYPE_I32))
            .setMin(i32(0))
            .setExtent(extent)
            .setKind(ForKind.FOR_KIND_PARALLEL)
            .setBody(inner.build());
    stmts.addStmts(Stmt.newBuilder().setFor(loop).setLoc(loc));
    return this;
  }

  Stmt build() {
    return Stmt.newBuilder().setSeq(stmts).build();
  }

  private KernelBuilder add(Stmt.Builder stmt) {
    stmts.addStmts(stmt.setLoc(callerLocation()));
    return this;
  }
}

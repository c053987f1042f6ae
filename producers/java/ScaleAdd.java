// Z = alpha * X + Y on f32 vectors of any length N, in tiles of BLOCK, written as a binary
// tile_ir.v1 module (.tilepb): docs/examples/scale_add.json's kernel, from Java.
// Usage: java -cp protobuf.jar:CLASSES tile.examples.ScaleAdd OUT.tilepb
package tile.examples;

import static tile.examples.KernelBuilder.*;
import static tile_ir.v1.TileIr.BinaryOp.BINARY_OP_ADD;
import static tile_ir.v1.TileIr.BinaryOp.BINARY_OP_CEIL_DIV;
import static tile_ir.v1.TileIr.BinaryOp.BINARY_OP_MUL;
import static tile_ir.v1.TileIr.MemoryScope.MEMORY_SCOPE_FRAGMENT;
import static tile_ir.v1.TileIr.MemoryScope.MEMORY_SCOPE_GLOBAL;
import static tile_ir.v1.TileIr.ScalarType.SCALAR_TYPE_F32;
import static tile_ir.v1.TileIr.ScalarType.SCALAR_TYPE_I32;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import tile_ir.v1.TileIr.Expr;
import tile_ir.v1.TileIr.GridAxis;
import tile_ir.v1.TileIr.Kernel;
import tile_ir.v1.TileIr.Launch;
import tile_ir.v1.TileIr.Module;
import tile_ir.v1.TileIr.Param;
import tile_ir.v1.TileIr.Range;
import tile_ir.v1.TileIr.SourceLocation;

public final class ScaleAdd {
  // One element per thread; N need not be a multiple (the last tile is ragged).
  static final int BLOCK = 64;

  static Kernel scaleAdd() {
    SourceLocation kernelLoc = callerLocation();
    Expr n = var("N");
    Expr block = i32(BLOCK);
    // This block's tile of a global vector, and the whole of a local one.
    Range globalTile = range(binary(BINARY_OP_MUL, var("bx"), block), block);
    Range wholeLocal = range(i32(0), block);

    KernelBuilder body = new KernelBuilder();
    body.allocate("X_l", SCALAR_TYPE_F32, MEMORY_SCOPE_FRAGMENT, block)
        .allocate("Y_l", SCALAR_TYPE_F32, MEMORY_SCOPE_FRAGMENT, block)
        .allocate("Z_l", SCALAR_TYPE_F32, MEMORY_SCOPE_FRAGMENT, block)
        .copy(region("X", globalTile), region("X_l", wholeLocal))
        .copy(region("Y", globalTile), region("Y_l", wholeLocal))
        .parallelFor(
            "i",
            block,
            loop ->
                loop.store(
                    "Z_l",
                    binary(
                        BINARY_OP_ADD,
                        binary(BINARY_OP_MUL, var("alpha"), load("X_l", var("i"))),
                        load("Y_l", var("i"))),
                    var("i")))
        .copy(region("Z_l", wholeLocal), region("Z", globalTile));

    return Kernel.newBuilder()
        .setName("scale_add")
        .addDims(varDecl("N", SCALAR_TYPE_I32))
        .addParams(vector("X", n))
        .addParams(vector("Y", n))
        .addParams(Param.newBuilder().setScalar(varDecl("alpha", SCALAR_TYPE_F32)))
        .addParams(vector("Z", n))
        .setLaunch(
            Launch.newBuilder()
                .addGrid(
                    GridAxis.newBuilder()
                        .setVar(varDecl("bx", SCALAR_TYPE_I32))
                        .setExtent(binary(BINARY_OP_CEIL_DIV, n, block)))
                .addThreads(BLOCK))
        .setBody(body.build())
        .setLoc(kernelLoc)
        .build();
  }

  static Param vector(String name, Expr length) {
    return Param.newBuilder()
        .setBuffer(buffer(name, SCALAR_TYPE_F32, MEMORY_SCOPE_GLOBAL, length))
        .build();
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: ScaleAdd OUT.tilepb");
      System.exit(2);
    }
    Module module =
        Module.newBuilder()
            .setIrVersion(1)  // no XOR, no requirements (docs/PRODUCERS.md)
            .setProducer("tile-java-example")
            .setProducerVersion("0.1.0")
            .addKernels(scaleAdd())
            .build();
    try (OutputStream out = new FileOutputStream(args[0])) {
      module.writeTo(out);
    }
  }
}

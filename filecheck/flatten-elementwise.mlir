// RUN: xdsl-opt -p flatten-elementwise --split-input-file %s | filecheck %s

// An elementwise op over whole buffers iterates over one dimension: its
// identity-mapped buffers are their one-dimensional views, a scalar operand
// stays as it is, and the comment stays on the op.
func.func @quantize(%x: memref<1x2x3x5xf32>, %scale: memref<f32>, %y: memref<1x2x3x5xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %scale : memref<1x2x3x5xf32>, memref<f32>) outs(%y : memref<1x2x3x5xi8>) attrs = {onnxc.comment = "QuantizeLinear q"} {
  ^bb0(%a: f32, %s: f32, %o: i8):
    %d = arith.divf %a, %s : f32
    %r = arith.fptosi %d : f32 to i8
    linalg.yield %r : i8
  }
  func.return
}

// CHECK-LABEL: func.func @quantize(
// CHECK:         %[[X:.*]] = memref.collapse_shape %x {{\[}}[0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x2x3x5xf32> into memref<30xf32>
// CHECK:         %[[Y:.*]] = memref.collapse_shape %y {{\[}}[0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<1x2x3x5xi8> into memref<30xi8>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %scale : memref<30xf32>, memref<f32>) outs(%[[Y]] : memref<30xi8>) attrs =  {onnxc.comment = "QuantizeLinear q"} {
// CHECK:           arith.divf

// -----

// A broadcast operand, a body that reads its indices, a reduction, a
// dynamic shape or a strided buffer keep their loop nests.
func.func @kept(%x: memref<2x3xf32>, %row: memref<3xf32>, %d: memref<?x3xf32>, %s: memref<2x3xf32, strided<[6, 1]>>, %y: memref<2x3xf32>, %sum: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %row : memref<2x3xf32>, memref<3xf32>) outs(%y : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x3xf32>) outs(%sum : memref<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%d : memref<?x3xf32>) outs(%d : memref<?x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : memref<2x3xf32, strided<[6, 1]>>) outs(%y : memref<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  func.return
}

// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     memref.collapse_shape
// CHECK-COUNT-5: iterator_types = ["parallel", {{"parallel"|"reduction"}}]

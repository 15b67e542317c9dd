// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The runtime's decoder reads the header (height, width, scratch bytes), the
// scratch is allocated at run time and the image decoded into it; the
// output is H x W x 3 when decoding succeeded and 0 x 0 x 3 when it did not
// (an unknown format, a corrupt stream), copied out of the scratch.
// CHECK-LABEL: func.func @decode(
// CHECK:         %[[STREAM:.*]] = onnxc.input
// CHECK-NEXT:    %[[H:.*]], %[[W:.*]], %[[BYTES:.*]] = onnxc.image_size %[[STREAM]] : memref<?xui8>
// CHECK-NEXT:    %[[SCRATCH:.*]] = memref.alloc(%[[BYTES]]) : memref<?xui8>
// CHECK-NEXT:    %[[OK:.*]] = onnxc.image_decode %[[STREAM]], %[[SCRATCH]] pixel_format 1 : i64 : memref<?xui8>, memref<?xui8>
// CHECK-NEXT:    %[[HEIGHT:.*]] = arith.select %[[OK]], %[[H]], %{{.*}} : index
// CHECK-NEXT:    %[[WIDTH:.*]] = arith.select %[[OK]], %[[W]], %{{.*}} : index
// CHECK:         %[[IMAGE:.*]] = onnxc.output %{{.*}}[%[[HEIGHT]], %[[WIDTH]]]
// CHECK:         scf.for %[[Y:[^ ]+]] = %{{.*}} to %[[HEIGHT]] step
// CHECK:           scf.for %[[X:[^ ]+]] = %{{.*}} to %[[WIDTH]] step
// CHECK:             scf.for %[[C:[^ ]+]] =
// CHECK:               %[[ROW:.*]] = arith.muli %[[Y]], %[[WIDTH]] : index
// CHECK-NEXT:          %[[PIXEL:.*]] = arith.addi %[[ROW]], %[[X]] : index
// CHECK:               %[[AT:.*]] = arith.addi %{{.*}}, %[[C]] : index
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[SCRATCH]][%[[AT]]] : memref<?xui8>
// CHECK-NEXT:          memref.store %[[V]], %[[IMAGE]][%[[Y]], %[[X]], %[[C]]] : memref<?x?x3xui8>

func.func @decode(%stream: tensor<?xui8, ["N"]>) -> tensor<?x?x3xui8, ["H", "W"]> attributes {onnxc.dims = ["N"], onnxc.input_names = ["stream"], onnxc.output_names = ["image"]} {
  %image = "onnx.ImageDecoder"(%stream) <{pixel_format = "BGR"}> {onnx_node_name = "decoder"} : (tensor<?xui8, ["N"]>) -> tensor<?x?x3xui8, ["H", "W"]>
  func.return %image : tensor<?x?x3xui8, ["H", "W"]>
}

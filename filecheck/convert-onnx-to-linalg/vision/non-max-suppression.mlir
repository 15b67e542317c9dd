// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Rows go into an int64 buffer of batches x classes x min(3, boxes) rows.
// Per batch and class, 6 rounds each scan the scores for the best box after
// the one taken last (a lower score, or an equal one at a later index) that
// is no NaN and beats score_threshold; it is kept while there is room and
// no kept box of the class overlaps it by more than iou_threshold. The
// count is bounded by the buffer's rows, which are copied to the output.
// CHECK-LABEL: func.func @nms(
// CHECK-SAME:      %K: index, %[[BOXES:[^:]+]]: memref<1x6x4xf32>, %[[SCORES:[^:]+]]: memref<1x2x6xf32>, %[[IOU:[^:]+]]: memref<1xf32>, %[[LEAST:[^:]+]]: memref<1xf32>, %{{.*}}: memref<?x3xi64>)
// CHECK:         %[[ROWS:.*]] = memref.alloc() : memref<6x3xi64>
// CHECK:         %[[THRESHOLD:.*]] = memref.load %[[IOU]][%{{.*}}] {{.*}} : memref<1xf32>
// CHECK:         %[[MIN_SCORE:.*]] = memref.load %[[LEAST]][%{{.*}}] {{.*}} : memref<1xf32>
// CHECK:         %[[TOTAL:.*]] = scf.for %[[B:[^ ]+]] = {{.*}} -> (index) {
// CHECK:           scf.for %[[C:[^ ]+]] = {{.*}} iter_args(%[[FIRST:.*]] = %{{.*}}) -> (index) {
// CHECK:             scf.for {{.*}} iter_args(%[[LAST_SCORE:[^ ]+]] = %{{.*}}, %[[LAST:[^ ]+]] = %{{.*}}, %[[TAKEN:[^ ]+]] = %{{.*}}, %[[COUNT:[^ ]+]] = %[[FIRST]]) -> (f32, index, i1, index) {
// CHECK:               %{{.*}}, %[[BEST:[^ ]+]], %[[SEEN:[^ ]+]] = scf.for %[[J:[^ ]+]] = {{.*}} -> (f32, index, i1) {
// CHECK-NEXT:            %[[S:.*]] = memref.load %[[SCORES]][%[[B]], %[[C]], %[[J]]] : memref<1x2x6xf32>
// CHECK-NEXT:            arith.cmpf olt, %[[S]], %[[LAST_SCORE]] : f32
// CHECK-NEXT:            arith.cmpf oeq, %[[S]], %[[LAST_SCORE]] : f32
// CHECK-NEXT:            arith.cmpi sgt, %[[J]], %[[LAST]] : index
// CHECK:                 arith.cmpf oeq, %[[S]], %[[S]] : f32
// CHECK:                 arith.cmpf ogt, %[[S]], %[[MIN_SCORE]] : f32
// CHECK:               %[[KEPT:.*]] = arith.subi %[[COUNT]], %[[FIRST]] : index
// CHECK-NEXT:          %[[ROOM:.*]] = arith.cmpi slt, %[[KEPT]], %{{.*}} : index
// CHECK:               memref.load %[[BOXES]][%[[B]], %[[BEST]], %{{.*}}] : memref<1x6x4xf32>
// CHECK:               %[[HIT:.*]] = scf.for %[[ROW:[^ ]+]] = %[[FIRST]] to %[[COUNT]] {{.*}} -> (i1) {
// CHECK:                 memref.load %[[ROWS]][%[[ROW]], %{{.*}}] : memref<6x3xi64>
// CHECK:                 %[[RATIO:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:            arith.cmpf ogt, %[[RATIO]], %[[THRESHOLD]] : f32
// CHECK:               %[[OPEN:.*]] = arith.andi %[[SEEN]], %[[ROOM]] : i1
// CHECK:               %[[KEEP:.*]] = arith.andi %[[OPEN]], %{{.*}} : i1
// CHECK-NEXT:          scf.if %[[KEEP]] {
// CHECK-COUNT-3:         memref.store %{{.*}}, %[[ROWS]][%[[COUNT]], %{{.*}}] : memref<6x3xi64>
// CHECK:         %[[FOUND:.*]] = arith.minsi %[[TOTAL]], %{{.*}} : index
// CHECK:         %[[Y:.*]] = onnxc.output
// CHECK:         scf.for %[[I:[^ ]+]] = %{{.*}} to %[[FOUND]] step
// CHECK:           scf.for %[[K:[^ ]+]] =
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[ROWS]][%[[I]], %[[K]]] : memref<6x3xi64>
// CHECK-NEXT:        memref.store %[[V]], %[[Y]][%[[I]], %[[K]]] : memref<?x3xi64>

func.func @nms(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x2x6xf32>, %iou: tensor<1xf32>, %score: tensor<1xf32>) -> tensor<?x3xi64, ["K"]> attributes {onnxc.dims = ["K"], onnxc.input_names = ["boxes", "scores", "iou", "score"], onnxc.output_names = ["y"]} {
  %limit = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "onnx.NonMaxSuppression"(%boxes, %scores, %limit, %iou, %score) {onnx_node_name = "nms"} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64, ["K"]>
  func.return %y : tensor<?x3xi64, ["K"]>
}

// -----

// center_point_box 1: a box is its centre -/+ half its width and height.
// Without max_output_boxes_per_class there are no rows: no loops at all.
// CHECK-LABEL: func.func @nms_centered(
// CHECK-NOT:     scf.for
// CHECK:         func.return

func.func @nms_centered(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x2x6xf32>) -> tensor<0x3xi64> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.NonMaxSuppression"(%boxes, %scores, %none, %none, %none) <{center_point_box = 1 : i64}> {onnx_node_name = "nms"} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, none, none, none) -> tensor<0x3xi64>
  func.return %y : tensor<0x3xi64>
}

// -----

// center_point_box 1 with a limit computed at run time: the row buffer's
// size is batches x classes x min(max(limit, 0), boxes); the box extents
// come from centre and half sizes.
// CHECK-LABEL: func.func @nms_centered_limit(
// CHECK:         %[[LIMIT:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[ROWS:.*]] = memref.alloc(%{{.*}}) : memref<?x3xi64>
// CHECK:         scf.for
// CHECK:           %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[HALF_W:.*]] = arith.divf %{{.*}}, %[[TWO]] : f32
// CHECK-NEXT:      %[[HALF_H:.*]] = arith.divf %{{.*}}, %[[TWO]] : f32
// CHECK-NEXT:      arith.subf %{{.*}}, %[[HALF_W]] : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[HALF_W]] : f32

func.func @nms_centered_limit(%boxes: tensor<2x6x4xf32>, %scores: tensor<2x3x6xf32>, %limit: tensor<1xi64>) -> tensor<?x3xi64, ["K"]> attributes {onnxc.dims = ["K"], onnxc.input_names = ["boxes", "scores", "limit"], onnxc.output_names = ["y"]} {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.NonMaxSuppression"(%boxes, %scores, %limit, %none, %none) <{center_point_box = 1 : i64}> {onnx_node_name = "nms"} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64, ["K"]>
  func.return %y : tensor<?x3xi64, ["K"]>
}

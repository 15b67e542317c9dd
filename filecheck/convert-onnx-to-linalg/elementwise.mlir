// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Add"(%a, %b) {onnx_node_name = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @add(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @sub(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sub"(%a, %b) {onnx_node_name = "sub"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sub(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<2x1xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<2x1xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @mul(%a: tensor<2x3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %r = "onnx.Mul"(%a, %b) {onnx_node_name = "mul"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mul(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<f32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<f32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @div(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Div"(%a, %b) {onnx_node_name = "div"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @div(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @pow(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Pow"(%a, %b) {onnx_node_name = "pow"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.powf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @pow_integer_exponent(%a: tensor<2x3xf32>, %b: tensor<3xi64>) -> tensor<2x3xf32> {
  %r = "onnx.Pow"(%a, %b) {onnx_node_name = "pow_integer_exponent"} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow_integer_exponent(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xi64>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xi64>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK-NEXT:      %[[R:.*]] = math.powf %[[X]], %[[E]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @min(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Min"(%a, %b) {onnx_node_name = "min"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @min(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @max_variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Max"(%a, %b, %c) {onnx_node_name = "max"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @max_variadic(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[XY:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[XY]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @max_single(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Max"(%a) {onnx_node_name = "max"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @max_single(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[X]] : f32

// -----

func.func @abs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Abs"(%x) {onnx_node_name = "abs"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @abs(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @neg(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Neg"(%x) {onnx_node_name = "neg"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @neg(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Exp"(%x) {onnx_node_name = "exp"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @exp(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @log(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Log"(%x) {onnx_node_name = "log"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.log %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @sqrt(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sqrt"(%x) {onnx_node_name = "sqrt"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sqrt(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.sqrt %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Tanh"(%x) {onnx_node_name = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @tanh(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @erf(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Erf"(%x) {onnx_node_name = "erf"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @erf(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.erf %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @reciprocal(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Reciprocal"(%x) {onnx_node_name = "reciprocal"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reciprocal(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[ONE]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Relu"(%x) {onnx_node_name = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @relu(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> {onnx_node_name = "leaky_relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NEGATIVE:.*]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NEGATIVE]], %[[SCALED]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @leaky_relu_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.LeakyRelu"(%x) {onnx_node_name = "leaky_relu_default"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu_default(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 1.000000e-02 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32

// -----

func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sigmoid"(%x) {onnx_node_name = "sigmoid"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @hard_sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.HardSigmoid"(%x) <{alpha = 5.000000e-01 : f32, beta = 2.500000e-01 : f32}> {onnx_node_name = "hard_sigmoid"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @hard_sigmoid(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[BETA:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.addf %[[SCALED]], %[[BETA]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.minimumf %[[SHIFTED]], %[[ONE]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[GATE:.*]] = arith.maximumf %[[LOW]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[GATE]] : f32

// -----

func.func @hard_swish(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.HardSwish"(%x) {onnx_node_name = "hard_swish"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @hard_swish(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.addf %[[SCALED]], %[[BETA]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.minimumf %[[SHIFTED]], %[[ONE]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[GATE:.*]] = arith.maximumf %[[LOW]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[X]], %[[GATE]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @clip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.Constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> {onnx_node_name = "lo"} : () -> tensor<f32>
  %hi = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}> {onnx_node_name = "hi"} : () -> tensor<f32>
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip"} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[LOW]], %[[HI]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @clip_max_only(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.NoValue"() : () -> none
  %hi = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}> {onnx_node_name = "hi"} : () -> tensor<f32>
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip_max_only"} : (tensor<2x3xf32>, none, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip_max_only(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[X]], %[[HI]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @clip_no_bounds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.NoValue"() : () -> none
  %hi = "onnx.NoValue"() : () -> none
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip_no_bounds"} : (tensor<2x3xf32>, none, none) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip_no_bounds(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[X]] : f32

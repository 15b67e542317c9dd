// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// TF on [N, C] int32 with unigrams and bigrams, one skip: one sorted table
// per length (tokens in X's type, the output column of each); loops over the
// rows, the skip distances 1..2 and the starts; unigrams only at distance 1,
// bigrams only where their last token is in the row; a bisection (one step
// for two unigrams) then an equality test, and 1 added to the column.

// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_grams1", type = memref<2x1xi32>, initial_value = dense<{{\[}}[3], [7]]> : memref<2x1xi32>
// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_columns1", type = memref<2xi32>, initial_value = dense<[0, 1]> : memref<2xi32>
// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_grams2", type = memref<1x2xi32>, initial_value = dense<{{\[}}[3, 7]]> : memref<1x2xi32>
// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_columns2", type = memref<1xi32>, initial_value = dense<2> : memref<1xi32>
// CHECK-LABEL: func.func @tfidf_tf(
// CHECK-SAME:      %[[X:.*]]: memref<2x5xi32>, %[[Y:.*]]: memref<2x3xf32>)
// CHECK:         %[[C:.*]] = arith.constant 5 : index
// CHECK:         linalg.fill {{.*}} outs(%[[Y]] : memref<2x3xf32>)
// CHECK:         %[[GRAMS1:.*]] = memref.get_global @tfidf_grams1
// CHECK:         %[[COLUMNS1:.*]] = memref.get_global @tfidf_columns1
// CHECK:         %[[GRAMS2:.*]] = memref.get_global @tfidf_grams2
// CHECK:         scf.for %[[N:[^ ]+]] =
// CHECK:           %[[END:.*]] = arith.constant 3 : index
// CHECK:           scf.for %[[D:[^ ]+]] = %{{.*}} to %[[END]]
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK:             scf.for %[[S:[^ ]+]] = %{{.*}} to %[[C]]
// CHECK-NEXT:          scf.if %[[FIRST]] {
// CHECK-NEXT:            %[[T:.*]] = memref.load %[[X]][%[[N]], %[[S]]] : memref<2x5xi32>
// CHECK:                 %[[LO:.*]], %{{.*}} = scf.for {{.*}} iter_args({{.*}}) -> (index, index) {
// CHECK:                   arith.divsi
// CHECK:                   arith.cmpi slt, %[[T]], %{{.*}} : i32
// CHECK:                   scf.yield
// CHECK:                 %[[CANDIDATE:.*]] = memref.load %[[GRAMS1]][%[[LO]], %{{.*}}] : memref<2x1xi32>
// CHECK-NEXT:            %[[EQUAL:.*]] = arith.cmpi eq, %[[T]], %[[CANDIDATE]] : i32
// CHECK-NEXT:            scf.if %[[EQUAL]] {
// CHECK-NEXT:              %[[PLACE:.*]] = memref.load %[[COLUMNS1]][%[[LO]]] : memref<2xi32>
// CHECK-NEXT:              %[[COLUMN:.*]] = arith.index_cast %[[PLACE]] : i32 to index
// CHECK-NEXT:              %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:              %[[OLD:.*]] = memref.load %[[Y]][%[[N]], %[[COLUMN]]] : memref<2x3xf32>
// CHECK-NEXT:              %[[NEW:.*]] = arith.addf %[[OLD]], %[[ONE]] : f32
// CHECK-NEXT:              memref.store %[[NEW]], %[[Y]][%[[N]], %[[COLUMN]]] : memref<2x3xf32>
// CHECK:               %[[LAST:.*]] = arith.addi %[[S]], %[[D]] : index
// CHECK-NEXT:          %[[FITS:.*]] = arith.cmpi slt, %[[LAST]], %[[C]] : index
// CHECK-NEXT:          scf.if %[[FITS]] {
// CHECK-NEXT:            %[[A:.*]] = memref.load %[[X]][%[[N]], %[[S]]] : memref<2x5xi32>
// CHECK-NEXT:            %[[AT:.*]] = arith.addi %[[S]], %[[D]] : index
// CHECK-NEXT:            %[[B:.*]] = memref.load %[[X]][%[[N]], %[[AT]]] : memref<2x5xi32>
// CHECK-NOT:             scf.for
// CHECK:                 memref.load %[[GRAMS2]]
// CHECK:                 arith.cmpi eq, %[[A]]
// CHECK:                 arith.cmpi eq, %[[B]]
// CHECK:                 arith.addf

func.func @tfidf_tf(%x: tensor<2x5xi32>) -> tensor<2x3xf32> {
  %y = "onnx.TfIdfVectorizer"(%x) <{mode = "TF", min_gram_length = 1 : i64, max_gram_length = 2 : i64, max_skip_count = 1 : i64, ngram_counts = array<i64: 0, 2>, ngram_indexes = array<i64: 1, 0, 2>, pool_int64s = array<i64: 7, 3, 3, 7>}> {onnx_node_name = "tfidf"} : (tensor<2x5xi32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// IDF on [C] with bigrams only (the unigram 9 is below min_gram_length): the
// weights are per pool n-gram, sorted with their n-grams, and written (not
// added) to the column; without unigrams no distance test is built.

// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_weights2", type = memref<2xf32>, initial_value = dense<[2.500000e+00, 1.500000e+00]> : memref<2xf32>
// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_columns2", type = memref<2xi32>, initial_value = dense<[0, 1]> : memref<2xi32>
// CHECK-DAG:   "memref.global"() <{sym_name = "tfidf_grams2", type = memref<2x2xi64>, initial_value = dense<{{\[}}[1, 2], [4, 5]]> : memref<2x2xi64>
// CHECK-LABEL: func.func @tfidf_idf(
// CHECK-SAME:      %[[X:.*]]: memref<6xi64>, %[[Y:.*]]: memref<2xf32>)
// CHECK:         %[[WEIGHTS:.*]] = memref.get_global @tfidf_weights2
// CHECK:         scf.for %[[D:[^ ]+]] =
// CHECK-NOT:       arith.cmpi eq, %[[D]]
// CHECK:           scf.for %[[S:[^ ]+]] =
// CHECK:             scf.if %{{.*}} {
// CHECK:               scf.for {{.*}} iter_args
// CHECK:               scf.if %{{.*}} {
// CHECK-NEXT:            %[[PLACE:.*]] = memref.load
// CHECK-NEXT:            %[[COLUMN:.*]] = arith.index_cast %[[PLACE]] : i32 to index
// CHECK-NEXT:            %[[W:.*]] = memref.load %[[WEIGHTS]][%{{.*}}] : memref<2xf32>
// CHECK-NEXT:            memref.store %[[W]], %[[Y]][%[[COLUMN]]] : memref<2xf32>

func.func @tfidf_idf(%x: tensor<6xi64>) -> tensor<2xf32> {
  %y = "onnx.TfIdfVectorizer"(%x) <{mode = "IDF", min_gram_length = 2 : i64, max_gram_length = 2 : i64, max_skip_count = 0 : i64, ngram_counts = array<i64: 0, 1>, ngram_indexes = array<i64: 0, 1, 0>, pool_int64s = array<i64: 9, 4, 5, 1, 2>, weights = array<f32: 0.5, 1.5, 2.5>}> {onnx_node_name = "tfidf"} : (tensor<6xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

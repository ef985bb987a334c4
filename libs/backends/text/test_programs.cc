// Generated once from testdata/golden/<spec>/<stage>.json (locations dropped), so that the
// backend tests are self-contained. They are real IR of real specs: read with read_program.
#include "libs/backends/text/test_programs.h"

#include <string>

#include "libs/ir/ir_json.h"

namespace t2s {
namespace testing {

namespace {

// testdata/golden/gemm/stt.json
const char* const kGemmStt = R"json({"t2s_ir": 1, "stage": "stt", "vars": ["i", "j", "k"],
 "inputs": [
  {"name": "a", "type": "float32", "dims": 2, "extents": ["4", "8"]},
  {"name": "b", "type": "float32", "dims": 2, "extents": ["8", "4"]}
 ],
 "funcs": [
  {"name": "A", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(j == 0, a(i, k), A(i, j - 1, k))"},
  {"name": "B", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(i == 0, b(k, j), B(i - 1, j, k))"},
  {"name": "C", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(k == 0, 0.0f, C(i, j, k - 1)) + A(i, j, k) * B(i, j, k)"},
  {"name": "c", "type": "float32", "args": ["i", "j"], "place": "device", "declared": false, "definition": "select(k == 7, C(i, j, k))"}
 ],
 "directives": [
  {"func": "A", "name": "merge_ures", "args": ["B", "C", "c"]},
  {"func": "A", "name": "set_bounds", "args": ["i", "0", "4", "j", "0", "4", "k", "0", "8"]},
  {"func": "A", "name": "space_time_transform", "args": [["i", "j"], [], "SpaceTimeTransform::NoCheckTime"]}
 ],
 "buffers": [
  {"name": "c", "type": "float32", "bounds": [["0", "4"], ["0", "4"]]}
 ],
 "output": {"func": "c", "extents": ["4", "4"]},
 "kernels": [
  {"name": "A", "place": "device", "body": [
    {"for": "k", "min": "0", "extent": "8", "kind": "serial", "body": [
      {"for": "j", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
          {"let": "A_val", "value": "select(j == 0, a(i, k), A_shreg(i, j - 1, 0))", "body": [
            {"provide": "A_shreg", "args": ["i", "j", "0"], "value": "A_val"},
            {"let": "B_val", "value": "select(i == 0, b(k, j), B_shreg(i - 1, j, 0))", "body": [
              {"provide": "B_shreg", "args": ["i", "j", "0"], "value": "B_val"},
              {"let": "C_val", "value": "select(k == 0, 0.0f, C_shreg(i, j, 0)) + A_val * B_val", "body": [
                {"provide": "C_shreg", "args": ["i", "j", "0"], "value": "C_val"},
                {"if": "k == 7", "then": [
                  {"provide": "c", "args": ["i", "j"], "value": "C_val"}
                ], "else": []}
              ]}
            ]}
          ]}
        ]}
      ]}
    ]}
  ]}
 ],
 "channels": [],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [0, 1, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "B_shreg", "func": "B", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [1, 0, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "C_shreg", "func": "C", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [0, 0, 1], "time_distance": 1, "period": 1, "naive": 2}
 ]
}
)json";

// testdata/golden/seed000_abc/stt.json
const char* const kSeed000AbcStt = R"json({"t2s_ir": 1, "stage": "stt", "vars": ["i", "j", "k"],
 "inputs": [
  {"name": "a", "type": "int32", "dims": 2, "extents": ["10", "10"]},
  {"name": "b", "type": "int32", "dims": 2, "extents": ["10", "10"]}
 ],
 "funcs": [
  {"name": "A", "type": "int32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(i == 0, a(j, k), A(i - 1, j, k))"},
  {"name": "B", "type": "int32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(j == 0, b(i, k), B(i, j - 1, k))"},
  {"name": "C", "type": "int32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(k == 0, 0, C(i, j, k - 1)) + A(i, j, k) * B(i, j, k)"},
  {"name": "c", "type": "int32", "args": ["i", "j"], "place": "host", "declared": false, "definition": "select(k == 9, C(i, j, k))"}
 ],
 "directives": [
  {"func": "A", "name": "merge_ures", "args": ["B", "C", "c"]},
  {"func": "A", "name": "set_bounds", "args": ["i", "0", "10", "j", "0", "10", "k", "0", "10"]},
  {"func": "A", "name": "space_time_transform", "args": [["i", "j"], ["2", "3"], "SpaceTimeTransform::NoCheckTime"]},
  {"func": "A", "name": "space_time_transform", "args": [["i"], ["2"], "SpaceTimeTransform::NoCheckTime"]}
 ],
 "buffers": [
  {"name": "c", "type": "int32", "bounds": [["0", "10"], ["0", "10"]]}
 ],
 "output": {"func": "c", "extents": ["10", "10"]},
 "kernels": [
  {"name": "A", "place": "host", "body": [
    {"for": "t1", "min": "0", "extent": "55", "kind": "serial", "body": [
      {"for": "t2", "min": "0", "extent": "28", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "10", "kind": "unrolled", "body": [
          {"let": "j", "value": "t2 - 2 * i", "body": [
            {"let": "k", "value": "t1 - 2 * i - 3 * j", "body": [
              {"if": "0 <= j && j < 10 && 0 <= k && k < 10", "then": [
                {"let": "A_fifo_val", "value": "select(1 <= i, pop(A_fifo, i - 1), 0)", "body": [
                  {"let": "A_val", "value": "select(i == 0, a(j, k), A_fifo_val)", "body": [
                    {"if": "i < 9", "then": [
                      {"push": "A_fifo", "args": ["i"], "value": "A_val"}
                    ], "else": []},
                    {"let": "B_fifo_val", "value": "select(1 <= j, pop(B_fifo, i), 0)", "body": [
                      {"let": "B_val", "value": "select(j == 0, b(i, k), B_fifo_val)", "body": [
                        {"if": "j < 9", "then": [
                          {"push": "B_fifo", "args": ["i"], "value": "B_val"}
                        ], "else": []},
                        {"let": "C_fifo_val", "value": "select(1 <= k, pop(C_fifo, i), 0)", "body": [
                          {"let": "C_val", "value": "select(k == 0, 0, C_fifo_val) + A_val * B_val", "body": [
                            {"if": "k < 9", "then": [
                              {"push": "C_fifo", "args": ["i"], "value": "C_val"}
                            ], "else": []},
                            {"if": "k == 9", "then": [
                              {"provide": "c", "args": ["i", "j"], "value": "C_val"}
                            ], "else": []}
                          ]}
                        ]}
                      ]}
                    ]}
                  ]}
                ]}
              ], "else": []}
            ]}
          ]}
        ]}
      ]}
    ]}
  ]}
 ],
 "channels": [],
 "registers": [
  {"name": "A_fifo", "func": "A", "kernel": "A", "type": "int32", "kind": "fifo", "shape": [10], "depth": 9, "distance": [1, 0, 0], "time_distance": 58, "period": 1, "naive": 59},
  {"name": "B_fifo", "func": "B", "kernel": "A", "type": "int32", "kind": "fifo", "shape": [10], "depth": 10, "distance": [0, 1, 0], "time_distance": 85, "period": 1, "naive": 86},
  {"name": "C_fifo", "func": "C", "kernel": "A", "type": "int32", "kind": "fifo", "shape": [10], "depth": 3, "distance": [0, 0, 1], "time_distance": 28, "period": 1, "naive": 29}
 ]
}
)json";

// testdata/golden/isolate_consumer/stt.json
const char* const kIsolateConsumerStt =
    R"json({"t2s_ir": 1, "stage": "stt", "vars": ["i", "j", "k"],
 "inputs": [
  {"name": "a", "type": "float32", "dims": 2, "extents": ["4", "8"]},
  {"name": "b", "type": "float32", "dims": 2, "extents": ["8", "4"]}
 ],
 "funcs": [
  {"name": "A", "type": "float32", "args": ["i", "j", "k"], "place": "device", "declared": true, "definition": "select(j == 0, a(i, k), A(i, j - 1, k))"},
  {"name": "B", "type": "float32", "args": ["i", "j", "k"], "place": "device", "declared": true, "definition": "select(i == 0, b(k, j), B(i - 1, j, k))"},
  {"name": "C", "type": "float32", "args": ["i", "j", "k"], "place": "device", "declared": true, "definition": "select(k == 0, 0.0f, C(i, j, k - 1)) + A(i, j, k) * B(i, j, k)"},
  {"name": "c", "type": "float32", "args": ["i", "j"], "place": "device", "declared": false, "definition": "select(k == 7, C(i, j, k))"},
  {"name": "feederA", "type": null, "args": [], "place": "device", "declared": false, "definition": null},
  {"name": "drainer", "type": null, "args": [], "place": "device", "declared": false, "definition": null},
  {"name": "collector", "type": null, "args": [], "place": "device", "declared": false, "definition": null}
 ],
 "directives": [
  {"func": "A", "name": "merge_ures", "args": ["B", "C", "c"]},
  {"func": "A", "name": "set_bounds", "args": ["i", "0", "4", "j", "0", "4", "k", "0", "8"]},
  {"func": "A", "name": "space_time_transform", "args": [["i", "j"], [], "SpaceTimeTransform::NoCheckTime"]},
  {"func": "A", "name": "isolate_producer_chain", "args": ["a", "feederA"]},
  {"func": "c", "name": "isolate_consumer_chain", "args": ["drainer", "collector"]},
  {"func": "collector", "name": "min_depth", "args": ["4"]}
 ],
 "buffers": [
  {"name": "collector", "type": "float32", "bounds": [["0", "4"], ["0", "4"]]}
 ],
 "output": {"func": "collector", "extents": ["4", "4"]},
 "kernels": [
  {"name": "feederA", "place": "device", "body": [
    {"for": "k", "min": "0", "extent": "8", "kind": "serial", "body": [
      {"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
          {"if": "j == 0", "then": [
            {"write_channel": "feederA_to_A", "index": [], "value": "a(i, k)"}
          ], "else": []}
        ]}
      ]}
    ]}
  ]},
  {"name": "A", "place": "device", "body": [
    {"for": "k", "min": "0", "extent": "8", "kind": "serial", "body": [
      {"for": "j", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
          {"let": "A_val", "value": "select(j == 0, read_channel(feederA_to_A), A_shreg(i, j - 1, 0))", "body": [
            {"provide": "A_shreg", "args": ["i", "j", "0"], "value": "A_val"},
            {"let": "B_val", "value": "select(i == 0, b(k, j), B_shreg(i - 1, j, 0))", "body": [
              {"provide": "B_shreg", "args": ["i", "j", "0"], "value": "B_val"},
              {"let": "C_val", "value": "select(k == 0, 0.0f, C_shreg(i, j, 0)) + A_val * B_val", "body": [
                {"provide": "C_shreg", "args": ["i", "j", "0"], "value": "C_val"},
                {"if": "k == 7", "then": [
                  {"write_channel": "c_to_drainer", "index": [], "value": "C_val"}
                ], "else": []}
              ]}
            ]}
          ]}
        ]}
      ]}
    ]}
  ]},
  {"name": "drainer", "place": "device", "body": [
    {"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"write_channel": "drainer_to_collector", "index": [], "value": "read_channel(c_to_drainer)"}
      ]}
    ]}
  ]},
  {"name": "collector", "place": "device", "body": [
    {"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"provide": "collector", "args": ["i", "j"], "value": "read_channel(drainer_to_collector)"}
      ]}
    ]}
  ]}
 ],
 "channels": [
  {"name": "c_to_drainer", "type": "float32", "dims": [], "depth": 0, "producer": "A", "consumer": "drainer"},
  {"name": "drainer_to_collector", "type": "float32", "dims": [], "depth": 4, "producer": "drainer", "consumer": "collector"},
  {"name": "feederA_to_A", "type": "float32", "dims": [], "depth": 0, "producer": "feederA", "consumer": "A"}
 ],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [0, 1, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "B_shreg", "func": "B", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [1, 0, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "C_shreg", "func": "C", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4], "depth": 1, "distance": [0, 0, 1], "time_distance": 1, "period": 1, "naive": 2}
 ]
}
)json";

// testdata/golden/gemm_projection/stt.json
const char* const kGemmProjectionStt =
    R"json({"t2s_ir": 1, "stage": "stt", "vars": ["i", "j", "k", "s", "t"],
 "inputs": [
  {"name": "a", "type": "float32", "dims": 2, "extents": ["4", "8"]},
  {"name": "b", "type": "float32", "dims": 2, "extents": ["8", "4"]}
 ],
 "funcs": [
  {"name": "A", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(j == 0, a(i, k), A(i, j - 1, k))"},
  {"name": "B", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(i == 0, b(k, j), B(i - 1, j, k))"},
  {"name": "C", "type": "float32", "args": ["i", "j", "k"], "place": "host", "declared": true, "definition": "select(k == 0, 0.0f, C(i, j, k - 1)) + A(i, j, k) * B(i, j, k)"},
  {"name": "c", "type": "float32", "args": ["i", "j"], "place": "device", "declared": false, "definition": "select(k == 7, C(i, j, k))"}
 ],
 "directives": [
  {"func": "A", "name": "merge_ures", "args": ["B", "C", "c"]},
  {"func": "A", "name": "set_bounds", "args": ["i", "0", "4", "j", "0", "4", "k", "0", "8"]},
  {"func": "A", "name": "space_time_transform", "args": [["i", "j", "k"], ["s", "t"], [["1", "0", "0"], ["0", "8", "1"]], [["i", "s"], ["j", "t / 8"], ["k", "t % 8"]], "SpaceTimeTransform::NoCheckTime"]}
 ],
 "buffers": [
  {"name": "c", "type": "float32", "bounds": [["0", "4"], ["0", "4"]]}
 ],
 "output": {"func": "c", "extents": ["4", "4"]},
 "kernels": [
  {"name": "A", "place": "device", "body": [
    {"for": "t", "min": "0", "extent": "32", "kind": "serial", "body": [
      {"for": "s", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"let": "i", "value": "s", "body": [
          {"let": "j", "value": "t / 8", "body": [
            {"let": "k", "value": "t % 8", "body": [
              {"let": "A_val", "value": "select(j == 0, a(i, k), A_shreg(s, 7))", "body": [
                {"shift": "A_shreg", "args": ["s"]},
                {"provide": "A_shreg", "args": ["s", "0"], "value": "A_val"},
                {"let": "B_val", "value": "select(i == 0, b(k, j), B_shreg(s - 1, 0))", "body": [
                  {"provide": "B_shreg", "args": ["s", "0"], "value": "B_val"},
                  {"let": "C_val", "value": "select(k == 0, 0.0f, C_shreg(s, 0)) + A_val * B_val", "body": [
                    {"provide": "C_shreg", "args": ["s", "0"], "value": "C_val"},
                    {"if": "k == 7", "then": [
                      {"provide": "c", "args": ["i", "j"], "value": "C_val"}
                    ], "else": []}
                  ]}
                ]}
              ]}
            ]}
          ]}
        ]}
      ]}
    ]}
  ]}
 ],
 "channels": [],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4], "depth": 8, "distance": [0, 1, 0], "time_distance": 8, "period": 1, "naive": 9},
  {"name": "B_shreg", "func": "B", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4], "depth": 1, "distance": [1, 0, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "C_shreg", "func": "C", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4], "depth": 1, "distance": [0, 0, 1], "time_distance": 1, "period": 1, "naive": 2}
 ]
}
)json";

// testdata/golden/ar_filter/merged.json
const char* const kArFilterMerged = R"json({"t2s_ir": 1, "stage": "merged", "vars": ["k", "n"],
 "inputs": [
  {"name": "x", "type": "float32", "dims": 1, "extents": ["10"]},
  {"name": "a", "type": "float32", "dims": 1, "extents": ["3"]}
 ],
 "funcs": [
  {"name": "Y", "type": "float32", "args": ["k", "n"], "place": "host", "declared": true, "definition": "select(k == 0, x(n) + select(n == 0, 0.0f, S(k, n - 1)), Y(k - 1, n))"},
  {"name": "S", "type": "float32", "args": ["k", "n"], "place": "host", "declared": true, "definition": "a(k) * Y(k, n) + select(k == 2 || n == 0, 0.0f, S(k + 1, n - 1))"},
  {"name": "out", "type": "float32", "args": ["n"], "place": "host", "declared": false, "definition": "select(k == 0, Y(k, n))"}
 ],
 "directives": [
  {"func": "Y", "name": "merge_ures", "args": ["S", "out"]},
  {"func": "Y", "name": "set_bounds", "args": ["k", "0", "3", "n", "0", "10"]}
 ],
 "buffers": [
  {"name": "out", "type": "float32", "bounds": [["0", "10"]]}
 ],
 "output": {"func": "out", "extents": ["10"]},
 "kernels": [
  {"name": "Y", "place": "host", "body": [
    {"realize": "Y", "type": "float32", "bounds": [["0", "3"], ["0", "10"]], "body": [
      {"realize": "S", "type": "float32", "bounds": [["0", "3"], ["0", "10"]], "body": [
        {"for": "n", "min": "0", "extent": "10", "kind": "serial", "body": [
          {"for": "k", "min": "0", "extent": "3", "kind": "serial", "body": [
            {"provide": "Y", "args": ["k", "n"], "value": "select(k == 0, x(n) + select(n == 0, 0.0f, S(k, n - 1)), Y(k - 1, n))"},
            {"provide": "S", "args": ["k", "n"], "value": "a(k) * Y(k, n) + select(k == 2 || n == 0, 0.0f, S(k + 1, n - 1))"},
            {"if": "k == 0", "then": [
              {"provide": "out", "args": ["n"], "value": "Y(k, n)"}
            ], "else": []}
          ]}
        ]}
      ]}
    ]}
  ]}
 ],
 "channels": [],
 "registers": []
}
)json";

// testdata/golden/vectorize_gather/stt.json
const char* const kVectorizeGatherStt =
    R"json({"t2s_ir": 1, "stage": "stt", "vars": ["kk", "i", "j", "ko"],
 "inputs": [
  {"name": "a", "type": "float32", "dims": 2, "extents": ["8", "4"]},
  {"name": "b", "type": "float32", "dims": 2, "extents": ["4", "8"]}
 ],
 "funcs": [
  {"name": "A", "type": "float32", "args": ["kk", "i", "j", "ko"], "place": "device", "declared": true, "definition": "select(j == 0, a(ko * 4 + kk, i), A(kk, i, j - 1, ko))"},
  {"name": "B", "type": "float32", "args": ["kk", "i", "j", "ko"], "place": "device", "declared": true, "definition": "select(i == 0, b(j, ko * 4 + kk), B(kk, i - 1, j, ko))"},
  {"name": "C", "type": "float32", "args": ["kk", "i", "j", "ko"], "place": "device", "declared": true, "definition": "select(ko * 4 + kk == 0, 0.0f, select(kk == 0, C(kk + 4 - 1, i, j, ko - 1), C(kk - 1, i, j, ko))) + A(kk, i, j, ko) * B(kk, i, j, ko)"},
  {"name": "c", "type": "float32", "args": ["i", "j"], "place": "device", "declared": false, "definition": "select(ko * 4 + kk == 7, C(kk, i, j, ko))"},
  {"name": "drainer", "type": null, "args": [], "place": "device", "declared": false, "definition": null},
  {"name": "collector", "type": null, "args": [], "place": "device", "declared": false, "definition": null}
 ],
 "directives": [
  {"func": "A", "name": "merge_ures", "args": ["B", "C", "c"]},
  {"func": "A", "name": "set_bounds", "args": ["kk", "0", "4", "i", "0", "4", "j", "0", "4", "ko", "0", "2"]},
  {"func": "A", "name": "space_time_transform", "args": [["kk", "i", "j"], [], "SpaceTimeTransform::NoCheckTime"]},
  {"func": "A", "name": "vectorize", "args": ["kk"]},
  {"func": "c", "name": "isolate_consumer_chain", "args": ["drainer", "collector"]},
  {"func": "drainer", "name": "vectorize", "args": ["i"]},
  {"func": "drainer", "name": "gather", "args": ["c", "i", "GatherStrategy::Down"]},
  {"func": "collector", "name": "vectorize", "args": ["i"]}
 ],
 "buffers": [
  {"name": "collector", "type": "float32", "bounds": [["0", "4"], ["0", "4"]]}
 ],
 "output": {"func": "collector", "extents": ["4", "4"]},
 "kernels": [
  {"name": "A", "place": "device", "body": [
    {"for": "ko", "min": "0", "extent": "2", "kind": "serial", "body": [
      {"for": "j", "min": "0", "extent": "4", "kind": "unrolled", "body": [
        {"for": "i", "min": "0", "extent": "4", "kind": "unrolled", "body": [
          {"for": "kk", "min": "0", "extent": "4", "kind": "unrolled", "body": [
            {"let": "A_val", "value": "select(j == 0, a(ko * 4 + kk, i), A_shreg(kk, i, j - 1, 0))", "body": [
              {"provide": "A_shreg", "args": ["kk", "i", "j", "0"], "value": "A_val"},
              {"let": "B_val", "value": "select(i == 0, b(j, ko * 4 + kk), B_shreg(kk, i - 1, j, 0))", "body": [
                {"provide": "B_shreg", "args": ["kk", "i", "j", "0"], "value": "B_val"},
                {"let": "C_val", "value": "select(ko * 4 + kk == 0, 0.0f, select(kk == 0, C_shreg(kk + 3, i, j, 0), C_shreg_2(kk - 1, i, j, 0))) + A_val * B_val", "body": [
                  {"provide": "C_shreg", "args": ["kk", "i", "j", "0"], "value": "C_val"},
                  {"provide": "C_shreg_2", "args": ["kk", "i", "j", "0"], "value": "C_val"},
                  {"if": "ko * 4 + kk == 7", "then": [
                    {"write_channel": "c_to_drainer", "index": [], "value": "C_val"}
                  ], "else": []}
                ]}
              ]}
            ]}
          ]}
        ]}
      ]}
    ]}
  ]},
  {"name": "drainer", "place": "device", "body": [
    {"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"write_channel": "drainer_to_collector", "index": [], "value": "read_channel(c_to_drainer)"}
      ]}
    ]}
  ]},
  {"name": "collector", "place": "device", "body": [
    {"for": "j", "min": "0", "extent": "4", "kind": "serial", "body": [
      {"for": "i", "min": "0", "extent": "4", "kind": "serial", "body": [
        {"provide": "collector", "args": ["i", "j"], "value": "read_channel(drainer_to_collector)"}
      ]}
    ]}
  ]}
 ],
 "channels": [
  {"name": "c_to_drainer", "type": "float32", "dims": [], "depth": 0, "producer": "A", "consumer": "drainer"},
  {"name": "drainer_to_collector", "type": "float32", "dims": [], "depth": 0, "producer": "drainer", "consumer": "collector"}
 ],
 "registers": [
  {"name": "A_shreg", "func": "A", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4, 4], "depth": 1, "distance": [0, 0, 1, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "B_shreg", "func": "B", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4, 4], "depth": 1, "distance": [0, 1, 0, 0], "time_distance": 0, "period": 1, "naive": 1},
  {"name": "C_shreg", "func": "C", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4, 4], "depth": 1, "distance": [-3, 0, 0, 1], "time_distance": 1, "period": 1, "naive": 2},
  {"name": "C_shreg_2", "func": "C", "kernel": "A", "type": "float32", "kind": "shift", "shape": [4, 4, 4], "depth": 1, "distance": [1, 0, 0, 0], "time_distance": 0, "period": 1, "naive": 1}
 ]
}
)json";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

Program gemm_stt(int n) {
  std::string text = kGemmStt;
  if (n != 4) {
    std::string e = std::to_string(n);
    text = replace_all(text, "\"extent\": \"4\", \"kind\": \"unrolled\"",
                       "\"extent\": \"" + e + "\", \"kind\": \"unrolled\"");
    text = replace_all(text, "\"shape\": [4, 4]", "\"shape\": [" + e + ", " + e + "]");
  }
  return read_program(text, "gemm.stt.json");
}

Program seed000_abc_stt() { return read_program(kSeed000AbcStt, "seed000_abc.stt.json"); }

Program isolate_consumer_stt() {
  return read_program(kIsolateConsumerStt, "isolate_consumer.stt.json");
}

Program gemm_projection_stt() {
  return read_program(kGemmProjectionStt, "gemm_projection.stt.json");
}

Program vectorize_gather_stt() {
  return read_program(kVectorizeGatherStt, "vectorize_gather.stt.json");
}

Program ar_filter_merged() { return read_program(kArFilterMerged, "ar_filter.merged.json"); }

}  // namespace testing
}  // namespace t2s

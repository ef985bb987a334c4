#include "libs/ir/ir_json.h"

#include <gtest/gtest.h>

namespace t2s {
namespace {

// A document with every statement kind, as a later stage would write it.
const char* kDocument = R"json({
  "t2s_ir": 1,
  "stage": "merged",
  "vars": [
    "i",
    "k"
  ],
  "inputs": [
    {
      "name": "a",
      "type": "float32",
      "dims": 2,
      "extents": [
        "4",
        "8"
      ],
      "loc": "3:1"
    }
  ],
  "funcs": [
    {
      "name": "A",
      "type": "float32",
      "args": [
        "i",
        "k"
      ],
      "place": "device",
      "declared": true,
      "definition": "select(i == 0, a(i, k), A(i - 1, k))",
      "loc": "6:1",
      "decl_loc": "5:6"
    },
    {
      "name": "w",
      "type": "float32",
      "args": [
        "_0",
        "_1"
      ],
      "place": "host",
      "declared": false,
      "wraps": "a",
      "definition": "a(_0, _1)",
      "loc": "inc/defs.h:2:6",
      "decl_loc": "inc/defs.h:2:6"
    }
  ],
  "directives": [
    {
      "func": "A",
      "name": "space_time_transform",
      "args": [
        [
          "i"
        ],
        [
          "2"
        ],
        "SpaceTimeTransform::CheckTime"
      ],
      "loc": "8:1"
    }
  ],
  "output": {
    "func": "A",
    "extents": [
      "4",
      "8"
    ],
    "loc": "9:1"
  },
  "buffers": [
    {
      "name": "A",
      "type": "float32",
      "bounds": [
        [
          "0",
          "4"
        ],
        [
          "0",
          "8"
        ]
      ],
      "loc": "6:1"
    }
  ],
  "kernels": [
    {
      "name": "A",
      "place": "device",
      "body": [
        {
          "alloc": "srA",
          "type": "float32",
          "shape": [
            "4",
            "3"
          ]
        },
        {
          "for": "k",
          "min": "0",
          "extent": "8",
          "kind": "serial",
          "body": [
            {
              "for": "i",
              "min": "0",
              "extent": "4",
              "kind": "unrolled",
              "body": [
                {
                  "let": "t",
                  "value": "k * 2 + i",
                  "body": [
                    {
                      "if": "t % 2 == 0",
                      "then": [
                        {
                          "provide": "A",
                          "args": [
                            "i",
                            "k"
                          ],
                          "value": "select(i == 0, a(i, k), A(i - 1, k))",
                          "loc": "6:1"
                        }
                      ],
                      "else": [
                        {
                          "write_channel": "ch",
                          "index": [
                            "i"
                          ],
                          "value": "A(i, k)"
                        },
                        {
                          "realize": "T",
                          "type": "int16",
                          "bounds": [
                            [
                              "-1",
                              "k + 2"
                            ]
                          ],
                          "body": [
                            {
                              "provide": "T",
                              "args": [
                                "i"
                              ],
                              "value": "cast(Int(16), read_channel(ch2, i))"
                            }
                          ]
                        }
                      ]
                    }
                  ]
                }
              ]
            }
          ]
        }
      ],
      "loc": "6:1"
    }
  ],
  "channels": [
    {
      "name": "ch",
      "type": "float32",
      "dims": [
        4
      ],
      "depth": 2,
      "depth_reason": "written by hand",
      "producer": "A",
      "consumer": "B",
      "loc": "8:1"
    },
    {
      "name": "ch2",
      "type": "int32",
      "dims": [],
      "depth": 0,
      "producer": "B",
      "consumer": "A",
      "loc": null
    }
  ],
  "registers": []
}
)json";

TEST(IrJsonTest, ReadWriteReproducesBytes) {
  Program p = read_program(kDocument, "doc.json");
  EXPECT_EQ(write_program(p), kDocument);
  EXPECT_EQ(p.funcs[0].definition->type, Type::Float(32));
  EXPECT_EQ(p.funcs[1].loc, (SourceLoc{"inc/defs.h", 2, 6}));
  EXPECT_EQ(p.channels[1].type, Type::Int(32));
  EXPECT_EQ(p.channels[0].depth_reason, "written by hand");
  EXPECT_EQ(p.channels[1].depth_reason, "");  // absent: not written back
  EXPECT_EQ(p.inputs[0].extents, (std::vector<int64_t>{4, 8}));
}

std::string error_of(const std::string& text) {
  try {
    read_program(text, "doc.json");
  } catch (const Diagnostic& d) {
    return d.loc().str() + ": " + d.message() + " [" + d.rule() + "]";
  }
  return "no error";
}

TEST(IrJsonTest, RejectsBadDocuments) {
  std::string doc = kDocument;
  EXPECT_EQ(error_of("{"),
            "doc.json: malformed JSON: [json.exception.parse_error.101] parse "
            "error at line 1, column 2: syntax error while parsing object key - "
            "unexpected end of input; expected string literal [ir]");
  // A number past double's range (nlohmann's out_of_range, ir_fuzzer): refused the same way.
  EXPECT_EQ(error_of("{\"t2s_ir\": 1e999}"),
            "doc.json: malformed JSON: [json.exception.out_of_range.406] number overflow parsing "
            "'1e999' [ir]");
  std::string newer = doc;
  newer.replace(newer.find("\"t2s_ir\": 1"), 11, "\"t2s_ir\": 2");
  EXPECT_EQ(error_of(newer),
            "doc.json: IR format version 2 is newer than this tool understands "
            "(1); use a newer toolchain [ir]");
  std::string stage = doc;
  stage.replace(stage.find("\"merged\""), 8, "\"fused\"");
  EXPECT_EQ(error_of(stage), "doc.json: unknown stage 'fused' [ir]");
  std::string bad_expr = doc;
  bad_expr.replace(bad_expr.find("\"k * 2 + i\""), 11, "\"k * \"");
  EXPECT_EQ(error_of(bad_expr),
            "doc.json: kernels[0].body[1].body[0].body[0].value: expected an expression, found "
            "end of input [ir]");
  std::string bad_call = doc;
  bad_call.replace(bad_call.find("\"A(i, k)\""), 9, "\"B(i, k)\"");
  EXPECT_EQ(error_of(bad_call), "doc.json: kernels[0]: call to unknown Func or input 'B' [ir]");
  std::string bad_channel = doc;
  bad_channel.replace(bad_channel.find("read_channel(ch2"), 16, "read_channel(ch3");
  EXPECT_EQ(error_of(bad_channel),
            "doc.json: kernels[0]: read_channel of unknown channel 'ch3' [ir]");
  std::string bad_reason = doc;
  bad_reason.replace(bad_reason.find("\"written by hand\""), 17, "2");
  EXPECT_EQ(error_of(bad_reason),
            "doc.json: channels[0]: field 'depth_reason' must be a string [ir]");
  std::string bad_bounds = doc;
  bad_bounds.replace(bad_bounds.find("\"k + 2\""), 7, "\"k +\"");
  EXPECT_EQ(error_of(bad_bounds),
            "doc.json: kernels[0].body[1].body[0].body[0].body[0].else[1].bounds: expected an "
            "expression, "
            "found end of input [ir]");
}

// A 10,000-deep nest of ifs (issue 16: 30 s, quadratic in nlohmann's parser) is refused before
// parsing, in time linear in the text, at the bracket that goes past the limit.
TEST(IrJsonTest, RefusesDeepNestingBeforeParsing) {
  std::string nest;
  for (int i = 0; i < 10000; ++i) nest += "[{\"if\": \"true\", \"then\": ";
  std::string doc = "{\"t2s_ir\": 1, \"kernels\": \n" + nest + "[]";
  for (int i = 0; i < 10000; ++i) doc += "}]";
  doc += "}";
  const std::string prefix = "[{\"if\": \"true\", \"then\": ";
  EXPECT_EQ(error_of(doc), "doc.json:2:" + std::to_string(255 * prefix.size() + 2) +
                               ": JSON nested more than 512 levels deep (statements nest at most "
                               "200 deep) [ir]");
}

TEST(SourceLocTest, ParsesAndPrints) {
  EXPECT_EQ(SourceLoc::parse("12:3").str(), "12:3");
  EXPECT_EQ(SourceLoc::parse("a/b.h:1:2").file, "a/b.h");
  EXPECT_THROW(SourceLoc::parse("x:y"), std::invalid_argument);
  EXPECT_THROW(SourceLoc::parse("0:1"), std::invalid_argument);
}

}  // namespace
}  // namespace t2s

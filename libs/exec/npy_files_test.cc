#include "libs/exec/npy_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "libs/exec/input_fill.h"
#include "libs/exec/npy_files_testing.h"

namespace t2s {
namespace {

// Files written by numpy 1.24.2 (np.save unless said otherwise), pasted as bytes so that the
// tests need no Python. Each comment is the expression saved.
// np.array([[1, -2, 3], [4, 5, -6]], dtype="<i4")
const char kInt32CTwoByThree[] =
    "\223NUMPY\001\000v\000{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }        "
    "                                                  \012\001\000\000\000\376\377\377\377"
    "\003\000\000\000\004\000\000\000\005\000\000\000\372\377\377\377";
// np.asfortranarray(np.array([[1.5, -2, 3], [4, 0.25, -6]], dtype="<f4"))
const char kFloat32FortranTwoByThree[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }         "
    "                                                  \012\000\000\300\077\000\000\200@\000"
    "\000\000\300\000\000\200>\000\000@@\000\000\300\300";
// np.array([True, False, True, True, False])
const char kBoolVector[] =
    "\223NUMPY\001\000v\000{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }          "
    "                                                  \012\001\000\001\001\000";
// np.array(200, dtype=np.uint8)
const char kUint8Scalar[] =
    "\223NUMPY\001\000v\000{'descr': '|u1', 'fortran_order': False, 'shape': (), }            "
    "                                                  \012\310";
// (np.arange(24, dtype="<i8") - 12).reshape(2, 3, 4) * 10**12
const char kInt64CThreeD[] =
    "\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 4), }     "
    "                                                  \012\000@C\010\026\365\377\377\000P\350"
    "\334\376\365\377\377\000`\215\261\347\366\377\377\000p2\206\320\367\377\377\000\200\327Z"
    "\271\370\377\377\000\220|/\242\371\377\377\000\240!\004\213\372\377\377\000\260\306\330s"
    "\373\377\377\000\300k\255\\\374\377\377\000\320\020\202E\375\377\377\000\340\265V.\376"
    "\377\377\000\360Z+\027\377\377\377\000\000\000\000\000\000\000\000\000\020\245\324\350"
    "\000\000\000\000 J\251\321\001\000\000\0000\357}\272\002\000\000\000@\224R\243\003\000"
    "\000\000P9'\214\004\000\000\000`\336\373t\005\000\000\000p\203\320]\006\000\000\000\200("
    "\245F\007\000\000\000\220\315y/\010\000\000\000\240rN\030\011\000\000\000\260\027#\001"
    "\012\000\000";
// format.write_array(f, np.array([0.5, -1.25, 1e300]), version=(2, 0))
const char kFloat64Version2[] =
    "\223NUMPY\002\000t\000\000\000{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }  "
    "                                                        \012\000\000\000\000\000\000\340"
    "\077\000\000\000\000\000\000\364\277\234u\000\210<\3447~";
// format.write_array(f, np.array([[1, 2], [3, 4]], dtype="<f4"), version=(3, 0))
const char kFloat32Version3[] =
    "\223NUMPY\003\000t\000\000\000{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }"
    "                                                        \012\000\000\200\077\000\000\000@"
    "\000\000@@\000\000\200@";
// np.array([[1, -2], [300, -400]], dtype=">i2")
const char kInt16BigEndian[] =
    "\223NUMPY\001\000v\000{'descr': '>i2', 'fortran_order': False, 'shape': (2, 2), }        "
    "                                                  \012\000\001\377\376\001,\376p";
// np.asfortranarray(np.arange(16, dtype="<u2").reshape(4, 4) * 4000)
const char kUint16FortranFourByFour[] =
    "\223NUMPY\001\000v\000{'descr': '<u2', 'fortran_order': True, 'shape': (4, 4), }         "
    "                                                  \012\000\000\200>\000}\200\273\240\017 "
    "N\240\214 \313@\037\300]@\234\300\332\340.`m\340\253`\352";
// np.asfortranarray((np.arange(12) - 6).astype("i1").reshape(3, 2, 2))
const char kInt8FortranThreeD[] =
    "\223NUMPY\001\000v\000{'descr': '|i1', 'fortran_order': True, 'shape': (3, 2, 2), }      "
    "                                                  \012\372\376\002\374\000\004\373\377"
    "\003\375\001\005";
// np.asfortranarray(np.array([[True, False], [True, True]]))
const char kBoolFortranTwoByTwo[] =
    "\223NUMPY\001\000v\000{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }         "
    "                                                  \012\001\001\000\001";

template <size_t N>
std::string bytes_of(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

template <typename T>
T element(const NdArray& a, const std::vector<int64_t>& index) {
  EXPECT_EQ(sizeof(T), a.element_size());
  T value;
  std::memcpy(&value, &a.data[a.linear_index(index) * sizeof(T)], sizeof(T));
  return value;
}

// The elements in storage (Fortran) order.
template <typename T>
std::vector<T> elements(const NdArray& a) {
  EXPECT_EQ(sizeof(T), a.element_size());
  std::vector<T> values(a.data.size() / sizeof(T));
  std::memcpy(values.data(), a.data.data(), a.data.size());
  return values;
}

std::string read_error(const std::string& bytes) {
  try {
    read_npy(bytes, "in.npy");
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReadNpy, COrderInt32IsConvertedToFortranOrder) {
  NdArray a = read_npy(bytes_of(kInt32CTwoByThree), "a.npy");
  EXPECT_EQ(a.type, Type::Int(32));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.num_elements(), 6);
  EXPECT_EQ(elements<int32_t>(a), (std::vector<int32_t>{1, 4, -2, 5, 3, -6}));
  EXPECT_EQ(element<int32_t>(a, {1, 2}), -6);
  EXPECT_EQ(element<int32_t>(a, {0, 1}), -2);
}

TEST(ReadNpy, FortranOrderFloat32IsKeptAsIs) {
  NdArray a = read_npy(bytes_of(kFloat32FortranTwoByThree), "a.npy");
  EXPECT_EQ(a.type, Type::Float(32));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements<float>(a), (std::vector<float>{1.5f, 4, -2, 0.25f, 3, -6}));
  EXPECT_EQ(element<float>(a, {1, 1}), 0.25f);
}

TEST(ReadNpy, BoolVector) {
  NdArray a = read_npy(bytes_of(kBoolVector), "a.npy");
  EXPECT_EQ(a.type, Type::Bool());
  EXPECT_EQ(a.element_size(), 1u);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 0, 1, 1, 0}));
}

TEST(ReadNpy, Uint8Scalar) {
  NdArray a = read_npy(bytes_of(kUint8Scalar), "a.npy");
  EXPECT_EQ(a.type, Type::UInt(8));
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.num_elements(), 1);
  EXPECT_EQ(a.linear_index({}), 0);
  EXPECT_EQ(a.data, (std::vector<uint8_t>{200}));
}

TEST(ReadNpy, Int64ThreeDimensionalCOrder) {
  NdArray a = read_npy(bytes_of(kInt64CThreeD), "a.npy");
  EXPECT_EQ(a.type, Type::Int(64));
  ASSERT_EQ(a.shape, (std::vector<int64_t>{2, 3, 4}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) {
        EXPECT_EQ(element<int64_t>(a, {i, j, k}), ((i * 3 + j) * 4 + k - 12) * 1000000000000)
            << i << "," << j << "," << k;
      }
    }
  }
  EXPECT_EQ(a.linear_index({1, 2, 3}), 1 + 2 * (2 + 3 * 3));
}

TEST(ReadNpy, Version2Header) {
  NdArray a = read_npy(bytes_of(kFloat64Version2), "a.npy");
  EXPECT_EQ(a.type, Type::Float(64));
  EXPECT_EQ(elements<double>(a), (std::vector<double>{0.5, -1.25, 1e300}));
}

TEST(ReadNpy, Version3Header) {
  NdArray a = read_npy(bytes_of(kFloat32Version3), "a.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(elements<float>(a), (std::vector<float>{1, 3, 2, 4}));
}

TEST(ReadNpy, BigEndianInt16IsByteSwapped) {
  NdArray a = read_npy(bytes_of(kInt16BigEndian), "a.npy");
  EXPECT_EQ(a.type, Type::Int(16));
  EXPECT_EQ(elements<int16_t>(a), (std::vector<int16_t>{1, 300, -2, -400}));
}

TEST(ReadNpy, FortranInt8AndBool) {
  NdArray a = read_npy(bytes_of(kInt8FortranThreeD), "a.npy");
  EXPECT_EQ(a.type, Type::Int(8));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t k = 0; k < 2; ++k)
        EXPECT_EQ(element<int8_t>(a, {i, j, k}), i * 4 + j * 2 + k - 6);
    }
  }
  NdArray b = read_npy(bytes_of(kBoolFortranTwoByTwo), "b.npy");
  EXPECT_EQ(b.data, (std::vector<uint8_t>{1, 1, 0, 1}));
}

TEST(ReadNpy, HeaderSpellingVariations) {
  std::string data("\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0\5\0\0\0\6\0\0\0", 24);
  for (const char* header : {
           "{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<i4\"}",
           "{ 'descr' : '<i4' , 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }\n",
           "{'fortran_order': False, 'descr': \"<i4\", 'shape': (2L, 3L)}          \n",
           "\t{'descr':'<i4','shape':(2,3),'fortran_order':False,}",
       }) {
    NdArray a = read_npy(npy_with_header(header, data), "a.npy");
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << header;
    EXPECT_EQ(elements<int32_t>(a), (std::vector<int32_t>{1, 4, 2, 5, 3, 6})) << header;
  }
  NdArray a = read_npy(npy_with_header("{'descr': '>f8', 'fortran_order': True, 'shape': (1,)}",
                                       std::string("\xbf\xf4\0\0\0\0\0\0", 8), 2),
                       "a.npy");
  EXPECT_EQ(elements<double>(a), (std::vector<double>{-1.25}));
}

TEST(ReadNpy, EmptyArray) {
  NdArray a = read_npy(
      npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0)}", ""), "a.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(a.num_elements(), 0);
  EXPECT_TRUE(a.data.empty());
  // A zero extent among huge ones (npy_fuzzer: their product overflowed before the zero).
  NdArray b = read_npy(npy_with_header("{'descr': '<i8', 'fortran_order': False, 'shape': "
                                       "(4000000000088, 1799722, 3599445, 0)}",
                                       ""),
                       "b.npy");
  EXPECT_EQ(b.num_elements(), 0);
  EXPECT_TRUE(b.data.empty());
}

TEST(ReadNpy, ErrorMessages) {
  const std::string good = bytes_of(kInt32CTwoByThree);
  auto with_header = [](const std::string& header, size_t data_bytes = 4) {
    return npy_with_header(header, std::string(data_bytes, '\0'));
  };
  EXPECT_EQ(read_error(""), "in.npy: not a .npy file (bad magic string)");
  EXPECT_EQ(read_error("PK\3\4 a zip file"), "in.npy: not a .npy file (bad magic string)");
  EXPECT_EQ(read_error(good.substr(0, 4)),
            "in.npy: truncated .npy file: 4 bytes end inside the preamble");
  EXPECT_EQ(read_error(good.substr(0, 9)),
            "in.npy: truncated .npy file: 9 bytes end inside the preamble");
  EXPECT_EQ(read_error(good.substr(0, 50)),
            "in.npy: truncated .npy file: the header needs 128 bytes, the file has 50");
  std::string version4 = good;
  version4[6] = 4;
  EXPECT_EQ(read_error(version4),
            "in.npy: unsupported .npy format version 4.0 (known: 1.0, 2.0, 3.0)");
  EXPECT_EQ(read_error(good.substr(0, good.size() - 4)),
            "in.npy: data size does not match shape (2, 3) of int32: expected 24 bytes, found 20");
  EXPECT_EQ(read_error(good + "x"),
            "in.npy: data size does not match shape (2, 3) of int32: expected 24 bytes, found 25");
  EXPECT_EQ(read_error(with_header("{'descr': '<f2', 'fortran_order': False, 'shape': (2,)}")),
            "in.npy: unsupported dtype '<f2' (float16); supported: bool, int8..int64, "
            "uint8..uint64, float32, float64");
  EXPECT_EQ(read_error(with_header("{'descr': '<c8', 'fortran_order': False, 'shape': ()}")),
            "in.npy: unsupported dtype '<c8' (complex64); supported: bool, int8..int64, "
            "uint8..uint64, float32, float64");
  EXPECT_EQ(read_error(with_header("{'descr': '<U3', 'fortran_order': False, 'shape': ()}")),
            "in.npy: unsupported dtype '<U3' (strings); supported: bool, int8..int64, "
            "uint8..uint64, float32, float64");
  EXPECT_EQ(read_error(with_header("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", 8)),
            "in.npy: object arrays are not supported (dtype '|O')");
  EXPECT_EQ(read_error(with_header("{'descr': [('x', '<i4'), ('y', '<f4')], "
                                   "'fortran_order': False, 'shape': (1,)}",
                                   8)),
            "in.npy: structured dtypes are not supported (descr [('x', '<i4'), ('y', '<f4')])");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (2, -1)}")),
            "in.npy: bad shape (2, -1): extent -1 is negative");
  EXPECT_EQ(read_error(with_header(
                "{'descr': '<i4', 'fortran_order': False, 'shape': (1099511627776, 2)}")),
            "in.npy: shape (1099511627776, 2) is too large: over 2^40 bytes");
  EXPECT_EQ(read_error(with_header(
                "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,)}")),
            "in.npy: shape (99999999999999999999,) is too large: over 2^40 bytes");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4', 'shape': (1,)}")),
            "in.npy: malformed .npy header: missing key 'fortran_order'");
  EXPECT_EQ(read_error(
                with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'extra': 1}")),
            "in.npy: malformed .npy header: unexpected key 'extra'");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4', 'fortran_order': 0, 'shape': (1,)}")),
            "in.npy: malformed .npy header: 'fortran_order' is 0, not True or False");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (1)}")),
            "in.npy: malformed .npy header: 'shape' is 1, not a tuple of integers");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4' 'fortran_order': False, 'shape': (1,)}")),
            "in.npy: malformed .npy header: expected ',' at byte 16 of the header");
  EXPECT_EQ(read_error(with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (1,)")),
            "in.npy: malformed .npy header: expected ',' at byte 54 of the header");
  EXPECT_EQ(read_error(with_header("['descr', '<i4']")),
            "in.npy: malformed .npy header: ['descr', '<i4'] is not a dict");
}

struct HeaderCase {
  Type type;
  std::vector<int64_t> shape;
  std::string numpy_bytes;  // numpy.lib.format._write_array_header(f, {...}, version=(1, 0))
};

// Zero-size arrays, so that the shapes can be long enough to reach every padding case: one
// space before the newline, and a whole 64 when the unpadded header is already aligned.
TEST(WriteNpy, HeaderMatchesNumpyByteForByte) {
  const HeaderCase cases[] = {
      {Type::Float(64),
       {0},
       bytes_of("\223NUMPY\001\000v\000{'descr': '<f8', 'fortran_order': True, 'shape': (0,), }    "
                "       "
                "                                                  \012")},
      {Type::Float(32),
       {0, 11111111, 111111111111, 111111111111, 1},
       bytes_of("\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': True, 'shape': (0, "
                "11111111, 1111"
                "11111111, 111111111111, 1), }                     \012")},
      {Type::Float(32),
       {0, 11, 11111, 111111111111, 111111111111, 1},
       bytes_of("\223NUMPY\001\000\266\000{'descr': '<f4', 'fortran_order': True, 'shape': (0, 11, "
                "11111, "
                "111111111111, 111111111111, 1), }                                                 "
                "       "
                "                            \012")},
      {Type::Int(64),
       {7, 0},
       bytes_of("\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': True, 'shape': (7, 0), }  "
                "       "
                "                                                  \012")},
      {Type::UInt(8),
       {0, 123456789012345678},
       bytes_of("\223NUMPY\001\000v\000{'descr': '|u1', 'fortran_order': True, 'shape': (0, "
                "12345678901234"
                "5678), }                                          \012")},
      {Type::Float(32),
       {},
       bytes_of("\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': True, 'shape': (), }      "
                "       "
                "                                                  \012")},
      {Type::Int(16),
       {4},
       bytes_of("\223NUMPY\001\000v\000{'descr': '<i2', 'fortran_order': True, 'shape': (4,), }    "
                "       "
                "                                                  \012")},
  };
  for (const HeaderCase& c : cases) {
    NdArray a;
    a.type = c.type;
    a.shape = c.shape;
    a.data.resize(a.num_elements() * a.element_size());
    std::string written = write_npy(a);
    std::string header = written.substr(0, written.size() - a.data.size());
    EXPECT_EQ(header, c.numpy_bytes);
    EXPECT_EQ(header.size() % 64, 0u);
  }
}

TEST(WriteNpy, FortranArraysGiveNumpysExactBytes) {
  for (const std::string& numpy_file :
       {bytes_of(kFloat32FortranTwoByThree), bytes_of(kUint16FortranFourByFour),
        bytes_of(kInt8FortranThreeD), bytes_of(kBoolFortranTwoByTwo)}) {
    EXPECT_EQ(write_npy(read_npy(numpy_file, "a.npy")), numpy_file);
  }
}

TEST(WriteNpy, COrderInputIsWrittenInFortranOrder) {
  NdArray a = read_npy(bytes_of(kInt32CTwoByThree), "a.npy");
  std::string written = write_npy(a);
  EXPECT_NE(written.find("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }"),
            std::string::npos);
  NdArray back = read_npy(written, "back.npy");
  EXPECT_EQ(back.data, a.data);
  EXPECT_EQ(element<int32_t>(back, {1, 0}), 4);
}

TEST(WriteNpy, RefusesInconsistentArrays) {
  NdArray a;
  a.type = Type::Float(32);
  a.shape = {2, 2};
  a.data.resize(12);
  EXPECT_THROW(write_npy(a), NpyError);
  a.type = Type::Float(16);
  a.data.resize(8);
  EXPECT_THROW(write_npy(a), NpyError);
  a.type = Type::Int(32, 4);
  a.data.resize(16);
  EXPECT_THROW(write_npy(a), NpyError);
}

TEST(NpyRoundTrip, EveryTypeAndRankIsByteIdentical) {
  const Type types[] = {Type::Int(8),    Type::Int(16),   Type::Int(32),  Type::Int(64),
                        Type::UInt(8),   Type::UInt(16),  Type::UInt(32), Type::UInt(64),
                        Type::Float(32), Type::Float(64), Type::Bool()};
  const std::vector<int64_t> shapes[] = {{}, {7}, {3, 5}, {2, 3, 4}, {4, 0, 2}, {1, 1, 1, 1, 9}};
  for (Type type : types) {
    for (const auto& shape : shapes) {
      NdArray a = fill_array(type, shape, FillKind::kRandom, 7, "x");
      std::string written = write_npy(a);
      NdArray back = read_npy(written, "x.npy");
      EXPECT_EQ(back.type, a.type) << type.name();
      EXPECT_EQ(back.shape, a.shape) << type.name();
      EXPECT_EQ(back.data, a.data) << type.name();
      EXPECT_EQ(write_npy(back), written) << type.name();
    }
  }
}

TEST(FillArray, SequentialIsTheRowMajorIndexInFortranStorage) {
  NdArray a = fill_array(Type::Int(32), {2, 3}, FillKind::kSequential, 0, "a");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(element<int32_t>(a, {1, 0}), 3);
  EXPECT_EQ(element<int32_t>(a, {0, 2}), 2);
  EXPECT_EQ(elements<int32_t>(a), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(FillArray, SequentialConvertsLikeACast) {
  NdArray int8s = fill_array(Type::Int(8), {300}, FillKind::kSequential, 0, "a");
  std::vector<int8_t> values = elements<int8_t>(int8s);
  ASSERT_EQ(values.size(), 300u);
  EXPECT_EQ(values[127], 127);
  EXPECT_EQ(values[128], -128);
  EXPECT_EQ(values[200], -56);
  EXPECT_EQ(values[255], -1);
  EXPECT_EQ(values[256], 0);
  EXPECT_EQ(values[299], 43);

  std::vector<uint8_t> uint8s =
      elements<uint8_t>(fill_array(Type::UInt(8), {3, 100}, FillKind::kSequential, 0, "a"));
  EXPECT_EQ(uint8s[1], 100);          // (1, 0)
  EXPECT_EQ(uint8s[2 + 3 * 99], 43);  // (2, 99): 299 mod 256

  EXPECT_EQ(fill_array(Type::Bool(), {5}, FillKind::kSequential, 0, "a").data,
            (std::vector<uint8_t>{0, 1, 0, 1, 0}));
  NdArray floats = fill_array(Type::Float(32), {2, 2}, FillKind::kSequential, 0, "a");
  EXPECT_EQ(elements<float>(floats), (std::vector<float>{0, 2, 1, 3}));
  NdArray doubles = fill_array(Type::Float(64), {2, 2}, FillKind::kSequential, 0, "a");
  EXPECT_EQ(elements<double>(doubles), (std::vector<double>{0, 2, 1, 3}));
  NdArray uint16s = fill_array(Type::UInt(16), {70000}, FillKind::kSequential, 0, "a");
  EXPECT_EQ(elements<uint16_t>(uint16s)[65537], 1);
  NdArray scalar = fill_array(Type::Int(64), {}, FillKind::kSequential, 0, "a");
  EXPECT_EQ(elements<int64_t>(scalar), (std::vector<int64_t>{0}));
}

TEST(FillArray, RandomStreamMatchesTheDocumentedFormulas) {
  EXPECT_EQ(fnv1a64(""), 0xCBF29CE484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8Cull);
  // SplitMix64's published first outputs from state 0.
  uint64_t state = 0;
  EXPECT_EQ(splitmix64_next(state), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64_next(state), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(splitmix64_next(state), 0x06C45D188009454Full);

  // Golden values from an independent Python transcription of the formulas in fill.h, seed 42,
  // input "A", in row-major order.
  auto a = [](Type type) { return fill_array(type, {2, 3}, FillKind::kRandom, 42, "A"); };
  EXPECT_EQ(elements<int32_t>(a(Type::Int(32))), (std::vector<int32_t>{-14, 13, 6, -23, 13, -29}));
  EXPECT_EQ(elements<int8_t>(a(Type::Int(8))), (std::vector<int8_t>{-14, 13, 6, -23, 13, -29}));
  EXPECT_EQ(elements<uint64_t>(a(Type::UInt(64))), (std::vector<uint64_t>{18, 45, 38, 9, 45, 3}));
  EXPECT_EQ(a(Type::Bool()).data, (std::vector<uint8_t>{0, 1, 0, 1, 1, 1}));
  const double scale = 8388608.0;
  EXPECT_EQ(elements<double>(a(Type::Float(64))),
            (std::vector<double>{4722617 / scale, 4136609 / scale, 1961854 / scale,
                                 -2669083 / scale, 5142625 / scale, -3560380 / scale}));
}

TEST(FillArray, RandomIsDeterministicPerSeedAndName) {
  auto bytes = [](uint64_t seed, const std::string& name) {
    return fill_array(Type::Float(32), {16, 16}, FillKind::kRandom, seed, name).data;
  };
  EXPECT_EQ(bytes(1, "a"), bytes(1, "a"));
  EXPECT_NE(bytes(1, "a"), bytes(2, "a"));
  EXPECT_NE(bytes(1, "a"), bytes(1, "b"));
  // The name enters through its hash, not as a second seed that could cancel the first.
  EXPECT_NE(bytes(0, "a"), bytes(fnv1a64("a"), ""));
}

TEST(FillArray, RandomIntegersStayInRangeAndCoverIt) {
  for (Type type : {Type::Int(8), Type::Int(16), Type::Int(32), Type::Int(64)}) {
    NdArray a = fill_array(type, {50, 40}, FillKind::kRandom, 3, "in");
    std::set<int64_t> seen;
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      int64_t value = 0;
      switch (type.bits) {
        case 8:
          value = reinterpret_cast<const int8_t*>(a.data.data())[i];
          break;
        case 16:
          value = reinterpret_cast<const int16_t*>(a.data.data())[i];
          break;
        case 32:
          value = reinterpret_cast<const int32_t*>(a.data.data())[i];
          break;
        default:
          value = reinterpret_cast<const int64_t*>(a.data.data())[i];
      }
      seen.insert(value);
    }
    EXPECT_EQ(seen.size(), 64u) << type.name();
    EXPECT_EQ(*seen.begin(), -32) << type.name();
    EXPECT_EQ(*seen.rbegin(), 31) << type.name();
  }
  for (uint8_t value :
       elements<uint8_t>(fill_array(Type::UInt(8), {2000}, FillKind::kRandom, 3, "in"))) {
    EXPECT_LT(value, 64);
  }
  for (uint32_t value :
       elements<uint32_t>(fill_array(Type::UInt(32), {2000}, FillKind::kRandom, 3, "in"))) {
    EXPECT_LT(value, 64u);
  }
  std::set<uint8_t> bools;
  for (uint8_t value : fill_array(Type::Bool(), {100}, FillKind::kRandom, 3, "in").data) {
    bools.insert(value);
  }
  EXPECT_EQ(bools, (std::set<uint8_t>{0, 1}));
}

TEST(FillArray, RandomFloatsAreExactInFloat32) {
  std::vector<float> floats =
      elements<float>(fill_array(Type::Float(32), {100, 30}, FillKind::kRandom, 9, "w"));
  std::vector<double> doubles =
      elements<double>(fill_array(Type::Float(64), {100, 30}, FillKind::kRandom, 9, "w"));
  ASSERT_EQ(floats.size(), doubles.size());
  double low = 1, high = -1;
  for (size_t i = 0; i < floats.size(); ++i) {
    // Same stream, same value: the float32 array holds the float64 values exactly.
    EXPECT_EQ(static_cast<double>(floats[i]), doubles[i]);
    double scaled = doubles[i] * 8388608.0;
    EXPECT_EQ(scaled, std::floor(scaled));
    low = std::min(low, doubles[i]);
    high = std::max(high, doubles[i]);
  }
  EXPECT_GE(low, -1.0);
  EXPECT_LT(high, 1.0);
  EXPECT_LT(low, -0.9);
  EXPECT_GT(high, 0.9);
}

TEST(FillArray, RefusesUnsupportedTypesAndShapes) {
  auto error = [](Type type, const std::vector<int64_t>& shape) -> std::string {
    try {
      fill_array(type, shape, FillKind::kRandom, 0, "a");
    } catch (const NpyError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error(Type::Float(16), {2}), "input 'a': cannot generate data of type float16");
  EXPECT_EQ(error(Type::Int(32, 4), {2}), "input 'a': cannot generate data of type int32x4");
  EXPECT_EQ(error(Type::Int(32), {2, -3}), "input 'a': bad shape (2, -3): extent -3 is negative");
  EXPECT_EQ(error(Type::Int(32), {1 << 20, 1 << 20}),
            "input 'a': shape (1048576, 1048576) is too large: over 2^40 bytes");
}

}  // namespace
}  // namespace t2s

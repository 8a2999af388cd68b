// Printing: every expected string is PyTorch's repr of the same tensor (torch 2.x), verbatim.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "tensor/native/ops.h"

using namespace brisk;

namespace {
Tensor floats(const std::vector<float>& v, const Shape& shape) { return native::from_vector(v, shape, kFloat32); }
Tensor floats(const std::vector<float>& v) { return floats(v, {static_cast<int64_t>(v.size())}); }
// i * step for i in [0, n), computed in float64 and stored as `dtype`.
Tensor steps(int64_t n, double step, DType dtype) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) * step;
  return native::from_vector(v, {n}, dtype);
}
}  // namespace

TEST_CASE("printing: the basic layouts", "[print]") {
  // matrix
  CHECK(native::to_string(floats({1, 2, 3, 4}, {2, 2})) == R"(tensor([[1., 2.],
        [3., 4.]]))");
  // cube
  CHECK(native::to_string(native::view(native::arange(0, 8, 1, kFloat32), {2, 2, 2})) == R"(tensor([[[0., 1.],
         [2., 3.]],

        [[4., 5.],
         [6., 7.]]]))");
  // column
  CHECK(native::to_string(floats({1.25f, -2.5f}, {2, 1})) == R"(tensor([[ 1.2500],
        [-2.5000]]))");
  // scalar
  CHECK(native::to_string(native::scalar_tensor(3.5, kFloat32)) == R"(tensor(3.5000))");
  // scalar_int_mode
  CHECK(native::to_string(native::scalar_tensor(3.0, kFloat32)) == R"(tensor(3.))");
  // scalar_int64
  CHECK(native::to_string(native::scalar_tensor(7, kInt64)) == R"(tensor(7))");
  // scalar_bool
  CHECK(native::to_string(native::scalar_tensor(true, kBool)) == R"(tensor(True))");
}

TEST_CASE("printing: fixed, integer and scientific modes", "[print]") {
  // fixed
  CHECK(native::to_string(floats({1.5f, 2.25f, -3.125f})) == R"(tensor([ 1.5000,  2.2500, -3.1250]))");
  // sci_small
  CHECK(native::to_string(floats({1e-5f, 1.0f})) == R"(tensor([1.0000e-05, 1.0000e+00]))");
  // sci_ratio
  CHECK(native::to_string(floats({0.001f, 2.5f})) == R"(tensor([1.0000e-03, 2.5000e+00]))");
  // sci_int_mode
  CHECK(native::to_string(floats({1e10f, 1.0f})) == R"(tensor([1.0000e+10, 1.0000e+00]))");
  // big_int_mode
  CHECK(native::to_string(floats({1e8f, 2e8f})) == R"(tensor([1.0000e+08, 2.0000e+08]))");
  // neg_sci
  CHECK(native::to_string(floats({-1e-6f, 2e-3f, 1e3f})) == R"(tensor([-1.0000e-06,  2.0000e-03,  1.0000e+03]))");
  // zeros
  CHECK(native::to_string(native::zeros({2})) == R"(tensor([0., 0.]))");
  // negzero
  CHECK(native::to_string(floats({-0.0f, 1.0f})) == R"(tensor([-0., 1.]))");
  // nonfinite
  CHECK(native::to_string(floats({NAN, 1.0f, INFINITY, -INFINITY})) == R"(tensor([nan, 1., inf, -inf]))");
  // nonfinite_fixed
  CHECK(native::to_string(floats({NAN, 1.5f, -INFINITY})) == R"(tensor([   nan, 1.5000,   -inf]))");
}

TEST_CASE("printing: dtypes and their suffixes", "[print]") {
  // int64
  CHECK(native::to_string(native::arange(0, 5, 1, kInt64)) == R"(tensor([0, 1, 2, 3, 4]))");
  // int32
  CHECK(native::to_string(native::from_vector(std::vector<int32_t>{-3, 10, 200}, {3}, kInt32)) ==
        R"(tensor([ -3,  10, 200], dtype=torch.int32))");
  // uint8
  CHECK(native::to_string(native::from_vector(std::vector<uint8_t>{0, 7, 255}, {3}, kUInt8)) ==
        R"(tensor([  0,   7, 255], dtype=torch.uint8))");
  // bool
  CHECK(native::to_string(native::from_vector(std::vector<bool>{true, false, true}, {3}, kBool)) ==
        R"(tensor([ True, False,  True]))");
  // float64
  CHECK(native::to_string(native::from_vector(std::vector<double>{0.1, 0.25}, {2}, kFloat64)) ==
        R"(tensor([0.1000, 0.2500], dtype=torch.float64))");
  // float16
  CHECK(native::to_string(native::from_vector(std::vector<float>{1.5f, 2.0f}, {2}, kFloat16)) ==
        R"(tensor([1.5000, 2.0000], dtype=torch.float16))");
}

TEST_CASE("printing: empty tensors", "[print]") {
  // empty
  CHECK(native::to_string(native::empty({0})) == R"(tensor([]))");
  // empty_2d
  CHECK(native::to_string(native::zeros({2, 0})) == R"(tensor([], size=(2, 0)))");
  // empty_int64
  CHECK(native::to_string(native::zeros({0}, kInt64)) == R"(tensor([], dtype=torch.int64))");
}

TEST_CASE("printing: long rows wrap at 80 columns", "[print]") {
  // wrap_floats
  CHECK(native::to_string(native::arange(0, 45, 1.5, kFloat32)) ==
        R"(tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,
        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,
        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]))");
  // wrap_ints
  CHECK(native::to_string(native::arange(0, 40000, 1000, kInt64)) ==
        R"(tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,
        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,
        20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000,
        30000, 31000, 32000, 33000, 34000, 35000, 36000, 37000, 38000, 39000]))");
  // wrap_2d
  CHECK(native::to_string(native::view(steps(40, 0.37, kFloat32), {2, 20})) ==
        R"(tensor([[ 0.0000,  0.3700,  0.7400,  1.1100,  1.4800,  1.8500,  2.2200,  2.5900,
          2.9600,  3.3300,  3.7000,  4.0700,  4.4400,  4.8100,  5.1800,  5.5500,
          5.9200,  6.2900,  6.6600,  7.0300],
        [ 7.4000,  7.7700,  8.1400,  8.5100,  8.8800,  9.2500,  9.6200,  9.9900,
         10.3600, 10.7300, 11.1000, 11.4700, 11.8400, 12.2100, 12.5800, 12.9500,
         13.3200, 13.6900, 14.0600, 14.4300]]))");
  // suffix_wrap
  CHECK(native::to_string(steps(9, 1.123, kFloat64)) ==
        R"(tensor([0.0000, 1.1230, 2.2460, 3.3690, 4.4920, 5.6150, 6.7380, 7.8610, 8.9840],
       dtype=torch.float64))");
  // suffix_wrap_grad
  CHECK(native::to_string(steps(12, 1.5, kFloat64).requires_grad_(true)) ==
        R"(tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000, 15.0000, 16.5000], dtype=torch.float64,
       requires_grad=True))");
  // requires_grad
  CHECK(native::to_string(native::ones({2}, TensorOptions().requires_grad(true))) ==
        R"(tensor([1., 1.], requires_grad=True))");
}

TEST_CASE("printing: large tensors are summarized", "[print]") {
  // summary_1d
  CHECK(native::to_string(native::arange(0, 2000, 1, kFloat32)) ==
        R"(tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,
        1.9990e+03]))");
  // summary_2d
  CHECK(native::to_string(native::view(native::arange(0, 3000, 1, kFloat32), {30, 100})) ==
        R"(tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,
         9.9000e+01],
        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,
         1.9900e+02],
        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,
         2.9900e+02],
        ...,
        [2.7000e+03, 2.7010e+03, 2.7020e+03,  ..., 2.7970e+03, 2.7980e+03,
         2.7990e+03],
        [2.8000e+03, 2.8010e+03, 2.8020e+03,  ..., 2.8970e+03, 2.8980e+03,
         2.8990e+03],
        [2.9000e+03, 2.9010e+03, 2.9020e+03,  ..., 2.9970e+03, 2.9980e+03,
         2.9990e+03]]))");
  // summary_3d
  CHECK(native::to_string(native::view(native::arange(0, 2000, 1, kInt64), {10, 20, 10})) ==
        R"(tensor([[[   0,    1,    2,  ...,    7,    8,    9],
         [  10,   11,   12,  ...,   17,   18,   19],
         [  20,   21,   22,  ...,   27,   28,   29],
         ...,
         [ 170,  171,  172,  ...,  177,  178,  179],
         [ 180,  181,  182,  ...,  187,  188,  189],
         [ 190,  191,  192,  ...,  197,  198,  199]],

        [[ 200,  201,  202,  ...,  207,  208,  209],
         [ 210,  211,  212,  ...,  217,  218,  219],
         [ 220,  221,  222,  ...,  227,  228,  229],
         ...,
         [ 370,  371,  372,  ...,  377,  378,  379],
         [ 380,  381,  382,  ...,  387,  388,  389],
         [ 390,  391,  392,  ...,  397,  398,  399]],

        [[ 400,  401,  402,  ...,  407,  408,  409],
         [ 410,  411,  412,  ...,  417,  418,  419],
         [ 420,  421,  422,  ...,  427,  428,  429],
         ...,
         [ 570,  571,  572,  ...,  577,  578,  579],
         [ 580,  581,  582,  ...,  587,  588,  589],
         [ 590,  591,  592,  ...,  597,  598,  599]],

        ...,

        [[1400, 1401, 1402,  ..., 1407, 1408, 1409],
         [1410, 1411, 1412,  ..., 1417, 1418, 1419],
         [1420, 1421, 1422,  ..., 1427, 1428, 1429],
         ...,
         [1570, 1571, 1572,  ..., 1577, 1578, 1579],
         [1580, 1581, 1582,  ..., 1587, 1588, 1589],
         [1590, 1591, 1592,  ..., 1597, 1598, 1599]],

        [[1600, 1601, 1602,  ..., 1607, 1608, 1609],
         [1610, 1611, 1612,  ..., 1617, 1618, 1619],
         [1620, 1621, 1622,  ..., 1627, 1628, 1629],
         ...,
         [1770, 1771, 1772,  ..., 1777, 1778, 1779],
         [1780, 1781, 1782,  ..., 1787, 1788, 1789],
         [1790, 1791, 1792,  ..., 1797, 1798, 1799]],

        [[1800, 1801, 1802,  ..., 1807, 1808, 1809],
         [1810, 1811, 1812,  ..., 1817, 1818, 1819],
         [1820, 1821, 1822,  ..., 1827, 1828, 1829],
         ...,
         [1970, 1971, 1972,  ..., 1977, 1978, 1979],
         [1980, 1981, 1982,  ..., 1987, 1988, 1989],
         [1990, 1991, 1992,  ..., 1997, 1998, 1999]]]))");
}

TEST_CASE("str() and operator<< print the same text", "[print]") {
  Tensor t = floats({1, 2, 3, 4}, {2, 2});
  std::ostringstream os;
  os << t;
  CHECK(os.str() == t.str());
  CHECK(t.str() == native::to_string(t));
}

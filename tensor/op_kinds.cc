#include "tensor/op_kinds.h"

namespace brisk {

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Rsqrt: return "rsqrt";
    case UnaryOp::Square: return "square";
    case UnaryOp::Reciprocal: return "reciprocal";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Sign: return "sign";
    case UnaryOp::Relu: return "relu";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Gelu: return "gelu";
    case UnaryOp::GeluTanh: return "gelu";
    case UnaryOp::Silu: return "silu";
    case UnaryOp::LogicalNot: return "logical_not";
    case UnaryOp::Clamp: return "clamp";
    case UnaryOp::PowScalar: return "pow";
    case UnaryOp::RPowScalar: return "pow";
    case UnaryOp::Fill: return "fill_";
  }
  return "?";
}

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::Pow: return "pow";
    case BinaryOp::Maximum: return "maximum";
    case BinaryOp::Minimum: return "minimum";
    case BinaryOp::Lerp: return "lerp";
    case BinaryOp::Eq: return "eq";
    case BinaryOp::Ne: return "ne";
    case BinaryOp::Lt: return "lt";
    case BinaryOp::Le: return "le";
    case BinaryOp::Gt: return "gt";
    case BinaryOp::Ge: return "ge";
    case BinaryOp::LogicalAnd: return "logical_and";
    case BinaryOp::LogicalOr: return "logical_or";
    case BinaryOp::ReluBackward: return "relu_backward";
    case BinaryOp::SigmoidBackward: return "sigmoid_backward";
    case BinaryOp::TanhBackward: return "tanh_backward";
    case BinaryOp::GeluBackward: return "gelu_backward";
    case BinaryOp::GeluTanhBackward: return "gelu_backward";
    case BinaryOp::SiluBackward: return "silu_backward";
  }
  return "?";
}

const char* op_name(TernaryOp op) {
  switch (op) {
    case TernaryOp::Where: return "where";
    case TernaryOp::Clamp: return "clamp";
    case TernaryOp::Addcmul: return "addcmul";
    case TernaryOp::Addcdiv: return "addcdiv";
  }
  return "?";
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "amax";
    case ReduceOp::Min: return "amin";
    case ReduceOp::ArgMax: return "argmax";
    case ReduceOp::ArgMin: return "argmin";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Var: return "var";
    case ReduceOp::LogSumExp: return "logsumexp";
    case ReduceOp::Norm: return "norm";
  }
  return "?";
}

}  // namespace brisk

#include "exec/ir_onnx_ops.hpp"

namespace condlint::exec {

const std::map<std::string, std::string>& ir_binary_ops() {
  static const std::map<std::string, std::string> ops{{"Add", "Add"},
                                                      {"Subtract", "Sub"},
                                                      {"Multiply", "Mul"},
                                                      {"Maximum", "Max"},
                                                      {"Minimum", "Min"},
                                                      {"Power", "Pow"},
                                                      {"Equal", "Equal"},
                                                      {"Less", "Less"},
                                                      {"Greater", "Greater"},
                                                      {"LessEqual", "LessOrEqual"},
                                                      {"GreaterEqual", "GreaterOrEqual"},
                                                      {"LogicalAnd", "And"},
                                                      {"LogicalOr", "Or"},
                                                      {"LogicalXor", "Xor"}};
  return ops;
}

const std::map<std::string, std::string>& ir_unary_ops() {
  static const std::map<std::string, std::string> ops{{"Relu", "Relu"},   {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"},
                                                      {"Exp", "Exp"},     {"Log", "Log"},         {"Sqrt", "Sqrt"},
                                                      {"Abs", "Abs"},     {"Negative", "Neg"},    {"LogicalNot", "Not"},
                                                      {"Floor", "Floor"}, {"Ceiling", "Ceil"},
                                                      // As OpenVINO's serializer spells them: opset1 Relu is written
                                                      // ReLU; opset16 Identity passes its input on.
                                                      {"ReLU", "Relu"},   {"Identity", "Identity"}};
  return ops;
}

const std::map<std::string, std::string>& ir_exec_unary_ops() {
  static const std::map<std::string, std::string> ops{
      {"Sin", "Sin"},     {"Cos", "Cos"},     {"Tan", "Tan"},     {"Asin", "Asin"},   {"Acos", "Acos"},
      {"Atan", "Atan"},   {"Sinh", "Sinh"},   {"Cosh", "Cosh"},   {"Asinh", "Asinh"}, {"Acosh", "Acosh"},
      {"Atanh", "Atanh"}, {"Erf", "Erf"},     {"Sign", "Sign"},   {"Mish", "Mish"},   {"SoftPlus", "Softplus"}};
  return ops;
}

}  // namespace condlint::exec

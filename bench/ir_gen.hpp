// Generators of synthetic OpenVINO IR models, shared by the tests and the benchmarks.
#pragma once

#include <string>

namespace condlint::gen {

// An If nested `depth` levels deep: each level's then_body holds the next If. Valid: lints clean.
// Built as prefixes + core + suffixes in one pass, so its cost is linear in depth.
inline std::string nested_if_ir(int depth) {
  auto param = [](int id, const char* name, bool cond) {
    return std::string("<layer id=\"") + std::to_string(id) + "\" name=\"" + name +
           "\" type=\"Parameter\" version=\"opset1\"><data element_type=\"" + (cond ? "boolean" : "f32") +
           "\" shape=\"" + (cond ? "" : "1") + "\"/><output><port id=\"0\" precision=\"" + (cond ? "BOOL" : "FP32") +
           "\"" + (cond ? "/>" : "><dim>1</dim></port>") + "</output></layer>\n";
  };
  const std::string result = "<layer id=\"3\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim></port></input></layer>\n";
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"nested\" version=\"11\">\n";
  for (int k = 0; k < depth; ++k) {
    s += "<layers>\n" + param(0, "c", true) + param(1, "x", false);
    s += "<layer id=\"2\" name=\"if_" + std::to_string(k) + "\" type=\"If\" version=\"opset8\">\n";
    s += "<input><port id=\"0\"/><port id=\"1\"><dim>1</dim></port><port id=\"2\"/></input>\n";
    s += "<output><port id=\"3\" precision=\"FP32\"><dim>1</dim></port></output>\n";
    s += "<then_port_map><input external_port_id=\"1\" internal_layer_id=\"1\"/><input external_port_id=\"2\" internal_layer_id=\"0\"/><output external_port_id=\"0\" internal_layer_id=\"3\"/></then_port_map>\n";
    s += "<else_port_map><input external_port_id=\"1\" internal_layer_id=\"0\"/><output external_port_id=\"0\" internal_layer_id=\"1\"/></else_port_map>\n";
    s += "<else_body><layers>\n" + param(0, "y", false) +
         "<layer id=\"1\" name=\"else_out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim></port></input></layer>\n"
         "</layers><edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/></edges></else_body>\n";
    s += "<then_body>\n";
  }
  s += "<layers>\n" + param(0, "c", true) + param(1, "x", false) + result + "</layers>\n";
  s += "<edges><edge from-layer=\"1\" from-port=\"0\" to-layer=\"3\" to-port=\"0\"/></edges>\n";
  for (int k = depth - 1; k >= 0; --k) {
    s += "</then_body>\n</layer>\n" + result + "</layers>\n";
    s += "<edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>"
         "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"2\" to-port=\"1\"/>"
         "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"2\"/>"
         "<edge from-layer=\"2\" from-port=\"3\" to-layer=\"3\" to-port=\"0\"/></edges>\n";
  }
  s += "</net>\n";
  return s;
}

}  // namespace condlint::gen

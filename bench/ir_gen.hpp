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
  const std::string result =
      "<layer id=\"3\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port "
      "id=\"0\"><dim>1</dim></port></input></layer>\n";
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"nested\" version=\"11\">\n";
  for (int k = 0; k < depth; ++k) {
    s += "<layers>\n" + param(0, "c", true) + param(1, "x", false);
    s += "<layer id=\"2\" name=\"if_" + std::to_string(k) + "\" type=\"If\" version=\"opset8\">\n";
    s += "<input><port id=\"0\"/><port id=\"1\"><dim>1</dim></port><port id=\"2\"/></input>\n";
    s += "<output><port id=\"3\" precision=\"FP32\"><dim>1</dim></port></output>\n";
    s += "<then_port_map><input external_port_id=\"1\" internal_layer_id=\"1\"/><input external_port_id=\"2\" "
         "internal_layer_id=\"0\"/><output external_port_id=\"0\" internal_layer_id=\"3\"/></then_port_map>\n";
    s += "<else_port_map><input external_port_id=\"1\" internal_layer_id=\"0\"/><output external_port_id=\"0\" "
         "internal_layer_id=\"1\"/></else_port_map>\n";
    s += "<else_body><layers>\n" + param(0, "y", false) +
         "<layer id=\"1\" name=\"else_out\" type=\"Result\" version=\"opset1\"><input><port "
         "id=\"0\"><dim>1</dim></port></input></layer>\n"
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

namespace condlint::gen {

// A flat chain of `ifs` If layers, each branch a chain of `ops` unary layers between a Parameter and
// a Result: about ifs * (2 * ops + 5) layers. Valid: lints clean. 2,000 Ifs x 8 ops = 42,000 layers.
inline std::string flat_if_chain_ir(int ifs, int ops) {
  const char* kinds[] = {"Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Negative", "Sqrt", "Floor"};
  auto port = [](int id, bool out) {
    return std::string("<port id=\"") + std::to_string(id) + "\"" + (out ? " precision=\"FP32\"" : "") +
           "><dim>1</dim><dim>16</dim></port>";
  };
  auto body = [&](const std::string& tag, const std::string& prefix) {
    std::string s = "<" + tag + "><layers>\n<layer id=\"0\" name=\"" + prefix +
                    "_p\" type=\"Parameter\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,16\"/><output>" +
                    port(0, true) + "</output></layer>\n";
    for (int i = 1; i <= ops; ++i)
      s += "<layer id=\"" + std::to_string(i) + "\" name=\"" + prefix + "_op" + std::to_string(i) + "\" type=\"" +
           kinds[(i - 1) % 8] + "\" version=\"opset1\"><input>" + port(0, false) + "</input><output>" + port(1, true) +
           "</output></layer>\n";
    s += "<layer id=\"" + std::to_string(ops + 1) + "\" name=\"" + prefix +
         "_r\" type=\"Result\" version=\"opset1\"><input>" + port(0, false) + "</input></layer>\n</layers><edges>\n";
    for (int i = 1; i <= ops + 1; ++i)
      s += "<edge from-layer=\"" + std::to_string(i - 1) + "\" from-port=\"" + (i == 1 ? "0" : "1") + "\" to-layer=\"" +
           std::to_string(i) + "\" to-port=\"0\"/>\n";
    return s + "</edges></" + tag + ">\n";
  };
  std::string s = "<?xml version=\"1.0\"?>\n<net name=\"chain\" version=\"11\">\n<layers>\n";
  s += "<layer id=\"0\" name=\"c\" type=\"Parameter\" version=\"opset1\"><data element_type=\"boolean\" "
       "shape=\"\"/><output><port id=\"0\" precision=\"BOOL\"/></output></layer>\n";
  s += "<layer id=\"1\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data element_type=\"f32\" "
       "shape=\"1,16\"/><output>" +
       port(0, true) + "</output></layer>\n";
  const std::string then_ops = "then", else_ops = "else";
  for (int k = 0; k < ifs; ++k) {
    const std::string id = std::to_string(k + 2);
    s += "<layer id=\"" + id + "\" name=\"if_" + std::to_string(k) + "\" type=\"If\" version=\"opset8\">\n";
    s += "<input><port id=\"0\"/>" + port(1, false) + "</input><output>" + port(2, true) + "</output>\n";
    s += "<then_port_map><input external_port_id=\"1\" internal_layer_id=\"0\"/><output external_port_id=\"0\" "
         "internal_layer_id=\"" +
         std::to_string(ops + 1) + "\"/></then_port_map>\n";
    s += "<else_port_map><input external_port_id=\"1\" internal_layer_id=\"0\"/><output external_port_id=\"0\" "
         "internal_layer_id=\"" +
         std::to_string(ops + 1) + "\"/></else_port_map>\n";
    s += body("then_body", "t" + std::to_string(k)) + body("else_body", "e" + std::to_string(k)) + "</layer>\n";
  }
  s += "<layer id=\"" + std::to_string(ifs + 2) + "\" name=\"out\" type=\"Result\" version=\"opset1\"><input>" +
       port(0, false) + "</input></layer>\n";
  s += "</layers>\n<edges>\n";
  for (int k = 0; k < ifs; ++k) {
    const std::string id = std::to_string(k + 2);
    s += "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"" + id + "\" to-port=\"0\"/>\n";
    s += "<edge from-layer=\"" + (k == 0 ? std::string("1") : std::to_string(k + 1)) + "\" from-port=\"" +
         (k == 0 ? "0" : "2") + "\" to-layer=\"" + id + "\" to-port=\"1\"/>\n";
  }
  s += "<edge from-layer=\"" + std::to_string(ifs + 1) + "\" from-port=\"2\" to-layer=\"" + std::to_string(ifs + 2) +
       "\" to-port=\"0\"/>\n";
  return s + "</edges>\n</net>\n";
}

// cond, x <x_type>[2] -> If(then: Relu(x), else: <else_op>(x)) declared <out_prec>; the body values <prec>
// (the tests of the IR executor and the export).
inline std::string if_relu_ir(const std::string& else_op, const std::string& x_type = "f32",
                              const std::string& prec = "FP32", const std::string& out_prec = "FP32") {
  auto body = [&](const std::string& op) {
    return R"(<layers>
  <layer id="0" name="p" type="Parameter" version="opset1"><data element_type=")" +
           x_type + R"(" shape="2"/><output><port id="0" precision=")" + prec +
           R"("><dim>2</dim></port></output></layer>
  <layer id="1" name="op" type=")" +
           op +
           R"(" version="opset1"><input><port id="0"><dim>2</dim></port></input><output><port id="1" precision=")" +
           prec + R"("><dim>2</dim></port></output></layer>
  <layer id="2" name="r" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>)";
  };
  return R"(<?xml version="1.0"?>
<net name="t" version="11"><layers>
<layer id="0" name="cond" type="Parameter" version="opset1"><data element_type="boolean" shape=""/><output><port id="0" precision="BOOL"/></output></layer>
<layer id="1" name="x" type="Parameter" version="opset1"><data element_type=")" +
         x_type + R"(" shape="2"/><output><port id="0" precision=")" + prec + R"("><dim>2</dim></port></output></layer>
<layer id="2" name="sel" type="If" version="opset8">
<input><port id="0"/><port id="1"><dim>2</dim></port></input>
<output><port id="2" precision=")" +
         out_prec + R"("><dim>2</dim></port></output>
<then_port_map><input external_port_id="1" internal_layer_id="0"/><output external_port_id="0" internal_layer_id="2"/></then_port_map>
<else_port_map><input external_port_id="1" internal_layer_id="0"/><output external_port_id="0" internal_layer_id="2"/></else_port_map>
<then_body>)" +
         body("Relu") + R"(</then_body>
<else_body>)" +
         body(else_op) + R"(</else_body>
</layer>
<layer id="3" name="out" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>
)";
}

}  // namespace condlint::gen

// NNAPI model JSON loader (docs/nnapi-json.md): a position-tracking parse (json_pos), the schema
// checks of schemas/nnapi-model.schema.json written out by hand (each violation a problem with a
// JSON pointer), defaults, the `value` shorthand packed into operandValues, Blob files read from
// inside the document's directory only, then the unified Model: one Graph per subgraph, one Node
// per operation, and one Conditional view per IF. Never throws; bad input becomes problems.
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>

#include "loaders/json_pos.hpp"
#include "loaders/loader.hpp"
#include "loaders/branch_follow.hpp"
#include "model/condition_trace.hpp"
#include "model/nnapi_data.hpp"
#include "model/node_path.hpp"

namespace condlint {

namespace {

namespace fs = std::filesystem;
using JNode = json::Node;

constexpr size_t kMaxSchemaProblems = 50;

class NnBuilder {
 public:
  NnBuilder(const std::string& path, const std::string& bytes) : path_(path), text_(bytes), lines_(bytes) {}
  std::unique_ptr<Model> build();

 private:
  // ----- locations -----
  SourceLocation at(int64_t off, std::string ptr, int graph = -1) const {
    SourceLocation l;
    l.offset = off;
    lines_.locate(off, l.line, l.column);
    l.pointer = std::move(ptr);
    l.graph = graph;
    return l;
  }
  SourceLocation at_node(int id, std::string ptr, int graph = -1) const {
    return at(doc_[id].offset(), std::move(ptr), graph);
  }
  NnPos pos(int id) const {
    NnPos p;
    p.offset = doc_[id].offset();
    lines_.locate(p.offset, p.line, p.column);
    return p;
  }

  // ----- problems -----
  void problem(NnProblem::Kind k, std::string msg, SourceLocation loc) {
    if (k == NnProblem::Kind::Schema || k == NnProblem::Kind::Malformed) {
      schema_ok_ = false;
      if (++schema_count_ > kMaxSchemaProblems) return;
      if (schema_count_ == kMaxSchemaProblems) msg += " (further schema problems are not listed)";
    }
    nn_->problems.push_back({k, std::move(msg), std::move(loc)});
  }
  void schema(int id, const std::string& ptr, std::string msg, int graph = -1) {
    problem(NnProblem::Kind::Schema, ptr + ": " + msg, at_node(id, ptr, graph));
  }

  // ----- typed readers (schema checks) -----
  bool is(int id, JNode::Kind k, const std::string& ptr, std::string_view what, int graph = -1) {
    if (doc_[id].kind == k) return true;
    schema(id, ptr,
           std::string("must be ") + std::string(what) + ", not " + std::string(json::kind_name(doc_[id].kind)), graph);
    return false;
  }
  // Checks the object's members against the allowed and required names.
  bool object(int id, const std::string& ptr, std::initializer_list<std::string_view> allowed,
              std::initializer_list<std::string_view> required, std::string_view what, int graph = -1) {
    if (!is(id, JNode::Object, ptr, std::string("an object (") + std::string(what) + ")", graph)) return false;
    const JNode& n = doc_[id];
    bool ok = true;
    for (const auto& [k, off] : n.keys()) {
      bool known = false;
      for (auto a : allowed) known |= (a == k);
      if (!known) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        problem(NnProblem::Kind::Schema,
                ptr + ": unknown member \"" + k + "\" in " + std::string(what) + " (allowed: " + list + ")",
                at(off, ptr + "/" + k, graph));
        ok = false;
      }
    }
    for (auto r : required)
      if (doc_.member(id, r) < 0) {
        schema(id, ptr, std::string(what) + " has no \"" + std::string(r) + "\" member, which is required", graph);
        ok = false;
      }
    return ok;
  }
  std::optional<int64_t> integer(int id, const std::string& ptr, int64_t lo, int64_t hi, std::string_view what,
                                 int graph = -1) {
    const JNode& n = doc_[id];
    if (n.kind != JNode::Number || !n.integral) {
      schema(id, ptr, std::string("must be ") + std::string(what) + " (an integer)", graph);
      return std::nullopt;
    }
    if (n.integer() < lo || n.integer() > hi) {
      schema(id, ptr,
             std::to_string(n.integer()) + " is out of range for " + std::string(what) + " (" + std::to_string(lo) +
                 " … " + std::to_string(hi) + ")",
             graph);
      return std::nullopt;
    }
    return n.integer();
  }
  std::optional<uint32_t> u32(int id, const std::string& ptr, std::string_view what, int graph = -1) {
    auto v = integer(id, ptr, 0, 0xFFFFFFFFll, what, graph);
    if (!v) return std::nullopt;
    return static_cast<uint32_t>(*v);
  }
  bool u32_list(int id, const std::string& ptr, std::vector<uint32_t>& out, std::vector<NnPos>& positions,
                std::string_view what, int graph = -1) {
    if (!is(id, JNode::Array, ptr, "an array of non-negative integers", graph)) return false;
    bool ok = true;
    const auto& ch = doc_[id].children();
    for (size_t i = 0; i < ch.size(); ++i) {
      auto v = u32(ch[i], ptr + "/" + std::to_string(i), what, graph);
      if (!v) {
        ok = false;
        continue;
      }
      out.push_back(*v);
      positions.push_back(pos(ch[i]));
    }
    return ok;
  }
  std::optional<std::string> str(int id, const std::string& ptr, int graph = -1) {
    if (!is(id, JNode::String, ptr, "a string", graph)) return std::nullopt;
    return doc_[id].text();
  }
  // An enumeration written as a name or a number.
  std::optional<int32_t> enumeration(int id, const std::string& ptr, std::string_view what,
                                     std::optional<int32_t> (*by_name)(std::string_view), int64_t max_std,
                                     bool extensions, int graph) {
    const JNode& n = doc_[id];
    if (n.kind == JNode::String) {
      if (auto v = by_name(n.text())) return v;
      schema(id, ptr,
             "\"" + n.text() + "\" is not an " + std::string(what) + " name (names are upper case, as in AIDL)", graph);
      return std::nullopt;
    }
    if (n.kind == JNode::Number && n.integral) {
      if ((n.integer() >= 0 && n.integer() <= max_std) ||
          (extensions && n.integer() >= 65536 && n.integer() <= 2147483647))
        return static_cast<int32_t>(n.integer());
      schema(id, ptr, std::to_string(n.integer()) + " is not a valid " + std::string(what) + " number", graph);
      return std::nullopt;
    }
    schema(
        id, ptr,
        std::string("must be an ") + std::string(what) + " name or number, not " + std::string(json::kind_name(n.kind)),
        graph);
    return std::nullopt;
  }

  // ----- document parts -----
  void read_document();
  void read_subgraph(int id, const std::string& ptr, int graph);
  void read_operand(int id, const std::string& ptr, int graph, NnOperand& o);
  void read_operation(int id, const std::string& ptr, int graph, NnOperation& op);
  bool read_blob(int id, const std::string& ptr, NnBlob& b);
  void read_examples(int id);
  void read_value(int id, const std::string& ptr, NnValue& v, bool allow_null);
  void pack_values();
  bool load_file_blob(const std::string& rel, NnBlob& b, std::string& why);

  // ----- model -----
  void build_graphs();
  void build_views();
  ValueDesc value_of(int g, int64_t operand) const;

  const std::string& path_;
  std::string_view text_;
  LineIndex lines_;
  json::Document doc_;
  std::unique_ptr<Model> model_;
  NnapiData* nn_ = nullptr;
  bool schema_ok_ = true;
  size_t schema_count_ = 0;
  struct PendingValue {
    int graph;
    size_t operand;
    int node;  // the `value` array
  };
  std::vector<PendingValue> values_;
  bool value_items_ok(const PendingValue& pv, const NnOperand& o);
  bool encode_value(const PendingValue& pv, const NnOperand& o, std::string& bytes);
};

// ---------------------------------------------------------------------------------------------
// Reading

void NnBuilder::read_document() {
  const int root = 0;
  nn_->doc_loc = at_node(root, "");
  if (!object(root, "",
              {"format", "version", "name", "main", "referenced", "operandValues", "pools",
               "relaxComputationFloat32toFloat16", "examples"},
              {"format", "version", "main"}, "the document"))
    if (doc_[root].kind != JNode::Object) return;
  if (int f = doc_.member(root, "format"); f >= 0) {
    if (doc_[f].kind != JNode::String || doc_[f].text() != "nnapi-model")
      schema(f, "/format", "must be \"nnapi-model\"");
  }
  if (int v = doc_.member(root, "version"); v >= 0) {
    if (doc_[v].kind != JNode::Number || !doc_[v].integral || doc_[v].integer() != 1)
      schema(v, "/version", "must be 1 (the only version of this format)");
  }
  if (int n = doc_.member(root, "name"); n >= 0)
    if (auto s = str(n, "/name")) nn_->name = *s;
  if (int r = doc_.member(root, "relaxComputationFloat32toFloat16"); r >= 0)
    if (is(r, JNode::Bool, "/relaxComputationFloat32toFloat16", "a boolean"))
      nn_->relax_float32_to_float16 = doc_[r].boolean;

  // Subgraphs: main, then referenced[i] as graph i + 1.
  const int main_id = doc_.member(root, "main");
  const int refs = doc_.member(root, "referenced");
  size_t nref = 0;
  if (refs >= 0 && is(refs, JNode::Array, "/referenced", "an array of subgraphs")) nref = doc_[refs].children().size();
  nn_->subgraphs.resize(1 + nref);
  nn_->subgraphs[0].label = "main";
  for (size_t i = 0; i < nref; ++i) nn_->subgraphs[i + 1].label = "referenced/" + std::to_string(i);
  if (main_id >= 0) read_subgraph(main_id, "/main", 0);
  for (size_t i = 0; i < nref; ++i)
    read_subgraph(doc_[refs].children()[i], "/referenced/" + std::to_string(i), static_cast<int>(i + 1));

  // Constant areas.
  nn_->operand_values_loc = nn_->doc_loc;
  if (int ov = doc_.member(root, "operandValues"); ov >= 0) {
    NnBlob b;
    if (read_blob(ov, "/operandValues", b)) {
      nn_->operand_values = std::move(b.bytes);
      nn_->operand_values_loaded = b.loaded;
    }
    nn_->operand_values_loc = b.loc;
  }
  if (int pools = doc_.member(root, "pools"); pools >= 0 && is(pools, JNode::Array, "/pools", "an array of Blobs")) {
    const auto& ch = doc_[pools].children();
    for (size_t i = 0; i < ch.size(); ++i) {
      NnBlob b;
      read_blob(ch[i], "/pools/" + std::to_string(i), b);
      nn_->pools.push_back(std::move(b));
    }
  }
  if (int ex = doc_.member(root, "examples"); ex >= 0) read_examples(ex);
}

void NnBuilder::read_subgraph(int id, const std::string& ptr, int g) {
  NnSubgraph& sg = nn_->subgraphs[g];
  sg.loc = at_node(id, ptr, g);
  sg.inputs_loc = sg.outputs_loc = sg.loc;
  if (!object(id, ptr, {"name", "operands", "operations", "inputIndexes", "outputIndexes"},
              {"operands", "operations", "inputIndexes", "outputIndexes"}, "a subgraph", g) &&
      doc_[id].kind != JNode::Object)
    return;
  if (int n = doc_.member(id, "name"); n >= 0)
    if (auto s = str(n, ptr + "/name", g)) sg.name = *s;
  if (int ops = doc_.member(id, "operands");
      ops >= 0 && is(ops, JNode::Array, ptr + "/operands", "an array of operands", g)) {
    const auto& ch = doc_[ops].children();
    sg.operands.resize(ch.size());
    for (size_t i = 0; i < ch.size(); ++i)
      read_operand(ch[i], ptr + "/operands/" + std::to_string(i), g, sg.operands[i]);
  }
  if (int ops = doc_.member(id, "operations");
      ops >= 0 && is(ops, JNode::Array, ptr + "/operations", "an array of operations", g)) {
    const auto& ch = doc_[ops].children();
    sg.operations.resize(ch.size());
    for (size_t i = 0; i < ch.size(); ++i)
      read_operation(ch[i], ptr + "/operations/" + std::to_string(i), g, sg.operations[i]);
  }
  if (int in = doc_.member(id, "inputIndexes"); in >= 0) {
    sg.inputs_loc = at_node(in, ptr + "/inputIndexes", g);
    u32_list(in, ptr + "/inputIndexes", sg.input_indexes, sg.input_pos, "an operand index", g);
  }
  if (int out = doc_.member(id, "outputIndexes"); out >= 0) {
    sg.outputs_loc = at_node(out, ptr + "/outputIndexes", g);
    u32_list(out, ptr + "/outputIndexes", sg.output_indexes, sg.output_pos, "an operand index", g);
  }
}

void NnBuilder::read_operand(int id, const std::string& ptr, int g, NnOperand& o) {
  o.loc = at_node(id, ptr, g);
  o.type_loc = o.dimensions_loc = o.scale_loc = o.zero_point_loc = o.lifetime_loc = o.location_loc = o.value_loc =
      o.extra_loc = o.consumers_loc = o.loc;
  if (!object(id, ptr,
              {"name", "type", "dimensions", "scale", "zeroPoint", "lifetime", "location", "value", "extraParams",
               "numberOfConsumers"},
              {"type", "lifetime"}, "an operand", g) &&
      doc_[id].kind != JNode::Object)
    return;
  if (int n = doc_.member(id, "name"); n >= 0)
    if (auto s = str(n, ptr + "/name", g)) o.name = *s;
  bool type_ok = false, lifetime_ok = false;
  if (int t = doc_.member(id, "type"); t >= 0) {
    o.type_loc = at_node(t, ptr + "/type", g);
    if (auto v = enumeration(t, ptr + "/type", "operand type", nn::parse_operand_type, 15, true, g)) {
      o.type = *v;
      type_ok = true;
    }
  }
  if (int l = doc_.member(id, "lifetime"); l >= 0) {
    o.lifetime_loc = at_node(l, ptr + "/lifetime", g);
    if (auto v = enumeration(l, ptr + "/lifetime", "operand lifetime", nn::parse_lifetime, 6, false, g)) {
      o.lifetime = *v;
      lifetime_ok = true;
    }
  }
  if (int d = doc_.member(id, "dimensions"); d >= 0) {
    o.dimensions_loc = at_node(d, ptr + "/dimensions", g);
    if (doc_[d].kind == JNode::Array && doc_[d].children().size() > static_cast<size_t>(kMaxRank)) {
      // Past the limit: not built (the operand's rank is unknown); rule C013 reports it.
      o.dims_over_limit = true;
      model_->over_limits.push_back(
          {"operand " + ptr, static_cast<int64_t>(doc_[d].children().size()), kMaxRank, o.dimensions_loc});
    } else {
      u32_list(d, ptr + "/dimensions", o.dimensions, o.dimension_pos, "a dimension", g);
    }
  }
  if (int s = doc_.member(id, "scale"); s >= 0) {
    o.scale_loc = at_node(s, ptr + "/scale", g);
    if (is(s, JNode::Number, ptr + "/scale", "a number", g)) o.scale = doc_[s].number();
  }
  if (int z = doc_.member(id, "zeroPoint"); z >= 0) {
    o.zero_point_loc = at_node(z, ptr + "/zeroPoint", g);
    if (auto v = integer(z, ptr + "/zeroPoint", std::numeric_limits<int32_t>::min(),
                         std::numeric_limits<int32_t>::max(), "a 32-bit zero point", g))
      o.zero_point = static_cast<int32_t>(*v);
  }
  int location_length_node = -1;
  if (int l = doc_.member(id, "location"); l >= 0) {
    const std::string lp = ptr + "/location";
    o.location_loc = at_node(l, lp, g);
    if (object(l, lp, {"poolIndex", "offset", "length"}, {}, "a location", g)) {
      if (int m = doc_.member(l, "poolIndex"); m >= 0)
        o.pool_index = u32(m, lp + "/poolIndex", "a pool index", g).value_or(0);
      if (int m = doc_.member(l, "offset"); m >= 0) o.offset = u32(m, lp + "/offset", "an offset", g).value_or(0);
      if (int m = doc_.member(l, "length"); m >= 0) {
        o.length = u32(m, lp + "/length", "a length", g).value_or(0);
        location_length_node = m;
      }
    }
  }
  if (int e = doc_.member(id, "extraParams"); e >= 0) {
    const std::string ep = ptr + "/extraParams";
    o.extra_loc = at_node(e, ep, g);
    if (doc_[e].kind == JNode::Object && doc_[e].keys().size() == 1 && doc_[e].keys()[0].first == "channelQuant") {
      const int cq = doc_[e].children()[0];
      const std::string cp = ep + "/channelQuant";
      if (object(cq, cp, {"scales", "channelDim"}, {"scales", "channelDim"}, "channelQuant", g)) {
        o.extra = NnOperand::Extra::ChannelQuant;
        const int sc = doc_.member(cq, "scales");
        if (is(sc, JNode::Array, cp + "/scales", "an array of numbers", g))
          for (size_t i = 0; i < doc_[sc].children().size(); ++i) {
            const int s = doc_[sc].children()[i];
            if (is(s, JNode::Number, cp + "/scales/" + std::to_string(i), "a number", g))
              o.channel_scales.push_back(doc_[s].number());
          }
        o.channel_dim = u32(doc_.member(cq, "channelDim"), cp + "/channelDim", "a dimension index", g).value_or(0);
      }
    } else if (doc_[e].kind == JNode::Object && doc_[e].keys().size() == 1 && doc_[e].keys()[0].first == "extension") {
      NnBlob b;
      if (read_blob(doc_[e].children()[0], ep + "/extension", b)) {
        o.extra = NnOperand::Extra::Extension;
        o.extension_bytes = std::move(b.bytes);
      }
    } else {
      schema(e, ep, "must be {\"channelQuant\": {...}} or {\"extension\": Blob}, exactly one member", g);
    }
  }
  if (int c = doc_.member(id, "numberOfConsumers"); c >= 0) {
    o.consumers_loc = at_node(c, ptr + "/numberOfConsumers", g);
    o.number_of_consumers = u32(c, ptr + "/numberOfConsumers", "a consumer count", g);
  }
  if (int v = doc_.member(id, "value"); v >= 0) {
    o.value_loc = at_node(v, ptr + "/value", g);
    if (!is(v, JNode::Array, ptr + "/value", "an array", g)) return;
    bool ok = true;
    if (lifetime_ok && o.lifetime != nn::CONSTANT_COPY) {
      schema(v, ptr + "/value",
             "`value` is only allowed on CONSTANT_COPY operands, this one is " + nn::lifetime_name(o.lifetime), g);
      ok = false;
    }
    if (location_length_node >= 0 && o.length != 0) {
      schema(location_length_node, ptr + "/location/length",
             "an operand with `value` must not also give a non-zero location.length (two sources for one constant)", g);
      ok = false;
    }
    if (type_ok && (o.type == nn::SUBGRAPH || nn::is_extension(o.type))) {
      schema(v, ptr + "/value", "`value` cannot be used with " + nn::operand_type_name(o.type), g);
      ok = false;
    }
    if (ok && type_ok) values_.push_back({g, static_cast<size_t>(&o - nn_->subgraphs[g].operands.data()), v});
  }
}

void NnBuilder::read_operation(int id, const std::string& ptr, int g, NnOperation& op) {
  op.loc = at_node(id, ptr, g);
  op.type_loc = op.inputs_loc = op.outputs_loc = op.loc;
  if (!object(id, ptr, {"type", "inputs", "outputs"}, {"type", "inputs", "outputs"}, "an operation", g) &&
      doc_[id].kind != JNode::Object)
    return;
  if (int t = doc_.member(id, "type"); t >= 0) {
    op.type_loc = at_node(t, ptr + "/type", g);
    op.type = enumeration(t, ptr + "/type", "operation type", nn::parse_operation, 105, true, g).value_or(-1);
  }
  if (int in = doc_.member(id, "inputs"); in >= 0) {
    op.inputs_loc = at_node(in, ptr + "/inputs", g);
    u32_list(in, ptr + "/inputs", op.inputs, op.input_pos, "an operand index", g);
  }
  if (int out = doc_.member(id, "outputs"); out >= 0) {
    op.outputs_loc = at_node(out, ptr + "/outputs", g);
    u32_list(out, ptr + "/outputs", op.outputs, op.output_pos, "an operand index", g);
  }
}

bool decode_base64(std::string_view in, std::string& out) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.size() % 4) return false;
  out.clear();
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad) return false;  // data after '='
      v[k] = val(c);
      if (v[k] < 0) return false;
    }
    const uint32_t w = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out += static_cast<char>((w >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(w & 0xFF);
  }
  return true;
}

bool NnBuilder::load_file_blob(const std::string& rel, NnBlob& b, std::string& why) {
  std::error_code ec;
  fs::path dir = fs::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  model_->sources.insert((dir / fs::path(rel)).string());
  const fs::path base = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) {
    why = "cannot resolve the document's directory: " + ec.message();
    return false;
  }
  const fs::path target = fs::weakly_canonical(base / fs::path(rel), ec);
  if (ec) {
    why = "cannot resolve \"" + rel + "\": " + ec.message();
    return false;
  }
  // The resolved path (symbolic links followed) must lie inside the document's directory.
  auto [bi, ti] = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  if (bi != base.end() || ti == target.end()) {
    why = "\"" + rel + "\" resolves to " + target.string() + ", outside the document's directory " + base.string() +
          "; condlint does not open it";
    return false;
  }
  if (!fs::is_regular_file(target, ec)) {
    why = "\"" + rel + "\" (" + target.string() + ") does not exist or is not a regular file";
    return false;
  }
  if (const auto size = fs::file_size(target, ec); !ec) {
    if (std::string big = file_too_large(size); !big.empty()) {
      why = "\"" + rel + "\": " + big;
      return false;
    }
  }
  std::string err;
  if (!read_file(target.string(), b.bytes, err)) {
    why = "cannot read \"" + rel + "\": " + err;
    return false;
  }
  return true;
}

bool NnBuilder::read_blob(int id, const std::string& ptr, NnBlob& b) {
  b.loc = at_node(id, ptr);
  const JNode& n = doc_[id];
  if (n.kind != JNode::Object || n.keys().size() != 1 ||
      (n.keys()[0].first != "base64" && n.keys()[0].first != "file")) {
    schema(id, ptr, "a Blob must be {\"base64\": \"...\"} or {\"file\": \"relative/path\"}, exactly one member");
    return false;
  }
  const int v = n.children()[0];
  const std::string vp = ptr + "/" + n.keys()[0].first;
  auto s = str(v, vp);
  if (!s) return false;
  if (n.keys()[0].first == "base64") {
    if (!decode_base64(*s, b.bytes)) {
      schema(v, vp, "is not padded standard base64 (A-Z a-z 0-9 + /, '=' padding, no whitespace)");
      return false;
    }
    b.loaded = true;
    return true;
  }
  b.from_file = true;
  b.file = *s;
  b.loc = at_node(v, vp);
  const std::string& f = *s;
  bool bad = f.empty() || f[0] == '/' || f[0] == '\\' || f.find('\0') != std::string::npos ||
             (f.size() >= 2 && std::isalpha(static_cast<unsigned char>(f[0])) && f[1] == ':');
  for (size_t i = 0, start = 0; !bad && i <= f.size(); ++i)
    if (i == f.size() || f[i] == '/' || f[i] == '\\') {
      if (f.compare(start, i - start, "..") == 0 && i - start == 2) bad = true;
      start = i + 1;
    }
  if (bad) {
    schema(
        v, vp,
        "\"" + f + "\" must be a relative path inside the document's directory (no leading / or \\, no drive, no ..)");
    return false;
  }
  std::string why;
  if (!load_file_blob(f, b, why)) {
    problem(NnProblem::Kind::Blob, vp + ": " + why, b.loc);
    b.bytes.clear();
    return true;  // structurally fine; the bytes are just not available
  }
  b.loaded = true;
  return true;
}

void NnBuilder::read_value(int id, const std::string& ptr, NnValue& v, bool allow_null) {
  v.loc = at_node(id, ptr);
  if (allow_null && doc_[id].kind == JNode::Null) {
    v.is_null = true;
    return;
  }
  if (!object(id, ptr, {"dimensions", "data"}, {"data"}, "an example value")) return;
  if (int d = doc_.member(id, "dimensions"); d >= 0) {
    std::vector<uint32_t> dims;
    std::vector<NnPos> ps;
    if (u32_list(d, ptr + "/dimensions", dims, ps, "a dimension")) v.dimensions = std::move(dims);
  }
  if (int d = doc_.member(id, "data"); d >= 0 && is(d, JNode::Array, ptr + "/data", "an array")) {
    const auto& ch = doc_[d].children();
    v.data_count = ch.size();
    v.data.reserve(ch.size());
    for (size_t i = 0; i < ch.size(); ++i) {
      const JNode& e = doc_[ch[i]];
      if (e.kind == JNode::Number) v.data.push_back(e.number());
      else if (e.kind == JNode::Bool) v.data.push_back(e.boolean ? 1.0 : 0.0);
      else schema(ch[i], ptr + "/data/" + std::to_string(i), "must be a number or a boolean");
    }
  }
}

void NnBuilder::read_examples(int id) {
  if (!is(id, JNode::Array, "/examples", "an array of examples")) return;
  const auto& ch = doc_[id].children();
  for (size_t i = 0; i < ch.size(); ++i) {
    const std::string p = "/examples/" + std::to_string(i);
    NnExample ex;
    ex.loc = at_node(ch[i], p);
    if (object(ch[i], p, {"name", "inputs", "outputs", "expectFailure"}, {"inputs", "outputs"}, "an example")) {
      if (int n = doc_.member(ch[i], "name"); n >= 0)
        if (auto s = str(n, p + "/name")) ex.name = *s;
      if (int f = doc_.member(ch[i], "expectFailure"); f >= 0 && is(f, JNode::Bool, p + "/expectFailure", "a boolean"))
        ex.expect_failure = doc_[f].boolean;
      for (auto [member, list, nullable] :
           {std::tuple{"inputs", &ex.inputs, false}, std::tuple{"outputs", &ex.outputs, true}}) {
        const int a = doc_.member(ch[i], member);
        const std::string ap = p + "/" + member;
        if (a < 0 || !is(a, JNode::Array, ap, "an array of values")) continue;
        for (size_t k = 0; k < doc_[a].children().size(); ++k) {
          list->emplace_back();
          read_value(doc_[a].children()[k], ap + "/" + std::to_string(k), list->back(), nullable);
        }
      }
    }
    nn_->examples.push_back(std::move(ex));
  }
}

// ----- the `value` shorthand -----

namespace {

// The stored integers a `value` entry may hold for operand type t: [lo, hi] (both 0 for types that hold none).
std::pair<int64_t, int64_t> integer_range(int32_t t) {
  switch (t) {
    case nn::INT32:
    case nn::TENSOR_INT32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case nn::UINT32: return {0, 0xFFFFFFFFll};
    case nn::TENSOR_QUANT8_ASYMM: return {0, 255};
    case nn::TENSOR_QUANT8_ASYMM_SIGNED:
    case nn::TENSOR_QUANT8_SYMM:
    case nn::TENSOR_QUANT8_SYMM_PER_CHANNEL: return {-128, 127};
    case nn::TENSOR_QUANT16_SYMM: return {-32768, 32767};
    case nn::TENSOR_QUANT16_ASYMM: return {0, 65535};
    default: return {0, 0};
  }
}

}  // namespace

// Every entry of a `value` of the operand's type (booleans, numbers, or integers in the stored range); a schema
// problem for each that is not.
bool NnBuilder::value_items_ok(const PendingValue& pv, const NnOperand& o) {
  const std::string& vp = o.value_loc.pointer;
  const auto& items = doc_[pv.node].children();
  const int32_t t = o.type;
  const bool is_bool = t == nn::BOOL || t == nn::TENSOR_BOOL8;
  const bool is_float = t == nn::FLOAT32 || t == nn::TENSOR_FLOAT32 || t == nn::FLOAT16 || t == nn::TENSOR_FLOAT16;
  const auto [lo, hi] = integer_range(t);
  bool items_ok = true;
  for (size_t i = 0; i < items.size(); ++i) {
    const JNode& it = doc_[items[i]];
    const std::string ip = vp + "/" + std::to_string(i);
    if (is_bool) {
      if (it.kind != JNode::Bool) {
        schema(items[i], ip, "must be true or false for " + nn::operand_type_name(t), pv.graph);
        items_ok = false;
      }
    } else if (is_float) {
      if (it.kind != JNode::Number) {
        schema(items[i], ip, "must be a number for " + nn::operand_type_name(t), pv.graph);
        items_ok = false;
      }
    } else if (it.kind != JNode::Number || !it.integral || it.integer() < lo || it.integer() > hi) {
      schema(items[i], ip,
             "must be an integer in " + std::to_string(lo) + " … " + std::to_string(hi) + " for " +
                 nn::operand_type_name(t) + " (the stored integer, not the real value)",
             pv.graph);
      items_ok = false;
    }
  }
  return items_ok;
}

// The entries of a `value` encoded little-endian in the operand's storage type into `bytes`; false (a problem
// recorded) when a float overflows its type.
bool NnBuilder::encode_value(const PendingValue& pv, const NnOperand& o, std::string& bytes) {
  const std::string& vp = o.value_loc.pointer;
  const auto& items = doc_[pv.node].children();
  const int32_t t = o.type;
  const bool is_bool = t == nn::BOOL || t == nn::TENSOR_BOOL8;
  const bool is_float = t == nn::FLOAT32 || t == nn::TENSOR_FLOAT32 || t == nn::FLOAT16 || t == nn::TENSOR_FLOAT16;
  const unsigned es = nn::element_size(t);
  bytes.reserve(items.size() * es);
  for (size_t i = 0; i < items.size(); ++i) {
    const JNode& it = doc_[items[i]];
    uint64_t raw = 0;
    if (is_bool) {
      raw = it.boolean ? 1 : 0;
    } else if (t == nn::FLOAT16 || t == nn::TENSOR_FLOAT16) {
      uint16_t h;
      if (!nn::to_half(it.number(), h)) {
        problem(NnProblem::Kind::Value,
                vp + "/" + std::to_string(i) + ": " + std::to_string(it.number()) +
                    " overflows binary16 (largest finite value 65504)",
                NnapiData::element(o.value_loc, "/" + std::to_string(i), pos(items[i])));
        return false;
      }
      raw = h;
    } else if (is_float) {
      const float f = static_cast<float>(it.number());
      if (!std::isfinite(f)) {
        problem(NnProblem::Kind::Value,
                vp + "/" + std::to_string(i) + ": " + std::to_string(it.number()) + " overflows binary32",
                NnapiData::element(o.value_loc, "/" + std::to_string(i), pos(items[i])));
        return false;
      }
      uint32_t w;
      std::memcpy(&w, &f, 4);
      raw = w;
    } else {
      raw = static_cast<uint64_t>(it.integer());
    }
    for (unsigned k = 0; k < es; ++k) bytes += static_cast<char>((raw >> (8 * k)) & 0xFF);
  }
  return true;
}

void NnBuilder::pack_values() {
  // Document order: main first, then referenced[0], ...; inside a graph by operand index. The
  // pending list was filled in that order while reading.
  for (const PendingValue& pv : values_) {
    NnSubgraph& sg = nn_->subgraphs[pv.graph];
    NnOperand& o = sg.operands[pv.operand];
    const std::string vp = o.value_loc.pointer;
    const size_t entries = doc_[pv.node].children().size();
    o.value_failed = true;  // until packed
    if (!value_items_ok(pv, o)) continue;
    if (o.dims_over_limit) continue;  // C013 reports the shape; its value cannot be checked against it
    // Shape: fully specified, and as many entries as it has elements.
    uint64_t count = 1;
    bool specified = nn::is_scalar(o.type) ? o.dimensions.empty() : !o.dimensions.empty();
    for (uint32_t d : o.dimensions) {
      if (d == 0) specified = false;
      count *= d;
      if (count > (1ull << 32)) specified = false;
    }
    if (!specified) {
      problem(NnProblem::Kind::Value,
              vp + ": `value` needs a fully specified shape, but the operand's dimensions are " + nn::dims_str(o),
              o.value_loc);
      continue;
    }
    if (entries != count) {
      problem(NnProblem::Kind::Value,
              vp + ": `value` has " + std::to_string(entries) + " entries but " + nn::describe_operand(o) + " holds " +
                  std::to_string(count),
              o.value_loc);
      continue;
    }
    std::string bytes;
    if (!encode_value(pv, o, bytes)) continue;
    // Alignment by the byte length of the whole value (Android's getAlignmentForLength).
    const size_t len = bytes.size();
    const size_t align = len >= 4 ? 4 : len >= 2 ? 2 : 1;
    std::string& ov = nn_->operand_values;
    while (ov.size() % align) ov += '\0';
    if (ov.size() + len > 0xFFFFFFFFull) {
      problem(NnProblem::Kind::Value, vp + ": operandValues would exceed 4 GiB", o.value_loc);
      continue;
    }
    o.pool_index = 0;
    o.offset = static_cast<uint32_t>(ov.size());
    o.length = static_cast<uint32_t>(len);
    o.has_value = true;
    o.value_failed = false;
    o.location_loc = o.value_loc;
    ov += bytes;
  }
}

// ---------------------------------------------------------------------------------------------
// The unified model

ValueDesc NnBuilder::value_of(int g, int64_t idx) const {
  ValueDesc v;
  const NnSubgraph& sg = nn_->subgraphs[g];
  if (idx < 0 || idx >= static_cast<int64_t>(sg.operands.size())) {
    v.label = sg.label + " operand " + std::to_string(idx) + " (no such operand)";
    v.loc = sg.loc;
    return v;
  }
  const NnOperand& o = sg.operands[idx];
  v.present = true;
  if (o.type == nn::SUBGRAPH || nn::is_extension(o.type)) v.type.kind = TypeDesc::Kind::Unknown;
  else v.type = TypeDesc::tensor(nn::elem_type(o.type));
  if (nn::is_scalar(o.type)) {
    v.shape = Shape::scalar();
  } else if (o.dimensions.empty()) {
    v.shape = Shape::unknown();
  } else {
    std::vector<Dim> dims;
    for (uint32_t d : o.dimensions) dims.push_back(d == 0 ? Dim::dynamic() : Dim::fixed(d));
    v.shape = Shape::of(std::move(dims));
  }
  // NNAPI writes both a scalar and a tensor of unknown rank as `[]`.
  v.scalar_or_dynamic_rank = o.dimensions.empty();
  v.label = sg.label + " operand " + std::to_string(idx) + (o.name.empty() ? "" : " '" + o.name + "'");
  v.loc = o.loc;
  return v;
}

// The role of the subgraph an operation's input `slot` names: an IF's branches (inputs 1 and 2) "then" and
// "else", a WHILE's (inputs 0 and 1) "cond" and "body"; null for any other input.
static const char* subgraph_role(int type, size_t slot) {
  if (type == nn::kIf) return slot == 1 ? "then" : slot == 2 ? "else" : nullptr;
  if (type == nn::kWhile) return slot == 0 ? "cond" : slot == 1 ? "body" : nullptr;
  return nullptr;
}

void NnBuilder::build_graphs() {
  auto& graphs = model_->graphs;
  const size_t n = nn_->subgraphs.size();
  graphs.resize(n);
  ValueTypeTable types;  // the ports' types, one copy per distinct type and shape
  for (size_t g = 0; g < n; ++g) {
    const NnSubgraph& sg = nn_->subgraphs[g];
    Graph& gr = graphs[g];
    gr.role = sg.label;
    gr.loc = sg.loc;
    gr.loc.graph = static_cast<int>(g);
    // Producer of each operand (first writer), for Node::sources.
    std::vector<std::pair<int, int>> producer(sg.operands.size(), {-1, -1});
    for (size_t k = 0; k < sg.operations.size(); ++k)
      for (size_t j = 0; j < sg.operations[k].outputs.size(); ++j) {
        const uint32_t o = sg.operations[k].outputs[j];
        if (o < producer.size() && producer[o].first < 0) producer[o] = {static_cast<int>(k), static_cast<int>(j)};
      }
    gr.nodes.resize(sg.operations.size());
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const NnOperation& op = sg.operations[k];
      Node& node = gr.nodes[k];
      node.id = std::to_string(k);
      node.op = nn::operation_name(op.type);
      node.name = node_path::node_segment("", node.op.str(), k);  // NNAPI operations have no names
      node.loc = op.loc;
      node.loc.node_index = static_cast<int>(k);
      auto port = [&](uint32_t idx, const SourceLocation& l) {
        Port p;
        const ValueDesc v = value_of(static_cast<int>(g), idx);
        p.id = std::to_string(idx);
        p.set_type(types.get(v.type, v.shape));
        p.set_loc(l);
        return p;
      };
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        node.inputs.push_back(
            port(op.inputs[j], NnapiData::element(op.inputs_loc, "/" + std::to_string(j), op.input_pos[j])));
        ValueRef src;
        if (op.inputs[j] < producer.size() && producer[op.inputs[j]].first >= 0 &&
            producer[op.inputs[j]].first < static_cast<int>(k))
          src = ValueRef{static_cast<int>(g), producer[op.inputs[j]].first, producer[op.inputs[j]].second};
        node.sources.push_back(src);
      }
      for (size_t j = 0; j < op.outputs.size(); ++j)
        node.outputs.push_back(
            port(op.outputs[j], NnapiData::element(op.outputs_loc, "/" + std::to_string(j), op.output_pos[j])));
    }
  }
  // Tree: each referenced graph hangs under the first operation (breadth first from main) that
  // names it; a graph reached again (several IFs, a cycle) is not visited twice.
  std::vector<char> seen(n, 0);
  std::deque<int> queue{0};
  seen[0] = 1;
  while (!queue.empty()) {
    const int g = queue.front();
    queue.pop_front();
    const NnSubgraph& sg = nn_->subgraphs[g];
    auto visit = [&](uint32_t operand, int node, const char* role) {
      if (operand >= sg.operands.size()) return;
      const NnOperand& o = sg.operands[operand];
      if (o.lifetime != nn::SUBGRAPH_LT || o.offset >= nn_->referenced_count()) return;
      const int target = static_cast<int>(o.offset) + 1;
      if (seen[target]) return;
      seen[target] = 1;
      graphs[target].parent_graph = g;
      graphs[target].parent_node = node;
      graphs[target].depth = graphs[g].depth + 1;
      // Named by its first use, as the executor names it there ("main/IF#0/then"); a subgraph that is no
      // IF branch or WHILE part keeps its label ("referenced/2").
      if (role) graphs[target].role = role;
      queue.push_back(target);
    };
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const NnOperation& op = sg.operations[k];
      for (size_t j = 0; j < op.inputs.size(); ++j) visit(op.inputs[j], static_cast<int>(k), subgraph_role(op.type, j));
    }
    for (size_t i = 0; i < sg.operands.size(); ++i) visit(static_cast<uint32_t>(i), -1, nullptr);
  }
  for (size_t g = 0; g < n; ++g) {
    for (size_t k = 0; k < nn_->subgraphs[g].operations.size(); ++k) {
      const NnOperation& op = nn_->subgraphs[g].operations[k];
      if (op.type != nn::kIf && op.type != nn::kWhile) continue;
      for (int b = 0; b < 2; ++b) {
        const size_t slot = op.type == nn::kIf ? 1 + b : b;
        if (slot >= op.inputs.size() || op.inputs[slot] >= nn_->subgraphs[g].operands.size()) continue;
        const NnOperand& o = nn_->subgraphs[g].operands[op.inputs[slot]];
        if (o.type == nn::SUBGRAPH && o.offset < nn_->referenced_count())
          graphs[g].nodes[k].bodies.emplace_back(subgraph_role(op.type, slot), static_cast<int>(o.offset) + 1);
      }
    }
  }
}

void NnBuilder::build_views() {
  for (size_t g = 0; g < nn_->subgraphs.size(); ++g) {
    const NnSubgraph& sg = nn_->subgraphs[g];
    for (size_t k = 0; k < sg.operations.size(); ++k) {
      const NnOperation& op = sg.operations[k];
      if (op.type != nn::kIf) continue;
      ConditionalView c;
      c.graph = static_cast<int>(g);
      c.node = static_cast<int>(k);
      c.name = "IF operation " + std::to_string(k) + " in " + sg.label;
      c.loc = op.loc;
      c.loc.node_index = c.node;
      if (!op.inputs.empty() && op.inputs[0] < sg.operands.size()) {
        c.has_condition = true;
        c.condition = value_of(c.graph, op.inputs[0]);
        c.condition.label += ", input 0";
        if (c.graph < static_cast<int>(model_->graphs.size()) &&
            c.node < static_cast<int>(model_->graphs[c.graph].nodes.size()))
          c.provenance = trace_node_input(*model_, c.graph, c.node, 0);
        // Android rejects a condition of unknown size outright (not "cannot prove one element"):
        // NN021 reports those, so C003/C004 are told not to judge this shape.
        if (nn::has_unknown_size(sg.operands[op.inputs[0]])) c.condition.scalar_or_dynamic_rank = true;
      }
      for (size_t j = 0; j < op.outputs.size(); ++j) {
        ValueDesc v = value_of(c.graph, op.outputs[j]);
        v.label += ", IF output " + std::to_string(j);
        c.outputs.push_back(std::move(v));
      }
      for (int b = 0; b < 2; ++b) {
        BranchView& br = c.branch[b];
        br.name = b == 0 ? "then" : "else";
        const size_t slot = 1 + b;
        if (slot >= op.inputs.size() || op.inputs[slot] >= sg.operands.size()) continue;
        const NnOperand& ref = sg.operands[op.inputs[slot]];
        if (ref.type != nn::SUBGRAPH || ref.offset >= nn_->referenced_count()) continue;
        br.graph = static_cast<int>(ref.offset) + 1;
        const NnSubgraph& bg = nn_->subgraphs[br.graph];
        for (size_t i = 0; i < bg.input_indexes.size() && 3 + i < op.inputs.size(); ++i) {
          InputBinding ib;
          ib.outer_index = static_cast<int>(3 + i);
          ib.outer = value_of(c.graph, op.inputs[3 + i]);
          ib.inner = value_of(br.graph, bg.input_indexes[i]);
          ib.inner.label += " (" + br.name + " input " + std::to_string(i) + ")";
          ib.loc = NnapiData::element(op.inputs_loc, "/" + std::to_string(3 + i), op.input_pos[3 + i]);
          ib.loc.node_index = c.node;
          br.inputs.push_back(std::move(ib));
        }
        for (size_t j = 0; j < bg.output_indexes.size(); ++j) {
          OutputBinding ob;
          ob.output_index = static_cast<int>(j);
          ob.value = value_of(br.graph, bg.output_indexes[j]);
          ob.value.label += " (" + br.name + " output " + std::to_string(j) + ")";
          ob.loc = NnapiData::element(bg.outputs_loc, "/" + std::to_string(j), bg.output_pos[j]);
          br.outputs.push_back(std::move(ob));
        }
      }
      model_->conditionals.push_back(std::move(c));
    }
  }
}

std::unique_ptr<Model> NnBuilder::build() {
  model_ = std::make_unique<Model>();
  model_->format = Format::NNAPI;
  model_->path = path_;
  model_->nnapi = std::make_unique<NnapiData>();
  nn_ = model_->nnapi.get();
  json::Error err;
  if (!json::parse(text_, doc_, err)) {
    problem(NnProblem::Kind::Malformed, "not valid JSON: " + err.message, at(err.offset, ""));
  } else {
    read_document();
    if (schema_ok_) pack_values();
  }
  nn_->structurally_valid = schema_ok_;
  doc_ = json::Document{};  // the DOM is no longer needed; free it before the model is built
  if (!schema_ok_ || nn_->subgraphs.empty()) {
    // Only the parse findings are reported; keep a main graph so that paths read "main".
    model_->graphs.resize(1);
    model_->graphs[0].role = "main";
    nn_->subgraphs.clear();
    return std::move(model_);
  }
  build_graphs();
  build_views();
  // The operations each branch of an IF breaks (C014), by NNAPI's shape rules.
  follow_nnapi_branches(*model_);
  return std::move(model_);
}

}  // namespace

std::unique_ptr<Model> load_nnapi(const std::string& path, const std::string& bytes) {
  try {
    NnBuilder b(path, bytes);
    return b.build();
  } catch (const std::exception& e) {
    // Out of memory or a library failure: report it as a finding rather than crash.
    auto m = std::make_unique<Model>();
    m->format = Format::NNAPI;
    m->path = path;
    m->graphs.resize(1);
    m->graphs[0].role = "main";
    m->nnapi = std::make_unique<NnapiData>();
    SourceLocation l;
    m->nnapi->problems.push_back(
        {NnProblem::Kind::Malformed, std::string("the document could not be loaded: ") + e.what(), l});
    return m;
  }
}

}  // namespace condlint

#include "importers/nnapi_testmodel.hpp"
#include "io/output.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "loaders/loader.hpp"
#include "model/nnapi_data.hpp"

namespace condlint {

namespace {

using ojson = nlohmann::ordered_json;

// ----- tokens -----

struct Tok {
  enum Kind { End, Ident, Number, String, Punct, Comment } kind = End;
  std::string text;
  size_t line = 1;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  std::vector<Tok> run() {
    std::vector<Tok> out;
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == '\n') {
        ++line_;
        ++p_;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++p_;
        continue;
      }
      if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '/') {
        const size_t e = s_.find('\n', p_);
        const size_t end = e == std::string_view::npos ? s_.size() : e;
        std::string t(s_.substr(p_ + 2, end - p_ - 2));
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
        out.push_back({Tok::Comment, t, line_});
        p_ = end;
        continue;
      }
      if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '*') {
        const size_t e = s_.find("*/", p_ + 2);
        const size_t end = e == std::string_view::npos ? s_.size() : e + 2;
        for (size_t i = p_; i < end; ++i) line_ += s_[i] == '\n';
        p_ = end;
        continue;
      }
      if (c == '#') {  // preprocessor line
        const size_t e = s_.find('\n', p_);
        p_ = e == std::string_view::npos ? s_.size() : e;
        continue;
      }
      if (c == '"') {
        std::string t;
        ++p_;
        while (p_ < s_.size() && s_[p_] != '"' && s_[p_] != '\n') {
          if (s_[p_] == '\\' && p_ + 1 < s_.size()) ++p_;
          t += s_[p_++];
        }
        ++p_;
        out.push_back({Tok::String, t, line_});
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t b = p_;
        while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' ||
                                  (s_[p_] == ':' && p_ + 1 < s_.size() && s_[p_ + 1] == ':' && (p_ += 1))))
          ++p_;
        out.push_back({Tok::Ident, std::string(s_.substr(b, p_ - b)), line_});
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && p_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_ + 1])))) {
        size_t b = p_;
        while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.' ||
                                  ((s_[p_] == '-' || s_[p_] == '+') && (s_[p_ - 1] == 'e' || s_[p_ - 1] == 'E'))))
          ++p_;
        out.push_back({Tok::Number, std::string(s_.substr(b, p_ - b)), line_});
        continue;
      }
      out.push_back({Tok::Punct, std::string(1, c), line_});
      ++p_;
    }
    out.push_back({Tok::End, "", line_});
    return out;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
  size_t line_ = 1;
};

// ----- values of the initializer language -----

struct Val {
  enum Kind { Scalar, List, Object, Call } kind = Scalar;
  std::string text;                                                  // Scalar: the token(s); Call: the callee
  std::string templ;                                                 // Call: template argument
  std::vector<std::shared_ptr<Val>> items;                           // List items; Call arguments
  std::vector<std::pair<std::string, std::shared_ptr<Val>>> fields;  // Object
  std::string comment;                                               // `// name` right after the opening brace
  size_t line = 0;
  const Val* field(std::string_view n) const {
    for (const auto& [k, v] : fields)
      if (k == n) return v.get();
    return nullptr;
  }
};
using ValP = std::shared_ptr<Val>;

struct ParseError {
  std::string message;
  size_t line;
};

class Parser {
 public:
  Parser(const std::vector<Tok>& t, size_t i) : t_(t), i_(i) {}
  size_t pos() const { return i_; }

  ValP value(int depth = 0) {
    if (depth > 64) throw ParseError{"initializer nested deeper than 64 levels", peek().line};
    skip_comments();
    const Tok& t = peek();
    auto v = std::make_shared<Val>();
    v->line = t.line;
    if (is("{")) {
      ++i_;
      if (peek().kind == Tok::Comment) v->comment = t_[i_++].text;
      skip_comments();
      if (is("}")) {
        ++i_;
        v->kind = Val::List;
        return v;
      }
      if (is(".")) {
        v->kind = Val::Object;
        for (;;) {
          skip_comments();
          expect(".");
          const Tok& name = next();
          if (name.kind != Tok::Ident) throw ParseError{"expected a field name after '.'", name.line};
          expect("=");
          v->fields.emplace_back(name.text, value(depth + 1));
          skip_comments();
          if (is(",")) {
            ++i_;
            skip_comments();
            if (is("}")) {
              ++i_;
              break;
            }
            continue;
          }
          expect("}");
          break;
        }
        return v;
      }
      v->kind = Val::List;
      for (;;) {
        v->items.push_back(value(depth + 1));
        skip_comments();
        if (is(",")) {
          ++i_;
          skip_comments();
          if (is("}")) {
            ++i_;
            break;
          }
          continue;
        }
        expect("}");
        break;
      }
      return v;
    }
    if (is("-") || is("+")) {
      const std::string sign = next().text;
      const Tok& n = next();
      if (n.kind != Tok::Number && n.kind != Tok::Ident) throw ParseError{"expected a number after the sign", n.line};
      v->text = (sign == "-" ? "-" : "") + n.text;
      return v;
    }
    if (t.kind == Tok::Number || t.kind == Tok::String) {
      v->text = next().text;
      return v;
    }
    if (t.kind == Tok::Ident) {
      v->text = next().text;
      if (is("<")) {  // template argument
        ++i_;
        while (!is(">") && peek().kind != Tok::End) v->templ += next().text;
        expect(">");
      }
      if (is("(")) {
        ++i_;
        v->kind = Val::Call;
        if (!is(")")) {
          for (;;) {
            v->items.push_back(value(depth + 1));
            if (is(",")) {
              ++i_;
              continue;
            }
            break;
          }
        }
        expect(")");
      }
      return v;
    }
    throw ParseError{"unexpected '" + t.text + "' in an initializer", t.line};
  }

 private:
  const Tok& peek() const { return t_[std::min(i_, t_.size() - 1)]; }
  const Tok& next() {
    const Tok& t = peek();
    if (i_ < t_.size() - 1) ++i_;
    return t;
  }
  bool is(std::string_view p) const { return peek().kind == Tok::Punct && peek().text == p; }
  void expect(std::string_view p) {
    if (!is(p)) throw ParseError{"expected '" + std::string(p) + "' but found '" + peek().text + "'", peek().line};
    ++i_;
  }
  void skip_comments() {
    while (peek().kind == Tok::Comment) ++i_;
  }
  const std::vector<Tok>& t_;
  size_t i_;
};

// ----- conversion -----

std::string enum_tail(const Val* v) {
  if (!v) return "";
  const auto p = v->text.rfind("::");
  return p == std::string::npos ? v->text : v->text.substr(p + 2);
}

std::vector<std::string> scalars(const Val* v) {
  std::vector<std::string> out;
  if (!v) return out;
  if (v->kind == Val::Scalar) out.push_back(v->text);
  for (const auto& it : v->items)
    if (it->kind == Val::Scalar) out.push_back(it->text);
  return out;
}

int64_t to_int(const std::string& s, size_t line) {
  std::string t = s;
  while (!t.empty() && (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L')) t.pop_back();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.c_str(), &end, 0);
  if (t.empty() || *end || errno) throw ParseError{"\"" + s + "\" is not an integer", line};
  return v;
}

ojson to_number(const std::string& s, size_t line) {
  if (s == "true") return true;
  if (s == "false") return false;
  std::string t = s;
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F') && t.find_first_of("xX") == std::string::npos) t.pop_back();
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || *end || !std::isfinite(d)) throw ParseError{"\"" + s + "\" is not a finite number", line};
  if (t.find_first_of(".eE") == std::string::npos && std::fabs(d) < 9e15) return static_cast<int64_t>(d);
  return d;
}

// The data of a TestBuffer::createFromVector<T>({...}) call; empty for `{}`.
std::pair<std::vector<ojson>, size_t> buffer(const Val* v) {
  std::vector<ojson> out;
  if (!v) return {out, 0};
  const Val* list = v;
  if (v->kind == Val::Call) list = v->items.empty() ? nullptr : v->items[0].get();
  if (list)
    for (const auto& s : scalars(list)) out.push_back(to_number(s, list->line));
  return {out, v->line};
}

std::vector<uint32_t> u32_list(const Val* v) {
  std::vector<uint32_t> out;
  for (const auto& s : scalars(v)) out.push_back(static_cast<uint32_t>(to_int(s, v->line)));
  return out;
}

// Little-endian bytes of the values for a CONSTANT_REFERENCE pool.
std::string encode(int32_t type, const std::vector<ojson>& vals, size_t line) {
  std::string out;
  const unsigned es = nn::element_size(type);
  for (const auto& j : vals) {
    uint64_t raw = 0;
    const double d = j.is_boolean() ? (j.get<bool>() ? 1.0 : 0.0) : j.get<double>();
    if (type == nn::FLOAT32 || type == nn::TENSOR_FLOAT32) {
      const float f = static_cast<float>(d);
      uint32_t w;
      std::memcpy(&w, &f, 4);
      raw = w;
    } else if (type == nn::FLOAT16 || type == nn::TENSOR_FLOAT16) {
      uint16_t h;
      if (!nn::to_half(d, h)) throw ParseError{"a float16 constant overflows", line};
      raw = h;
    } else {
      raw = static_cast<uint64_t>(static_cast<int64_t>(d));
    }
    for (unsigned k = 0; k < es; ++k) out += static_cast<char>((raw >> (8 * k)) & 0xFF);
  }
  return out;
}

std::string base64(const std::string& b) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < b.size(); i += 3) {
    const uint32_t w = (uint8_t(b[i]) << 16) | (uint8_t(b[i + 1]) << 8) | uint8_t(b[i + 2]);
    for (int k = 3; k >= 0; --k) out += a[(w >> (6 * k)) & 63];
  }
  if (i + 1 == b.size()) {
    const uint32_t w = uint8_t(b[i]) << 16;
    out += a[(w >> 18) & 63];
    out += a[(w >> 12) & 63];
    out += "==";
  } else if (i + 2 == b.size()) {
    const uint32_t w = (uint8_t(b[i]) << 16) | (uint8_t(b[i + 1]) << 8);
    out += a[(w >> 18) & 63];
    out += a[(w >> 12) & 63];
    out += a[(w >> 6) & 63];
    out += '=';
  }
  return out;
}

struct Converted {
  ojson doc;
  std::string pool;
};

ojson convert_subgraph(const Val& sg, std::string& pool, std::vector<std::pair<std::vector<ojson>, bool>>* data,
                       bool is_main) {
  ojson g = ojson::object();
  ojson operands = ojson::array();
  const Val* ops = sg.field("operands");
  if (!ops) throw ParseError{"a subgraph has no .operands", sg.line};
  for (const auto& o : ops->items) {
    if (o->kind != Val::Object) throw ParseError{"an operand is not a designated initializer", o->line};
    ojson j = ojson::object();
    if (!o->comment.empty()) j["name"] = o->comment;
    const std::string type = enum_tail(o->field("type"));
    const auto t = nn::parse_operand_type(type);
    if (!t) throw ParseError{"unknown operand type \"" + type + "\"", o->line};
    j["type"] = type;
    j["dimensions"] = u32_list(o->field("dimensions"));
    if (const Val* s = o->field("scale")) j["scale"] = to_number(s->text, s->line);
    if (const Val* z = o->field("zeroPoint")) j["zeroPoint"] = to_int(z->text, z->line);
    std::string lifetime = enum_tail(o->field("lifetime"));
    if (!nn::parse_lifetime(lifetime)) throw ParseError{"unknown operand lifetime \"" + lifetime + "\"", o->line};
    j["lifetime"] = lifetime;
    auto [vals, line] = buffer(o->field("data"));
    if (lifetime == "SUBGRAPH") {
      if (vals.size() != 1) throw ParseError{"a SUBGRAPH operand's data must hold its subgraph index", o->line};
      j["location"] = {{"offset", vals[0]}};
    } else if (lifetime == "CONSTANT_COPY") {
      j["value"] = vals;
    } else if (lifetime == "CONSTANT_REFERENCE" || lifetime == "CONSTANT_POOL") {
      while (pool.size() % 4) pool += '\0';
      const std::string bytes = encode(*t, vals, line);
      j["location"] = {{"poolIndex", 0}, {"offset", pool.size()}, {"length", bytes.size()}};
      pool += bytes;
    }
    if (const Val* cq = o->field("channelQuant"); cq && cq->kind == Val::Object) {
      ojson scales = ojson::array();
      if (const Val* s = cq->field("scales"))
        for (const auto& x : scalars(s)) scales.push_back(to_number(x, s->line));
      const Val* cd = cq->field("channelDim");
      if (!scales.empty())
        j["extraParams"] = {
            {"channelQuant", {{"scales", scales}, {"channelDim", cd ? to_int(cd->text, cd->line) : 0}}}};
    }
    if (const Val* n = o->field("numberOfConsumers")) j["numberOfConsumers"] = to_int(n->text, n->line);
    if (data) {
      const Val* ig = o->field("isIgnored");
      data->emplace_back(std::move(vals), ig && ig->text == "true");
    }
    operands.push_back(std::move(j));
  }
  ojson operations = ojson::array();
  if (const Val* list = sg.field("operations"))
    for (const auto& op : list->items) {
      if (op->kind != Val::Object) throw ParseError{"an operation is not a designated initializer", op->line};
      const std::string type = enum_tail(op->field("type"));
      if (!nn::parse_operation(type)) throw ParseError{"unknown operation type \"" + type + "\"", op->line};
      operations.push_back(
          {{"type", type}, {"inputs", u32_list(op->field("inputs"))}, {"outputs", u32_list(op->field("outputs"))}});
    }
  g["operands"] = std::move(operands);
  g["operations"] = std::move(operations);
  g["inputIndexes"] = u32_list(sg.field("inputIndexes"));
  g["outputIndexes"] = u32_list(sg.field("outputIndexes"));
  (void)is_main;
  return g;
}

ojson convert_model(const Val& m, const std::string& name) {
  ojson doc = ojson::object();
  doc["format"] = "nnapi-model";
  doc["version"] = 1;
  doc["name"] = name;
  const Val* main = m.field("main");
  if (!main || main->kind != Val::Object) throw ParseError{"the TestModel has no .main", m.line};
  std::string pool;
  std::vector<std::pair<std::vector<ojson>, bool>> data;
  doc["main"] = convert_subgraph(*main, pool, &data, true);
  ojson refs = ojson::array();
  if (const Val* r = m.field("referenced"))
    for (const auto& sg : r->items) refs.push_back(convert_subgraph(*sg, pool, nullptr, false));
  doc["referenced"] = std::move(refs);
  if (!pool.empty()) doc["pools"] = ojson::array({{{"base64", base64(pool)}}});
  if (const Val* relaxed = m.field("isRelaxed")) doc["relaxComputationFloat32toFloat16"] = relaxed->text == "true";
  // Golden data: main's inputs and outputs.
  ojson ex = ojson::object();
  ex["name"] = name;
  ojson ins = ojson::array(), outs = ojson::array();
  const auto& mops = doc["main"]["operands"];
  for (const auto& idx : doc["main"]["inputIndexes"]) {
    const size_t i = idx.get<size_t>();
    if (i >= data.size()) throw ParseError{"an input index names no operand", main->line};
    ins.push_back({{"dimensions", mops[i]["dimensions"]}, {"data", data[i].first}});
  }
  for (const auto& idx : doc["main"]["outputIndexes"]) {
    const size_t i = idx.get<size_t>();
    if (i >= data.size()) throw ParseError{"an output index names no operand", main->line};
    if (data[i].second) outs.push_back(nullptr);
    else outs.push_back({{"dimensions", mops[i]["dimensions"]}, {"data", data[i].first}});
  }
  ex["inputs"] = std::move(ins);
  ex["outputs"] = std::move(outs);
  if (const Val* f = m.field("expectFailure"); f && f->text == "true") ex["expectFailure"] = true;
  doc["examples"] = ojson::array({std::move(ex)});
  return doc;
}

// Pretty-prints with small objects and number lists on one line (one operand per line).
void emit(const ojson& v, std::string& out, int indent) {
  const std::string flat = v.dump();
  bool nested_objects = false;
  if (v.is_array())
    for (const auto& x : v) nested_objects |= x.is_object() || x.is_array();
  if (v.is_object())
    for (const auto& [k, x] : v.items())
      nested_objects |= (x.is_object() && x.dump().size() > 60) || (x.is_array() && !x.empty() && x[0].is_object());
  if (!v.is_structured() || (!nested_objects && (v.is_array() || flat.size() <= 220)) || flat.size() <= 100) {
    out += flat;
    return;
  }
  const std::string pad(static_cast<size_t>(indent + 2), ' ');
  out += v.is_array() ? "[\n" : "{\n";
  size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    out += pad;
    if (v.is_object()) out += ojson(it.key()).dump() + ": ";
    emit(*it, out, indent + 2);
    if (i + 1 < v.size()) out += ',';
    out += '\n';
  }
  out += std::string(static_cast<size_t>(indent), ' ') + (v.is_array() ? "]" : "}");
}

bool safe_name(const std::string& n) {
  if (n.empty() || n[0] == '.' || n.size() > 200) return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

}  // namespace

bool convert_nnapi_testmodels(std::string_view source, std::vector<ImportedModel>& out, std::string& error) {
  try {
    const std::vector<Tok> toks = Lexer(source).run();
    // Functions `get_X() { static TestModel model = {...}; ...}` and registrations add("NAME", get_X()).
    std::map<std::string, ValP> functions;
    std::vector<std::pair<std::string, std::string>> registrations;  // name, function
    std::string last_function;
    for (size_t i = 0; i + 1 < toks.size(); ++i) {
      const Tok& t = toks[i];
      if (t.kind == Tok::Ident && t.text.rfind("get_", 0) == 0 && toks[i + 1].text == "(" && i > 0 &&
          toks[i - 1].text == "&")
        last_function = t.text;
      if (t.kind == Tok::Ident && t.text == "TestModel" && toks[i + 1].kind == Tok::Ident && i + 2 < toks.size() &&
          toks[i + 2].text == "=") {
        if (last_function.empty()) throw ParseError{"a TestModel outside a get_…() function", t.line};
        Parser p(toks, i + 3);
        functions[last_function] = p.value();
        i = p.pos() - 1;
        continue;
      }
      if (t.kind == Tok::Ident && (t.text == "TestModelManager::get") && i + 6 < toks.size() &&
          toks[i + 3].text == "." && toks[i + 4].text == "add") {
        // TestModelManager::get ( ) . add ( "NAME" , get_X ( ) )
        size_t k = i + 5;
        if (toks[k].text != "(" || toks[k + 1].kind != Tok::String || toks[k + 2].text != "," ||
            toks[k + 3].kind != Tok::Ident)
          throw ParseError{"cannot read this TestModelManager::get().add(...) registration", t.line};
        registrations.emplace_back(toks[k + 1].text, toks[k + 3].text);
      }
    }
    if (registrations.empty()) throw ParseError{"no TestModelManager::get().add(\"NAME\", ...) registration found", 1};
    for (const auto& [name, fn] : registrations) {
      auto it = functions.find(fn);
      if (it == functions.end() || it->second->kind != Val::Object)
        throw ParseError{"model \"" + name + "\" is registered from " + fn + "(), which defines no TestModel", 1};
      if (!safe_name(name)) throw ParseError{"model name \"" + name + "\" is not a safe file name", it->second->line};
      std::string text;
      emit(convert_model(*it->second, name), text, 0);
      out.push_back({name, text + "\n"});
    }
    return true;
  } catch (const ParseError& e) {
    error = "line " + std::to_string(e.line) + ": " + e.message;
    return false;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

ImportSummary import_nnapi_testmodels(const std::vector<std::string>& files, const std::string& out_dir) {
  namespace fs = std::filesystem;
  ImportSummary s;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    s.errors.push_back(out_dir + ": " + ec.message());
    return s;
  }
  for (const auto& f : files) {
    std::string text, err;
    if (!read_file(f, text, err)) {
      s.errors.push_back(f + ": " + err);
      continue;
    }
    std::vector<ImportedModel> models;
    if (!convert_nnapi_testmodels(text, models, err)) s.errors.push_back(f + ": " + err);
    for (const auto& m : models) {
      const fs::path p = fs::path(out_dir) / (m.name + ".nnapi.json");
      if (std::string why = io::write_file(p.string(), "the model", [&](std::ostream& o) { o << m.json; });
          !why.empty()) {
        s.errors.push_back(why);
        continue;
      }
      s.written.push_back(p.string());
    }
  }
  return s;
}

}  // namespace condlint

// verify_vector: recompute everything a reference vector lists and compare.
#include <algorithm>
#include <stdexcept>

#include "poreplab/graph/parent_table.hpp"
#include "poreplab/hash/sha256.hpp"
#include "poreplab/checked.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/sdr/porep_id.hpp"
#include "poreplab/unavailable.hpp"
#include "poreplab/sdr/tree_d.hpp"
#include "poreplab/seal/vector_file.hpp"

namespace poreplab::seal {

using namespace sdr;  // the pipeline is written in the graph and kernels' vocabulary

namespace {

class checker {
 public:
  checker(const sdr_vector& v, const std::function<void(const check_result&)>& report) : v_(v), report_(report) {}

  void equal(const std::string& name, const std::string& want, const std::string& got) {
    check_result r{name, want == got, {}};
    r.detail = r.ok ? got : "expected " + want + ", got " + got;
    emit(r);
  }
  void emit(const check_result& r) {
    all_ok_ = all_ok_ && r.ok;
    report_(r);
  }
  bool ok() const { return all_ok_; }

  // `first` (list, from node 0) and `sample` (node -> value) of 32-byte items.
  void items(const std::string& what, const nlohmann::json& obj, const std::uint8_t* base, std::uint64_t count) {
    if (obj.contains("sha256")) equal(what + " sha256", str(obj, "sha256", what), sha256_hex(base, count * 32));
    std::uint64_t checked = 0, bad = 0;
    std::string first_bad;
    auto one = [&](std::uint64_t node, const nlohmann::json& want) {
      if (node >= count) throw std::runtime_error(v_.path.string() + ": " + what + ": node " + std::to_string(node) +
                                                  " out of range");
      const std::string got = to_hex(base + 32 * node, 32);
      ++checked;
      if (!want.is_string() || got != want.get<std::string>()) {
        if (bad++ == 0) first_bad = "node " + std::to_string(node) + ": expected " + want.dump() + ", got " + got;
      }
    };
    if (obj.contains("first")) {
      const auto& f = obj.at("first");
      for (std::size_t i = 0; i < f.size(); ++i) one(i, f[i]);
    }
    if (obj.contains("sample"))
      for (const auto& [k, val] : obj.at("sample").items()) one(node_index(k, what), val);
    if (checked != 0)
      emit({what + " first/sample (" + std::to_string(checked) + " nodes)", bad == 0,
            bad == 0 ? "" : std::to_string(bad) + " mismatches; " + first_bad});
  }

  std::string str(const nlohmann::json& obj, const std::string& key, const std::string& where) const {
    if (!obj.contains(key) || !obj.at(key).is_string())
      throw std::runtime_error(v_.path.string() + ": " + where + "/" + key + ": missing or not a string");
    return obj.at(key).get<std::string>();
  }

  std::uint64_t node_index(const std::string& k, const std::string& where) const {
    try {
      std::size_t pos = 0;
      const auto n = std::stoull(k, &pos);
      if (pos == k.size()) return n;
    } catch (const std::exception&) {
    }
    throw std::runtime_error(v_.path.string() + ": " + where + "/sample: key '" + k + "' is not a node index");
  }

 private:
  const sdr_vector& v_;
  const std::function<void(const check_result&)>& report_;
  bool all_ok_ = true;
};

std::string parents_json_row(const std::uint32_t* row) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < 14; ++i) a.push_back(row[i]);
  return a.dump();
}

// The tree files' names and sizes against files_after_pc2, when the vector lists them.
void check_pc2_files(checker& c, const sdr_vector& v, const std::vector<pc2_file>& files) {
  const auto& j = v.json;
  if (!j.contains("files_after_pc2")) return;
  std::uint64_t matched = 0;
  for (const auto& want : files)
    for (const auto& f : j.at("files_after_pc2"))
      if (f.is_object() && f.value("name", "") == want.name) {
        c.equal("pc2 file " + want.name + " bytes", f.at("bytes").dump(), std::to_string(want.bytes));
        ++matched;
      }
  c.equal("pc2 tree files listed in files_after_pc2", std::to_string(files.size()), std::to_string(matched));
}

// PC2 on the backend's Poseidon from the labels and replica just recomputed: each of
// comm_c, comm_r_last and comm_r the vector gives (null or absent: not in the vector, as
// in one from before PC2 or from a PC1-only tool), and the tree files' names and sizes.
void check_pc2(checker& c, const sdr_vector& v, backend& be, const memory_layer_store& store,
               const std::uint8_t* replica) {
  const auto& j = v.json;
  std::vector<std::string> given, absent;
  for (const std::string f : kPc2Fields) (j.contains(f) && !j.at(f).is_null() ? given : absent).push_back(f);
  for (const auto& f : absent) c.emit({f, true, "not in the vector (null or absent): PC2 not checked against it", true});
  if (given.empty()) return;
  std::vector<pc2_file> files;
  try {
    files = pc2_tree_files(v.sector_size);
  } catch (const std::invalid_argument& e) {
    c.emit({"pc2", true, e.what(), true});
    return;
  }
  check_pc2_files(c, v, files);
  if (v.layers != 2 && v.layers != 11) {
    c.emit({"pc2", true, std::to_string(v.layers) + " layers: PC2 hashes columns of 2 or 11", true});
    return;
  }
  std::unique_ptr<pc2_hasher> h;
  try {
    h = be.make_pc2_hasher();
  } catch (const unavailable_error& e) {
    c.emit({"pc2 (" + be.name() + ")", true, e.what(), true});
    return;
  }
  std::vector<const std::uint8_t*> labels;
  for (std::uint32_t l = 1; l <= v.layers; ++l) labels.push_back(store.layer(l));
  const pc2_result r = build_pc2_in_memory(labels, replica, v.nodes, tree_shape_for_sector_size(v.sector_size), *h);
  const std::string who = " (" + be.name() + ")";
  const std::pair<std::string, bytes32> got[] = {{"comm_c", r.comm_c}, {"comm_r_last", r.comm_r_last}, {"comm_r", r.comm_r}};
  for (const auto& [name, value] : got)
    if (std::find(given.begin(), given.end(), name) != given.end()) c.equal(name + who, c.str(j, name, ""), to_hex(value));
}

}  // namespace

bool verify_vector(const sdr_vector& v, backend& be, const std::function<void(const check_result&)>& report) {
  checker c(v, report);
  const auto& j = v.json;

  // Data, tree_d (2x), parent table, every layer and the replica, refused up front.
  require_memory(checked_add(checked_mul(v.sector_size, std::uint64_t{v.layers} + 4, "vector memory"),
                             checked_mul(v.nodes, 56, "vector memory"), "vector memory"),
                 v.path.string());
  const auto data = generate_data(v.generator, v.sector_size);
  if (j.contains("data_sha256"))
    c.equal("data sha256 (" + v.generator + ")", c.str(j, "data_sha256", ""), sha256_hex(data.data(), data.size()));

  const auto g = graph::make_graph_params(v.porep_id.data(), parse_api_version(v.api_version), v.nodes);
  const auto table = graph::parent_table::generate(g);
  if (j.contains("parents")) {
    const auto& p = j.at("parents");
    if (p.contains("sha256"))
      c.equal("parents sha256", c.str(p, "sha256", "parents"), to_hex(graph::parent_table_digest(table.words())));
    std::uint64_t checked = 0, bad = 0;
    std::string first_bad;
    auto one = [&](std::uint64_t node, const nlohmann::json& want) {
      if (node >= v.nodes) throw std::runtime_error(v.path.string() + ": parents: node " + std::to_string(node) +
                                                    " out of range");
      ++checked;
      const auto got = parents_json_row(table.row(node));
      if (want.dump() != got && bad++ == 0)
        first_bad = "node " + std::to_string(node) + ": expected " + want.dump() + ", got " + got;
    };
    if (p.contains("first"))
      for (std::size_t i = 0; i < p.at("first").size(); ++i) one(i, p.at("first")[i]);
    if (p.contains("sample"))
      for (const auto& [k, val] : p.at("sample").items()) one(c.node_index(k, "parents"), val);
    if (j.contains("parents_all"))
      for (std::size_t i = 0; i < j.at("parents_all").size(); ++i) one(i, j.at("parents_all")[i]);
    if (checked != 0)
      c.emit({"parents first/sample/all (" + std::to_string(checked) + " nodes)", bad == 0,
              bad == 0 ? "" : std::to_string(bad) + " mismatches; " + first_bad});
    if (p.contains("parent_cache_file_written_by_pc1"))
      c.equal("parent cache file name", c.str(p, "parent_cache_file_written_by_pc1", "parents"),
              graph::parent_cache_file_name(g));
  }

  std::vector<std::uint8_t> tree(tree_d_bytes(v.nodes));
  const bytes32 comm_d = build_tree_d(data.data(), v.nodes, tree.data());
  c.equal("comm_d", c.str(j, "comm_d", ""), to_hex(comm_d));
  const bytes32 id = replica_id(v.prover_id, v.sector_id, v.ticket, comm_d, v.porep_id);
  c.equal("replica_id", c.str(j, "replica_id", ""), to_hex(id));

  memory_layer_store store(v.nodes * 32, v.layers);
  const label_job job{v.nodes, table.data(), v.layers, 1, id.data()};
  be.label(job, store);
  const auto& labels = j.at("labels");
  for (std::uint32_t l = 1; l <= v.layers; ++l) {
    const std::string what = "layer " + std::to_string(l) + " (" + be.name() + ")";
    c.items(what, labels[l - 1], store.layer(l), v.nodes);
    if (j.contains("labels_hex"))
      c.equal(what + " all labels", j.at("labels_hex").at(l - 1).get<std::string>(),
              to_hex(store.layer(l), v.nodes * 32));
  }

  if (j.at("replica").is_null()) {
    c.emit({"replica", true, "null in the vector: its source produced labels only", true});
  } else {
    std::vector<std::uint8_t> replica(v.sector_size);
    encode(store.layer(v.layers), data.data(), replica.data(), v.nodes);
    c.items("replica", j.at("replica"), replica.data(), v.nodes);
    if (j.contains("replica_hex")) c.equal("replica all nodes", c.str(j, "replica_hex", ""), to_hex(replica));
    check_pc2(c, v, be, store, replica.data());
  }
  return c.ok();
}

}  // namespace poreplab::seal

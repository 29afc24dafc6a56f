// PC2 as a pipeline (pc2_build.hpp): a reader thread reads and checks the next chunks
// while the hashing thread hashes one. Bit-exact with the reference and the vectors on
// cpu and cuda-emu whatever the buffer count; reading overlaps hashing (checked without
// timing: the hashing thread waits for the next read to begin); an error in either stage
// stops both, leaves no tree file under its final name and keeps the previous ones; and
// `pc2` / `bench pc2 --source files` of a sealed directory.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

#include "backends/backends.hpp"
#include "poreplab/hex.hpp"
#include "poreplab/sdr/pc2.hpp"
#include "poreplab/memory_check.hpp"
#include "poreplab/sdr/pc2_build.hpp"
#include "poreplab/seal/pc2_seal.hpp"
#include "poreplab/seal/seal.hpp"
#include "poreplab/seal/vector_file.hpp"
#include "support.hpp"

using namespace poreplab;
namespace fs = std::filesystem;

namespace {

using test::read_bytes;
using test::write_bytes;

std::map<std::string, std::vector<std::uint8_t>> snapshot(const fs::path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> m;
  for (const auto& e : fs::directory_iterator(dir)) m[e.path().filename().string()] = read_bytes(e.path());
  return m;
}

std::vector<std::uint8_t> random_field_nodes(std::mt19937_64& rng, std::uint64_t nodes) {
  std::vector<std::uint8_t> v(nodes * 32);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  for (std::uint64_t i = 0; i < nodes; ++i) v[32 * i + 31] &= 0x3f;  // below 2^254 < r
  return v;
}

const seal::sdr_vector& vector_2kib() {
  static const auto v = seal::load_sdr_vector(test::data_dir() / "vectors" / "StackedDrg2KiBV1_1-A.json");
  return v;
}

// A sealed directory of the 2KiB vector's inputs (PC1 only).
fs::path seal_2kib(const test::temp_dir& tmp, sdr::backend& be) {
  const auto& v = vector_2kib();
  write_bytes(tmp / "staged", seal::generate_data(v.generator, v.sector_size));
  seal::seal(seal::seal_inputs_of(v), tmp / "staged", tmp / "out", be);
  return tmp / "out";
}

// Two layers and a replica of random canonical nodes.
struct two_random_layers {
  std::vector<std::vector<std::uint8_t>> labels;
  std::vector<const std::uint8_t*> ptr;
  std::vector<std::uint8_t> replica;
  two_random_layers(std::uint64_t seed, std::uint64_t nodes) {
    std::mt19937_64 rng(seed);
    labels = {random_field_nodes(rng, nodes), random_field_nodes(rng, nodes)};
    ptr = {labels[0].data(), labels[1].data()};
    replica = random_field_nodes(rng, nodes);
  }
};

// A job over in-memory inputs (one pointer per layer), tree files into `files`.
sdr::pc2_job memory_job(const std::vector<const std::uint8_t*>& labels, const std::uint8_t* replica,
                        std::uint64_t nodes, std::vector<std::vector<std::uint8_t>>& files) {
  const sdr::tree_shape shape = sdr::tree_shape_for_sector_size(nodes * 32);
  const std::uint64_t per_tree = nodes / shape.base_count();
  files.assign(2 * shape.base_count(), {});
  for (std::uint32_t t = 0; t < shape.base_count(); ++t) {
    files[t].assign(sdr::tree_nodes(per_tree, 8) * 32, 0xee);
    files[shape.base_count() + t].assign(sdr::tree_r_last_stored_nodes(per_tree, 8) * 32, 0xee);
  }
  sdr::pc2_job job;
  job.nodes = nodes;
  job.layers = static_cast<std::uint32_t>(labels.size());
  job.shape = shape;
  job.read_label = [labels](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    std::memcpy(o, labels[l - 1] + 32 * first, 32 * count);
  };
  job.read_replica = [replica](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    std::memcpy(o, replica + 32 * first, 32 * count);
  };
  job.write = [&files](std::uint32_t f, std::uint64_t off, const std::uint8_t* p, std::uint64_t n) {
    if (f < files.size() && off + n <= files[f].size()) std::memcpy(files[f].data() + off, p, n);
  };
  return job;
}

// memory_job over `in` in 16 chunks of 8 nodes (columns, then the replica), 3 buffers.
sdr::pc2_job chunks_of_8(const two_random_layers& in, std::uint64_t nodes, std::vector<std::vector<std::uint8_t>>& files,
                         std::uint32_t readers) {
  auto job = memory_job(in.ptr, in.replica.data(), nodes, files);
  job.chunk_nodes = 8;
  job.buffers = 3;
  job.readers = readers;
  return job;
}

// Calls f on the reading thread once each chunk's read is done (a column chunk's last layer,
// or a replica chunk).
void after_each_chunk_read(sdr::pc2_job& job, const std::function<void()>& f) {
  const auto read_label = job.read_label;
  const std::uint32_t layers = job.layers;
  job.read_label = [=](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    read_label(l, first, count, o);
    if (l == layers) f();
  };
  const auto read_replica = job.read_replica;
  job.read_replica = [=](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
    read_replica(first, count, o);
    f();
  };
}

// The hasher of `inner`, throwing at its hash_level call after the first `calls`.
class failing_hasher final : public sdr::pc2_hasher {
 public:
  failing_hasher(sdr::pc2_hasher& inner, int calls) : inner_(inner), left_(calls) {}
  std::string name() const override { return inner_.name(); }
  void hash_columns(std::span<const std::uint8_t* const> layers, std::uint64_t count, std::uint8_t* out) override {
    inner_.hash_columns(layers, count, out);
  }
  void hash_level(const std::uint8_t* in, std::uint64_t count, std::uint32_t arity, std::uint8_t* out) override {
    if (left_-- == 0) throw std::runtime_error("injected hasher failure");
    inner_.hash_level(in, count, arity, out);
  }

 private:
  sdr::pc2_hasher& inner_;
  int left_;
};

}  // namespace

TEST_CASE("pc2 pipeline: every buffer count gives the reference's trees on cpu and cuda-emu", "[pc2]") {
  std::mt19937_64 rng(65);
  for (const std::uint32_t layers : {2u, 11u}) {
    const std::uint64_t nodes = 64;  // a 2KiB sector: one tree of 64 leaves
    std::vector<std::vector<std::uint8_t>> labels;
    std::vector<const std::uint8_t*> ptr;
    for (std::uint32_t l = 0; l < layers; ++l) labels.push_back(random_field_nodes(rng, nodes));
    for (const auto& v : labels) ptr.push_back(v.data());
    const auto replica = random_field_nodes(rng, nodes);
    const auto want = sdr::pc2_reference_for_sector(ptr, replica.data(), nodes * 32, true);
    for (const char* backend : {"cpu", "cuda-emu"}) {
      auto h = make_backend(backend)->make_pc2_hasher();
      for (const std::uint32_t buffers : {1u, 2u, 3u, 5u}) {
        INFO(layers << " layers, " << backend << ", " << buffers << " buffers");
        std::vector<std::vector<std::uint8_t>> files;
        auto job = memory_job(ptr, replica.data(), nodes, files);
        job.chunk_nodes = 8;  // 8 column chunks and 8 replica chunks: the ring turns over
        job.buffers = buffers;
        const auto res = sdr::build_pc2(job, *h);
        CHECK(res.comm_c == want.comm_c);
        CHECK(res.comm_r_last == want.comm_r_last);
        CHECK(res.comm_r == want.comm_r);
        CHECK(files[0] == want.tree_c_files[0]);
        CHECK(files[1] == want.tree_r_last_files[0]);
        CHECK(res.pipeline.chunks == 16);
        CHECK(res.pipeline.bytes_read == nodes * 32 * (layers + 1));
        CHECK(res.pipeline.buffers == buffers);
      }
      // One chunk a tree (the columns', the replica's): no more buffers than the two chunks.
      INFO(layers << " layers, " << backend << ", one chunk a tree");
      std::vector<std::vector<std::uint8_t>> files;
      auto job = memory_job(ptr, replica.data(), nodes, files);
      job.chunk_nodes = nodes;
      job.buffers = 3;
      const auto res = sdr::build_pc2(job, *h);
      CHECK(res.comm_r == want.comm_r);
      CHECK(files[0] == want.tree_c_files[0]);
      CHECK(files[1] == want.tree_r_last_files[0]);
      CHECK(res.pipeline.chunks == 2);
      CHECK(res.pipeline.buffers == 2);
    }
  }
}

TEST_CASE("pc2 chunk on the device schedule: cuda-emu's rows equal the host's, pieces and rows kept apart", "[pc2]") {
  // 8^4 leaves: 8 of cuda-emu's column pieces, 4 rows above them; 2 and 11 layers, and one
  // (a replica chunk: its leaves given, staged into row 0).
  std::mt19937_64 rng(66);
  const std::uint64_t leaves = 4096;
  const std::uint32_t levels = 4;
  const std::uint64_t row_nodes = sdr::chunk_row_offset(leaves, levels + 1);
  CHECK(row_nodes == 4096 + 512 + 64 + 8 + 1);
  auto host = sdr::make_host_pc2_hasher(2);
  auto emu = make_backend("cuda-emu")->make_pc2_hasher();
  for (const std::uint32_t layers : {1u, 2u, 11u}) {
    INFO(layers << " layers");
    std::vector<std::vector<std::uint8_t>> in;
    std::vector<const std::uint8_t*> ptr;
    for (std::uint32_t l = 0; l < layers; ++l) in.push_back(random_field_nodes(rng, leaves));
    for (const auto& v : in) ptr.push_back(v.data());
    std::vector<std::uint8_t> want(32 * row_nodes, 0), got(32 * row_nodes, 0);
    host->hash_chunk(ptr, leaves, levels, want.data());
    emu->hash_chunk(ptr, leaves, levels, got.data());
    const std::uint64_t from = layers == 1 ? 32 * leaves : 0;  // a replica's row 0 is its input
    CHECK(std::equal(want.begin() + static_cast<std::ptrdiff_t>(from), want.end(),
                     got.begin() + static_cast<std::ptrdiff_t>(from)));
    // The root is the hash of its 8 children in the row below it.
    std::vector<std::uint8_t> root(32);
    host->hash_level(want.data() + 32 * sdr::chunk_row_offset(leaves, levels - 1), 1, 8, root.data());
    CHECK(std::equal(root.begin(), root.end(), got.begin() + 32 * static_cast<std::ptrdiff_t>(row_nodes - 1)));
    if (layers > 1) {  // row 0: the columns' hashes
      std::vector<std::uint8_t> columns(32 * leaves);
      host->hash_columns(ptr, leaves, columns.data());
      CHECK(std::equal(columns.begin(), columns.end(), got.begin()));
    }
  }
}

TEST_CASE("pc2 pipeline: the next chunk is read while one is hashed, and not with one buffer", "[pc2]") {
  const std::uint64_t nodes = 64;
  const two_random_layers in(66, nodes);
  const auto& ptr = in.ptr;
  const auto& replica = in.replica;
  auto h = make_backend("cpu")->make_pc2_hasher();
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::uint32_t buffers : {2u, 3u}) {
    INFO(buffers << " buffers");
    auto job = memory_job(ptr, replica.data(), nodes, files);
    job.chunk_nodes = 8;
    job.buffers = buffers;
    // A slow hasher, without clocks: before it is done with chunk k (progress runs on the
    // hashing thread at its end) it waits for chunk k + 1's read to begin on a reader.
    // Reading and hashing taking turns would never let it begin: the wait gives up after
    // seconds and the count below stays 0. It waits for chunk k + 1's own read: with two
    // readers, k + 2's may begin first when the reader of k + 1 is not scheduled.
    std::mutex mu;
    std::condition_variable cv;
    std::vector<char> began(16, 0);  // chunk k: the 8 column chunks, then the 8 replica chunks
    std::uint64_t hashed = 0, gave_up = 0;
    const auto begun = [&](std::uint64_t chunk) {
      {
        std::lock_guard lock(mu);
        began.at(chunk) = 1;
      }
      cv.notify_all();
    };
    const auto read_label = job.read_label;
    job.read_label = [&, read_label](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
      if (l == 1) begun(first / 8);
      read_label(l, first, count, o);
    };
    const auto read_replica = job.read_replica;
    job.read_replica = [&, read_replica](std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
      begun(8 + first / 8);
      read_replica(first, count, o);
    };
    job.progress = [&](std::uint64_t, std::uint64_t) {
      std::unique_lock lock(mu);
      ++hashed;
      if (hashed < 16 && gave_up == 0 &&
          !cv.wait_for(lock, std::chrono::seconds(3), [&] { return began[hashed] != 0; }))
        ++gave_up;
    };
    const auto res = sdr::build_pc2(job, *h);
    CHECK(gave_up == 0);
    CHECK(res.pipeline.overlapped_reads == 15);  // every chunk but the first
  }
  // One buffer: the reader waits for the hasher to give it back, so no read overlaps.
  auto job = memory_job(ptr, replica.data(), nodes, files);
  job.chunk_nodes = 8;
  job.buffers = 1;
  CHECK(sdr::build_pc2(job, *h).pipeline.overlapped_reads == 0);
}

TEST_CASE("pc2 pipeline: with two readers a chunk's read begins before the one before it ends, not with one",
          "[pc2]") {
  const std::uint64_t nodes = 64;
  const two_random_layers in(68, nodes);
  auto h = make_backend("cpu")->make_pc2_hasher();
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::uint32_t readers : {2u, 1u}) {
    INFO(readers << " readers");
    auto job = chunks_of_8(in, nodes, files, readers);
    // Without clocks: each chunk's read (all but the last's) holds on until another
    // chunk's read has begun. One reader never lets one begin: the wait gives up.
    std::mutex mu;
    std::condition_variable cv;
    std::uint64_t begun = 0, gave_up = 0;
    const std::uint64_t chunks = 16;
    const auto hold = [&] {
      std::unique_lock lock(mu);
      const std::uint64_t mine = begun++;
      cv.notify_all();
      if (mine + 1 < chunks && gave_up == 0 &&
          !cv.wait_for(lock, std::chrono::milliseconds(readers == 1 ? 300 : 5000), [&] { return begun > mine + 1; }))
        ++gave_up;
    };
    after_each_chunk_read(job, hold);
    const auto res = sdr::build_pc2(job, *h);
    CHECK(begun == chunks);
    CHECK(gave_up == (readers == 1 ? 1u : 0u));
    CHECK(res.comm_r == sdr::build_pc2_in_memory(in.ptr, in.replica.data(), nodes,
                                                 sdr::tree_shape_for_sector_size(nodes * 32), *h)
                            .comm_r);
  }
}

TEST_CASE("pc2 pipeline: the digest sees every chunk in order on a thread of its own, beside the reads", "[pc2]") {
  const std::uint64_t nodes = 64;
  const two_random_layers in(69, nodes);
  auto h = make_backend("cpu")->make_pc2_hasher();
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::uint32_t readers : {1u, 2u}) {
    INFO(readers << " readers");
    auto job = chunks_of_8(in, nodes, files, readers);
    // The digest of chunk k holds on until chunk k + 1 is read: on the readers' path it
    // never would be, and the wait gives up.
    std::mutex mu;
    std::condition_variable cv;
    std::uint64_t read = 0, gave_up = 0;
    std::vector<std::uint64_t> seen;  // first node of each chunk digested, replica chunks + 1000
    bool bytes_equal = true;
    const auto done = [&] {
      {
        std::lock_guard lock(mu);
        ++read;
      }
      cv.notify_all();
    };
    after_each_chunk_read(job, done);
    job.digest = [&](bool replica, std::uint64_t first, std::uint64_t count, std::span<const std::uint8_t* const> inputs) {
      const std::uint64_t k = seen.size();
      seen.push_back(first + (replica ? 1000 : 0));
      if (replica) {
        bytes_equal = bytes_equal && inputs.size() == 1 &&
                      std::memcmp(inputs[0], in.replica.data() + 32 * first, 32 * count) == 0;
      } else {
        bytes_equal = bytes_equal && inputs.size() == 2;
        for (std::size_t l = 0; l < inputs.size() && bytes_equal; ++l)
          bytes_equal = std::memcmp(inputs[l], in.ptr[l] + 32 * first, 32 * count) == 0;
      }
      std::unique_lock lock(mu);
      if (k + 1 < 16 && gave_up == 0 && !cv.wait_for(lock, std::chrono::seconds(5), [&] { return read > k + 1; }))
        ++gave_up;
    };
    const auto res = sdr::build_pc2(job, *h);
    std::vector<std::uint64_t> want;
    for (std::uint64_t j = 0; j < 8; ++j) want.push_back(8 * j);
    for (std::uint64_t j = 0; j < 8; ++j) want.push_back(1000 + 8 * j);
    CHECK(seen == want);
    CHECK(bytes_equal);
    CHECK(gave_up == 0);
    CHECK(res.pipeline.digest_s > 0);
  }
}

TEST_CASE("pc2 pipeline: chunk buffers that do not fit are refused before any is allocated", "[pc2][reliability]") {
  // A 32GiB sector's tree as one chunk: 2^27 nodes x 32 bytes x 11 layers x 3 buffers.
  sdr::pc2_job job;
  job.nodes = std::uint64_t{1} << 30;
  job.layers = 11;
  job.shape = sdr::tree_shape_for_sector_size(job.nodes * 32);
  job.chunk_nodes = std::uint64_t{1} << 27;
  bool read = false;
  job.read_label = [&read](std::uint32_t, std::uint64_t, std::uint64_t, std::uint8_t*) { read = true; };
  job.read_replica = [&read](std::uint64_t, std::uint64_t, std::uint8_t*) { read = true; };
  const auto hasher = sdr::make_reference_pc2_hasher();
  CHECK_THROWS_AS(sdr::build_pc2(job, *hasher), insufficient_memory);
  CHECK_THROWS_WITH(sdr::build_pc2(job, *hasher), Catch::Contains("pc2: 3 chunk buffers of 134217728 nodes x 11 layers"));
  CHECK_FALSE(read);
}

TEST_CASE("pc2 pipeline: the memory check counts the buffers made, not the ones asked for", "[pc2][reliability]") {
  // An 8MiB sector is two chunks of 2^18 nodes: 16 buffers asked for would take 1.4 GiB of
  // 11-layer chunks, the 2 made 192 MiB. With 1 GiB available the job starts (its first read
  // fails here); with 128 MiB it is refused, naming the 2 buffers.
  sdr::pc2_job job;
  job.nodes = std::uint64_t{1} << 18;
  job.layers = 11;
  job.shape = sdr::tree_shape_for_sector_size(job.nodes * 32);
  job.chunk_nodes = job.nodes;
  job.buffers = 16;
  job.read_label = [](std::uint32_t, std::uint64_t, std::uint64_t, std::uint8_t*) {
    throw std::runtime_error("injected read failure");
  };
  job.read_replica = [](std::uint64_t, std::uint64_t, std::uint8_t*) { throw std::runtime_error("injected read failure"); };
  const auto hasher = sdr::make_reference_pc2_hasher();
  {
    const test::scoped_env avail("POREPLAB_MEM_AVAILABLE", std::to_string(std::uint64_t{1} << 30).c_str());
    CHECK_THROWS_WITH(sdr::build_pc2(job, *hasher), "injected read failure");
  }
  const test::scoped_env avail("POREPLAB_MEM_AVAILABLE", std::to_string(std::uint64_t{128} << 20).c_str());
  CHECK_THROWS_AS(sdr::build_pc2(job, *hasher), insufficient_memory);
  CHECK_THROWS_WITH(sdr::build_pc2(job, *hasher), Catch::Contains("pc2: 2 chunk buffers of 262144 nodes x 11 layers"));
}

TEST_CASE("pc2 pipeline: a reader, hasher or digest error mid-way stops every stage", "[pc2][reliability]") {
  const std::uint64_t nodes = 64;
  const two_random_layers in(67, nodes);
  const auto& ptr = in.ptr;
  const auto& replica = in.replica;
  auto h = make_backend("cpu")->make_pc2_hasher();
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::uint32_t buffers : {1u, 2u, 3u}) {
    INFO(buffers << " buffers");
    // A read failing at chunk 3: no chunk after it is hashed; reads after it only into the
    // buffers free then (the other reader's), since chunk 3's never frees. Chunk 3's buffer
    // is free only once chunk 3 - B was hashed, so chunks 0 to 3 - B were read whole; a
    // reader still waiting for an earlier chunk's buffer may see the error and give up.
    auto job = memory_job(ptr, replica.data(), nodes, files);
    job.chunk_nodes = 8;
    job.buffers = buffers;
    std::atomic<std::uint64_t> reads{0}, later{0};
    std::uint64_t hashed = 0;
    const auto read_label = job.read_label;
    job.read_label = [&, read_label](std::uint32_t l, std::uint64_t first, std::uint64_t count, std::uint8_t* o) {
      if (first == 24) throw std::runtime_error("injected read failure at node 24");
      ++(first < 24 ? reads : later);
      read_label(l, first, count, o);
    };
    job.progress = [&](std::uint64_t, std::uint64_t) { ++hashed; };
    CHECK_THROWS_WITH(sdr::build_pc2(job, *h), "injected read failure at node 24");
    CHECK(reads >= 2 * (4 - buffers));
    CHECK(reads <= 3 * 2);
    CHECK(later <= 2 * (buffers - 1));
    CHECK(hashed <= 3);
    // The hasher failing at chunk 3 (one level a chunk): the reader, however far ahead, stops.
    job = memory_job(ptr, replica.data(), nodes, files);
    job.chunk_nodes = 8;
    job.buffers = buffers;
    failing_hasher bad(*h, 3);
    CHECK_THROWS_WITH(sdr::build_pc2(job, bad), "injected hasher failure");
    // The digest failing at chunk 3 (its own thread): the build stops with its error.
    job = memory_job(ptr, replica.data(), nodes, files);
    job.chunk_nodes = 8;
    job.buffers = buffers;
    std::atomic<std::uint64_t> digested{0};
    job.digest = [&](bool, std::uint64_t first, std::uint64_t, std::span<const std::uint8_t* const>) {
      if (first == 24) throw std::runtime_error("injected digest failure");
      ++digested;
    };
    CHECK_THROWS_WITH(sdr::build_pc2(job, *h), "injected digest failure");
    CHECK(digested == 3);
    // A value >= r names its input and node.
    auto damaged = in.labels[1];
    std::fill_n(damaged.begin() + 32 * 37, 32, 0xff);
    job = memory_job({in.labels[0].data(), damaged.data()}, replica.data(), nodes, files);
    job.chunk_nodes = 8;
    job.buffers = buffers;
    job.input_names = {"/l1", "/l2", "/replica"};
    CHECK_THROWS_WITH(sdr::build_pc2(job, *h),
                      "pc2: /l2: layer 2 label of node 37 is not a canonical field element (>= r)");
  }
}

TEST_CASE("pc2 of a sealed directory through the pipeline: the vector's commitments on cpu and cuda-emu",
          "[pc2][seal]") {
  const auto& v = vector_2kib();
  for (const char* backend : {"cpu", "cuda-emu"}) {
    INFO(backend);
    test::temp_dir tmp("pc2-pipe");
    auto be = make_backend(backend);
    const fs::path dir = seal_2kib(tmp, *be);
    auto h = be->make_pc2_hasher();
    for (const std::uint32_t buffers : {1u, 3u}) {
      seal::pc2_seal_options opt;
      opt.existing = seal::existing_output::replace;
      opt.chunk_nodes = 8;
      opt.buffers = buffers;
      const auto r = seal::pc2_sealed(dir, *h, be->name(), opt);
      CHECK(to_hex(r.trees.comm_c) == v.json.at("comm_c").get<std::string>());
      CHECK(to_hex(r.trees.comm_r_last) == v.json.at("comm_r_last").get<std::string>());
      CHECK(to_hex(r.trees.comm_r) == v.json.at("comm_r").get<std::string>());
      CHECK(r.inputs_checked);
      CHECK(r.trees.pipeline.chunks == 16);
    }
  }
}

TEST_CASE("pc2 stopped by a bad chunk mid-way keeps the previous trees and names the file and node",
          "[pc2][seal][reliability]") {
  test::temp_dir tmp("pc2-pipe");
  auto be = make_backend("cpu");
  const fs::path dir = seal_2kib(tmp, *be);
  auto h = be->make_pc2_hasher();
  seal::pc2_sealed(dir, *h, be->name());
  const auto before = snapshot(dir);
  // Node 37 of layer 2 not a field element: chunk 4 of 8, read after chunks were hashed.
  const fs::path layer2 = dir / seal::layer_file_name(2);
  auto b = read_bytes(layer2);
  std::fill_n(b.begin() + 32 * 37, 32, 0xff);
  write_bytes(layer2, b);
  auto damaged = before;
  damaged[layer2.filename().string()] = b;
  seal::pc2_seal_options opt;
  opt.existing = seal::existing_output::replace;
  opt.chunk_nodes = 8;
  CHECK_THROWS_WITH(seal::pc2_sealed(dir, *h, be->name(), opt),
                    "pc2: " + layer2.string() + ": layer 2 label of node 37 is not a canonical field element (>= r)");
  CHECK(snapshot(dir) == damaged);  // the trees and seal.json as they were, no staging file left
  // The CLI: one line, exit 1.
  const auto run = test::run_poreplab("pc2 --sealed " + test::shell_quote(dir.string()) + " --force", tmp);
  CHECK(run.status == 1);
  CHECK(run.err == "poreplab: error: pc2: " + layer2.string() +
                       ": layer 2 label of node 37 is not a canonical field element (>= r)\n");
  CHECK(snapshot(dir) == damaged);
}

TEST_CASE("bench pc2 --source files times PC2 of a sealed directory, and --source memory is labeled synthetic",
          "[pc2][seal]") {
  const auto& v = vector_2kib();
  test::temp_dir tmp("pc2-pipe");
  auto be = make_backend("cpu");
  const fs::path dir = seal_2kib(tmp, *be);
  const auto before = snapshot(dir);
  auto run = test::run_poreplab(
      "bench pc2 --source files --from " + test::shell_quote(dir.string()) + " --samples 2 --json", tmp);
  REQUIRE(run.status == 0);
  auto j = nlohmann::json::parse(run.out);
  CHECK(j.at("source") == "files");
  CHECK(j.at("comm_r") == v.json.at("comm_r"));
  CHECK(j.at("verified") == true);
  CHECK(j.at("sector_size") == 2048);
  CHECK(j.at("bytes_read") == 2048 * 3);
  CHECK(j.at("feed_s").get<double>() > 0);
  CHECK(j.at("hash_s").get<double>() > 0);
  CHECK(j.at("end_to_end_s").get<double>() >= j.at("hash_s").get<double>());
  CHECK(sdr::kPc2Paces.has(j.at("pace").get<std::string>()));
  CHECK(snapshot(dir) == before);  // only read
  run = test::run_poreplab("bench pc2 --sector-size 2KiB --samples 1 --json", tmp);
  REQUIRE(run.status == 0);
  CHECK(nlohmann::json::parse(run.out).at("source") == "memory");
  run = test::run_poreplab("bench pc2 --sector-size 2KiB --samples 1", tmp);
  CHECK_THAT(run.out, Catch::Contains("memory: generated labels, no disk (synthetic)"));

  // Bad input: one line naming the file, exit 1.
  const auto refused = [&](const std::string& args, const std::string& says) {
    const auto r = test::run_poreplab("bench pc2 " + args, tmp);
    INFO(args << "\n" << r.err);
    test::check_refused(r, says);
  };
  const std::string from = "--source files --from " + test::shell_quote(dir.string()) + " --samples 1";
  const fs::path layer1 = dir / seal::layer_file_name(1);
  const auto layer1_bytes = read_bytes(layer1);
  fs::remove(layer1);
  refused(from, layer1.string());
  write_bytes(layer1, std::vector<std::uint8_t>(layer1_bytes.begin(), layer1_bytes.begin() + 1000));
  refused(from, layer1.string() + ": size 1000 bytes");
  auto lb = layer1_bytes;
  lb[32 * 7 + 5] ^= 1;  // likewise, in a layer: digested on its own thread
  write_bytes(layer1, lb);
  refused(from, layer1.string() + ": SHA-256");
  write_bytes(layer1, layer1_bytes);
  const fs::path replica = dir / seal::kReplicaFile;
  auto rb = read_bytes(replica);
  const auto replica_bytes = rb;
  rb[32 * 3] ^= 1;  // still a field element: only seal.json's digest tells
  write_bytes(replica, rb);
  refused(from, replica.string() + ": SHA-256");
  std::fill_n(rb.begin() + 32 * 9, 32, 0xff);
  write_bytes(replica, rb);
  refused(from, replica.string() + ": replica node 9 is not a canonical field element");
  write_bytes(replica, replica_bytes);
  refused("--source files --samples 1", "--from DIR");
  refused("--source memory --from " + test::shell_quote(dir.string()), "--from: only with --source files");
  refused("--source disk", "unknown pc2 source 'disk' (valid: memory, files)");
}

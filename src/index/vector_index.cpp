#include "index/vector_index.h"

// hnswlib's own SIMD path prefetches one link past the end of a list (an
// out-of-bounds read AddressSanitizer reports); without it hnswlib uses the
// distance of the space below, which has its own AVX2 kernel. hnswlib also
// defines non-inline functions in its headers: this must stay the only file
// that includes it.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_set>

#include "core/half.h"

namespace cilia::index {
namespace {

// Tuned on 20k random unit vectors of dimension 64 (a hard case: real
// embeddings have far lower intrinsic dimension). recall@10 at ef 128:
// M=16 0.88, M=24 0.95, M=32 0.98, for a third more build time than M=16.
constexpr size_t kM = 32;
constexpr size_t kEfConstruction = 100;
constexpr size_t kEfSearch = 128;  // a search uses max(kEfSearch, 2k)
constexpr size_t kRandomSeed = 100;
constexpr size_t kMinCapacity = 1024;
// A filtered graph search gives up for an exact scan of the allowed vectors
// once it would look at more than 1/kExactScanShare of them: past that the
// scan costs less than the graph walk.
constexpr size_t kExactScanShare = 16;
// Inserts per thread worth starting a thread for.
constexpr size_t kInsertsPerThread = 256;
// Pending vectors folded into the graph under one hold of the write lock: a
// search waits for at most one chunk (tens of ms on two cores), since
// hnswlib's searches must not run beside its inserts.
constexpr size_t kFoldChunk = 2 * kInsertsPerThread;

// The cache file's header; the format changes with kFileVersion. Version 1
// held the flat vectors as float32; a file of it is refused, and the start
// that refuses it builds the index from the tables instead.
constexpr char kFileMagic[8] = {'C', 'I', 'L', 'I', 'A', 'V', 'E', 'C'};
constexpr uint32_t kFileVersion = 2;
struct FileHeader {
  char magic[8];
  uint32_t version;
  int32_t dimension;
  uint64_t count;        // live vectors
  uint64_t graph_bytes;  // size of the ".hnsw" file written with it; 0 in flat mode
};
static_assert(std::is_trivially_copyable_v<FileHeader>);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CILIA_DOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CILIA_DOT_CLONES
#endif

// Sixteen independent partial sums vectorise without reassociating floats
// (no -ffast-math); the AVX2+FMA clone is picked at load time where the CPU has it.
CILIA_DOT_CLONES
float Dot(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 16;
  float partial[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) partial[lane] += a[i + lane] * b[i + lane];
  }
  float sum = 0;
  for (float p : partial) sum += p;
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// The k best (id, similarity) pairs offered; ties go to the smaller id.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) { heap_.reserve(k); }

  void Offer(int64_t id, float score) {
    if (heap_.size() < k_) {
      heap_.emplace_back(id, score);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better({id, score}, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = {id, score};
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }

  std::vector<std::pair<int64_t, float>> Take() && {
    std::sort_heap(heap_.begin(), heap_.end(), Better);
    return std::move(heap_);
  }

 private:
  // As the heap's order this keeps the worst kept pair in front.
  static bool Better(const std::pair<int64_t, float>& a, const std::pair<int64_t, float>& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  }

  size_t k_;
  std::vector<std::pair<int64_t, float>> heap_;
};

// The k best of two result lists, an id counted once (the graph's exact
// fallback also scores pending vectors, which the pending scan scores again).
std::vector<std::pair<int64_t, float>> Merge(const std::vector<std::pair<int64_t, float>>& a,
                                             const std::vector<std::pair<int64_t, float>>& b, size_t k) {
  TopK top(k);
  std::unordered_set<int64_t> seen;
  for (const auto* list : {&a, &b}) {
    for (const auto& [id, score] : *list) {
      if (seen.insert(id).second) top.Offer(id, score);
    }
  }
  return std::move(top).Take();
}

// Runs work(i) for every i in [0, n) on up to one thread per core (fewer when
// threads cannot be had); the first error wins.
Status ParallelFor(size_t n, const std::function<void(size_t)>& work) {
  const size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min(hardware, n / kInsertsPerThread + 1);
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  Status error;
  auto run = [&] {
    try {
      for (size_t i = next++; i < n; i = next++) work(i);
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mutex);
      if (error.ok()) error = Status::Internal(std::string("vector index: ") + e.what());
      next = n;
    }
  };
  std::vector<std::thread> pool;
  try {
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(run);
  } catch (const std::system_error&) {
    // Fewer helpers; the work is shared out all the same.
  }
  run();
  for (auto& thread : pool) thread.join();
  return error;
}

// Inner-product distance (1 - dot) over Dot, for unit vectors.
class InnerProductSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit InnerProductSpace(size_t dimension) : dimension_(dimension) {}
  size_t get_data_size() override { return dimension_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &dimension_; }

 private:
  static float Distance(const void* a, const void* b, const void* dimension) {
    return 1.0f -
           Dot(static_cast<const float*>(a), static_cast<const float*>(b), *static_cast<const size_t*>(dimension));
  }
  size_t dimension_;
};

}  // namespace

struct VectorIndex::Graph {
  Graph(int dimension, size_t capacity)
      : space(static_cast<size_t>(dimension)), hnsw(&space, capacity, kM, kEfConstruction, kRandomSeed) {
    hnsw.setEf(kEfSearch);
  }
  // Loads a graph that hnswlib saved; throws on a file it cannot read.
  Graph(int dimension, const std::string& path) : space(static_cast<size_t>(dimension)), hnsw(&space, path) {
    hnsw.setEf(kEfSearch);
    // hnswlib 0.6.2's loadIndex adds the tombstones it finds to a count it
    // never set to zero: count them again.
    hnsw.num_deleted_ = 0;
    for (hnswlib::tableint i = 0; i < hnsw.cur_element_count; ++i) hnsw.num_deleted_ += hnsw.isMarkedDeleted(i) ? 1 : 0;
  }
  // Whether the loaded file's vectors have this graph's dimension.
  bool LayoutMatches(int dimension) const {
    const size_t vector_bytes = static_cast<size_t>(dimension) * sizeof(float);
    return hnsw.offsetData_ == hnsw.size_links_level0_ &&
           hnsw.size_data_per_element_ == hnsw.size_links_level0_ + vector_bytes + sizeof(hnswlib::labeltype);
  }

  size_t live() const { return hnsw.cur_element_count - hnsw.num_deleted_; }
  bool Has(int64_t id) const { return hnsw.label_lookup_.count(static_cast<hnswlib::labeltype>(id)) != 0; }
  bool HasLive(int64_t id) const { return LiveVector(id) != nullptr; }
  // The vector of `id`, or null when there is none or it was removed.
  const float* LiveVector(int64_t id) const {
    auto it = hnsw.label_lookup_.find(static_cast<hnswlib::labeltype>(id));
    if (it == hnsw.label_lookup_.end() || hnsw.isMarkedDeleted(it->second)) return nullptr;
    return reinterpret_cast<const float*>(hnsw.getDataByInternalId(it->second));
  }
  // Calls fn(id, vector) for every vector not removed.
  template <typename Fn>
  void ForEachLive(Fn&& fn) const {
    for (hnswlib::tableint i = 0; i < hnsw.cur_element_count; ++i) {
      if (hnsw.isMarkedDeleted(i)) continue;
      fn(static_cast<int64_t>(hnsw.getExternalLabel(i)), reinterpret_cast<const float*>(hnsw.getDataByInternalId(i)));
    }
  }

  InnerProductSpace space;  // before hnsw, which keeps a pointer to it
  hnswlib::HierarchicalNSW<float> hnsw;
};

VectorIndex::VectorIndex(int dimension, size_t hnsw_threshold)
    : dimension_(std::max(1, dimension)), hnsw_threshold_(hnsw_threshold) {}

VectorIndex::~VectorIndex() = default;

std::shared_lock<std::shared_mutex> VectorIndex::ReadLock() const {
  std::lock_guard pass(turnstile_);
  return std::shared_lock(data_mutex_);
}

std::unique_lock<std::shared_mutex> VectorIndex::WriteLock() {
  // Holding the turnstile stops new searches; the running ones drain.
  std::lock_guard close(turnstile_);
  return std::unique_lock(data_mutex_);
}

size_t VectorIndex::size() const {
  auto lock = ReadLock();
  return (graph_ ? graph_->live() : 0) + ids_.size();
}

size_t VectorIndex::pending() const {
  auto lock = ReadLock();
  return graph_ ? ids_.size() : 0;
}

Status VectorIndex::FoldPending() {
  std::lock_guard write(write_mutex_);
  return FoldPendingLocked();
}

bool VectorIndex::uses_graph() const {
  auto lock = ReadLock();
  return graph_ != nullptr;
}

Status VectorIndex::Upsert(int64_t id, std::span<const float> vector) {
  return UpsertMany(std::span<const int64_t>(&id, 1), vector);
}

Status VectorIndex::Check(std::span<const int64_t> ids, std::span<const float> vectors) const {
  const size_t dim = static_cast<size_t>(dimension_);
  if (vectors.size() != ids.size() * dim) {
    return Status::InvalidArgument("vector index: " + std::to_string(vectors.size()) + " floats for " +
                                   std::to_string(ids.size()) + " vectors of dimension " + std::to_string(dim));
  }
  for (float x : vectors) {
    if (!std::isfinite(RoundToHalf(x))) {
      return Status::InvalidArgument("vector index: a vector holds a value that float16 cannot hold");
    }
  }
  return Status::Ok();
}

Status VectorIndex::UpsertMany(std::span<const int64_t> ids, std::span<const float> given) {
  CILIA_RETURN_IF_ERROR(Check(ids, given));
  std::vector<float> rounded;
  try {
    rounded.assign(given.begin(), given.end());
  } catch (const std::bad_alloc&) {
    return Status::Internal("vector index: out of memory");
  }
  for (float& x : rounded) x = RoundToHalf(x);
  const std::span<const float> vectors = rounded;
  std::lock_guard write(write_mutex_);
  if (graph_) return UpsertPending(ids, vectors);

  try {
    auto lock = WriteLock();
    UpsertFlat(ids, vectors);
  } catch (const std::bad_alloc&) {
    return Status::Internal("vector index: out of memory");
  }
  if (ids_.size() < hnsw_threshold_) return Status::Ok();

  // Built while searches go on over the flat array, which only writers change.
  CILIA_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, BuildGraph(ids_.size() + ids_.size() / 4));
  auto lock = WriteLock();
  graph_ = std::move(graph);
  std::vector<float>().swap(vectors_);
  std::vector<int64_t>().swap(ids_);
  std::unordered_map<int64_t, size_t>().swap(slot_of_);
  return Status::Ok();
}

void VectorIndex::UpsertFlat(std::span<const int64_t> ids, std::span<const float> vectors) {
  const size_t dim = static_cast<size_t>(dimension_);
  for (size_t i = 0; i < ids.size(); ++i) {
    const float* source = vectors.data() + i * dim;
    auto [it, added] = slot_of_.try_emplace(ids[i], ids_.size());
    if (added) {
      ids_.push_back(ids[i]);
      vectors_.insert(vectors_.end(), source, source + dim);
    } else {
      std::copy(source, source + dim, vectors_.begin() + static_cast<ptrdiff_t>(it->second * dim));
    }
  }
}

Status VectorIndex::UpsertPending(std::span<const int64_t> ids, std::span<const float> vectors) {
  try {
    auto lock = WriteLock();
    for (int64_t id : ids) {
      if (graph_->HasLive(id)) graph_->hnsw.markDelete(static_cast<hnswlib::labeltype>(id));
    }
    UpsertFlat(ids, vectors);
  } catch (const std::bad_alloc&) {
    return Status::Internal("vector index: out of memory");
  }
  return ids_.size() < kFoldAt ? Status::Ok() : FoldPendingLocked();
}

Status VectorIndex::FoldPendingLocked() {
  if (!graph_ || ids_.empty()) return Status::Ok();
  const size_t dim = static_cast<size_t>(dimension_);
  hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
  size_t added = 0;
  for (int64_t id : ids_) added += graph_->Has(id) ? 0 : 1;  // a tombstone's slot is reused
  try {
    if (hnsw.cur_element_count + added > hnsw.max_elements_) {
      auto lock = WriteLock();
      hnsw.resizeIndex(std::max(hnsw.max_elements_ * 2, hnsw.cur_element_count + added));
    }
  } catch (const std::exception& e) {
    return Status::Internal(std::string("vector index: ") + e.what());
  }
  // From the back, so that what is left pending stays a prefix of the array.
  while (!ids_.empty()) {
    const size_t first = ids_.size() - std::min(kFoldChunk, ids_.size());
    auto lock = WriteLock();
    CILIA_RETURN_IF_ERROR(ParallelFor(ids_.size() - first, [&](size_t n) {
      const size_t slot = first + n;
      hnsw.addPoint(vectors_.data() + slot * dim, static_cast<hnswlib::labeltype>(ids_[slot]));
    }));
    for (size_t slot = first; slot < ids_.size(); ++slot) slot_of_.erase(ids_[slot]);
    ids_.resize(first);
    vectors_.resize(first * dim);
  }
  return Status::Ok();
}

Result<std::unique_ptr<VectorIndex::Graph>> VectorIndex::BuildGraph(size_t capacity) const {
  std::vector<std::pair<int64_t, const float*>> live;
  if (graph_) {
    live.reserve(graph_->live());
    graph_->ForEachLive([&live](int64_t id, const float* v) { live.emplace_back(id, v); });
  } else {
    live.reserve(ids_.size());
    for (size_t slot = 0; slot < ids_.size(); ++slot) {
      live.emplace_back(ids_[slot], vectors_.data() + slot * static_cast<size_t>(dimension_));
    }
  }
  std::unique_ptr<Graph> graph;
  try {
    graph = std::make_unique<Graph>(dimension_, std::max({capacity, live.size(), kMinCapacity}));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("vector index: ") + e.what());
  }
  CILIA_RETURN_IF_ERROR(ParallelFor(live.size(), [&](size_t i) {
    graph->hnsw.addPoint(live[i].second, static_cast<hnswlib::labeltype>(live[i].first));
  }));
  return graph;
}

void VectorIndex::Remove(int64_t id) {
  std::lock_guard write(write_mutex_);
  if (graph_ && !slot_of_.contains(id)) {
    {
      auto lock = WriteLock();
      if (!graph_->HasLive(id)) return;
      graph_->hnsw.markDelete(static_cast<hnswlib::labeltype>(id));
    }
    MaybeCompact();
    return;
  }
  auto lock = WriteLock();
  auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return;
  // Swap-remove: the last slot moves into the hole.
  const size_t dim = static_cast<size_t>(dimension_);
  const size_t hole = it->second;
  const size_t last = ids_.size() - 1;
  slot_of_.erase(it);
  if (hole != last) {
    std::copy_n(vectors_.begin() + static_cast<ptrdiff_t>(last * dim), dim,
                vectors_.begin() + static_cast<ptrdiff_t>(hole * dim));
    ids_[hole] = ids_[last];
    slot_of_[ids_[hole]] = hole;
  }
  ids_.pop_back();
  vectors_.resize(last * dim);
}

// Tombstones still cost memory and search time: once they outnumber the live
// vectors the graph is rebuilt from the live ones, or given up for the flat
// array when fewer than the threshold remain.
void VectorIndex::MaybeCompact() {
  const size_t live = graph_->live();
  if (graph_->hnsw.num_deleted_ <= live) return;
  if (live + ids_.size() < hnsw_threshold_) {
    ReplaceGraphWithFlat();
    return;
  }
  Result<std::unique_ptr<Graph>> rebuilt = BuildGraph(live + live / 4);
  if (!rebuilt.ok()) return;  // keep searching the old graph; the next removal tries again
  auto lock = WriteLock();
  graph_ = std::move(rebuilt).value();
}

void VectorIndex::ReplaceGraphWithFlat() {
  std::vector<float> vectors;
  std::vector<int64_t> ids;
  std::unordered_map<int64_t, size_t> slot_of;
  const size_t dim = static_cast<size_t>(dimension_);
  try {
    // The pending vectors keep their slots; the graph's live ones follow.
    vectors = vectors_;
    ids = ids_;
    slot_of = slot_of_;
    vectors.reserve((ids_.size() + graph_->live()) * dim);
    ids.reserve(ids_.size() + graph_->live());
    graph_->ForEachLive([&](int64_t id, const float* v) {
      slot_of.emplace(id, ids.size());
      ids.push_back(id);
      vectors.insert(vectors.end(), v, v + dim);
    });
  } catch (const std::bad_alloc&) {
    return;  // stay a graph
  }
  auto lock = WriteLock();
  vectors_ = std::move(vectors);
  ids_ = std::move(ids);
  slot_of_ = std::move(slot_of);
  graph_.reset();
}

Status VectorIndex::SaveTo(const std::string& path) {
  namespace fs = std::filesystem;
  std::lock_guard write(write_mutex_);  // searches may go on: saving only reads
  CILIA_RETURN_IF_ERROR(FoldPendingLocked());  // in graph mode the file holds the graph alone
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.version = kFileVersion;
  header.dimension = dimension_;
  std::error_code ec;
  if (graph_) {
    const std::string graph_path = path + ".hnsw";
    const std::string temporary = graph_path + ".tmp";
    try {
      graph_->hnsw.saveIndex(temporary);
    } catch (const std::exception& e) {
      return Status::IOError("vector index: writing " + temporary + ": " + e.what());
    }
    header.graph_bytes = fs::file_size(temporary, ec);
    if (!ec) fs::rename(temporary, graph_path, ec);
    if (ec) return Status::IOError("vector index: writing " + graph_path + ": " + ec.message());
    header.count = graph_->live();
  } else {
    header.count = ids_.size();
  }

  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    if (!graph_) {
      out.write(reinterpret_cast<const char*>(ids_.data()),
                static_cast<std::streamsize>(ids_.size() * sizeof(int64_t)));
      std::string halves;  // lossless: the index holds float16 values
      AppendHalves(vectors_, halves);
      out.write(halves.data(), static_cast<std::streamsize>(halves.size()));
    }
    out.close();
    if (!out) return Status::IOError("vector index: writing " + temporary + " failed");
  }
  fs::rename(temporary, path, ec);
  if (ec) return Status::IOError("vector index: writing " + path + ": " + ec.message());
  return Status::Ok();
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::LoadFrom(const std::string& path, size_t hnsw_threshold) {
  namespace fs = std::filesystem;
  const std::string not_ours = "vector index: " + path + " is not a usable cache file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("vector index: cannot open " + path);
  FileHeader header{};
  in.read(reinterpret_cast<char*>(&header), sizeof(header));
  if (!in || std::memcmp(header.magic, kFileMagic, sizeof(kFileMagic)) != 0 || header.version != kFileVersion ||
      header.dimension < 1) {
    return Status::IOError(not_ours);
  }
  const size_t dim = static_cast<size_t>(header.dimension);
  auto index = std::make_unique<VectorIndex>(header.dimension, hnsw_threshold);
  std::error_code ec;

  if (header.graph_bytes == 0) {
    // The size must match before anything is allocated from the header's count.
    const uint64_t file_bytes = fs::file_size(path, ec);
    const uint64_t per_vector = sizeof(int64_t) + dim * sizeof(uint16_t);
    if (ec || file_bytes < sizeof(header) || (file_bytes - sizeof(header)) % per_vector != 0 ||
        (file_bytes - sizeof(header)) / per_vector != header.count) {
      return Status::IOError(not_ours + " (cut short or overlong)");
    }
    std::vector<int64_t> ids(header.count);
    std::vector<float> vectors(header.count * dim);
    std::string halves(vectors.size() * sizeof(uint16_t), '\0');
    in.read(reinterpret_cast<char*>(ids.data()), static_cast<std::streamsize>(ids.size() * sizeof(int64_t)));
    in.read(halves.data(), static_cast<std::streamsize>(halves.size()));
    if (!in || !DecodeHalves(halves, vectors)) return Status::IOError(not_ours + " (cut short)");
    CILIA_RETURN_IF_ERROR(index->UpsertMany(ids, vectors));
    return index;
  }

  const std::string graph_path = path + ".hnsw";
  if (fs::file_size(graph_path, ec) != header.graph_bytes || ec) {
    return Status::IOError(not_ours + " (" + graph_path + " is missing or from another save)");
  }
  std::unique_ptr<Graph> graph;
  try {
    graph = std::make_unique<Graph>(header.dimension, graph_path);
  } catch (const std::exception& e) {
    return Status::IOError(not_ours + ": " + e.what());
  }
  if (!graph->LayoutMatches(header.dimension) || graph->live() != header.count) {
    return Status::IOError(not_ours + " (the graph does not match its header)");
  }
  index->graph_ = std::move(graph);
  return index;
}

std::vector<std::pair<int64_t, float>> VectorIndex::Search(std::span<const float> query, size_t k,
                                                           const std::function<bool(int64_t)>& allow) const {
  if (query.size() != static_cast<size_t>(dimension_) || k == 0) return {};
  auto lock = ReadLock();
  try {
    if (!graph_) return ScanFlat(query.data(), k, allow);
    return Merge(SearchGraph(query.data(), k, allow), ScanFlat(query.data(), k, allow), k);
  } catch (const std::exception&) {
    return {};  // only out of memory gets here; nothing found is the one honest answer
  }
}

std::vector<std::pair<int64_t, float>> VectorIndex::SearchAllowed(std::span<const float> query, size_t k,
                                                                  std::span<const int64_t> allowed_ids,
                                                                  const std::function<bool(int64_t)>& allow) const {
  if (query.size() != static_cast<size_t>(dimension_) || k == 0) return {};
  auto lock = ReadLock();
  try {
    if (!graph_) {
      return allowed_ids.size() < ids_.size() ? ScanIds(query.data(), k, allowed_ids)
                                              : ScanFlat(query.data(), k, allow);
    }
    if (allowed_ids.size() <= graph_->live() / kExactScanShare) return ScanIds(query.data(), k, allowed_ids);
    return Merge(SearchGraph(query.data(), k, allow, allowed_ids), ScanFlat(query.data(), k, allow), k);
  } catch (const std::exception&) {
    return {};  // as in Search
  }
}

std::vector<VectorIndex::Hit> VectorIndex::ScanFlat(const float* query, size_t k,
                                                    const std::function<bool(int64_t)>& allow) const {
  const size_t dim = static_cast<size_t>(dimension_);
  TopK top(k);
  for (size_t slot = 0; slot < ids_.size(); ++slot) {
    if (allow && !allow(ids_[slot])) continue;
    top.Offer(ids_[slot], Dot(query, vectors_.data() + slot * dim, dim));
  }
  return std::move(top).Take();
}

std::vector<VectorIndex::Hit> VectorIndex::ScanGraphStorage(const float* query, size_t k,
                                                            const std::function<bool(int64_t)>& allow) const {
  const size_t dim = static_cast<size_t>(dimension_);
  TopK top(k);
  graph_->ForEachLive([&](int64_t id, const float* v) {
    if (!allow || allow(id)) top.Offer(id, Dot(query, v, dim));
  });
  return std::move(top).Take();
}

std::vector<VectorIndex::Hit> VectorIndex::ScanIds(const float* query, size_t k, std::span<const int64_t> ids) const {
  const size_t dim = static_cast<size_t>(dimension_);
  TopK top(k);
  for (int64_t id : ids) {
    const float* vector = graph_ ? graph_->LiveVector(id) : nullptr;
    if (auto it = vector ? slot_of_.end() : slot_of_.find(id); it != slot_of_.end()) {
      vector = vectors_.data() + it->second * dim;
    }
    if (vector) top.Offer(id, Dot(query, vector, dim));
  }
  return std::move(top).Take();
}

std::vector<VectorIndex::Hit> VectorIndex::SearchGraph(const float* query, size_t k,
                                                       const std::function<bool(int64_t)>& allow,
                                                       std::optional<std::span<const int64_t>> allowed_ids) const {
  const size_t live = graph_->live();
  if (live == 0) return {};
  const size_t exact_scan_above = live / kExactScanShare;
  // Unfiltered, 2k candidates (so ef >= 2k) give the k best; filtered, start at 4k.
  size_t fetch = allow ? 4 * k : 2 * k;
  while (true) {
    if (allow && fetch > exact_scan_above) {
      // Listing the allowed ids, when known, costs less than testing every vector.
      return allowed_ids ? ScanIds(query, k, *allowed_ids) : ScanGraphStorage(query, k, allow);
    }
    auto candidates = graph_->hnsw.searchKnn(query, fetch);  // worst first
    const bool exhausted = candidates.size() < fetch;
    TopK top(k);
    size_t allowed = 0;
    for (; !candidates.empty(); candidates.pop()) {
      const auto& [distance, label] = candidates.top();
      const int64_t id = static_cast<int64_t>(label);
      if (allow && !allow(id)) continue;
      ++allowed;
      top.Offer(id, 1.0f - distance);  // inner-product space: distance = 1 - dot
    }
    if (allowed >= k || exhausted) return std::move(top).Take();
    // Ask next for what the share allowed so far suggests, with room to spare.
    const size_t suggested = allowed == 0 ? std::numeric_limits<size_t>::max() / 2 : 2 * fetch * k / allowed;
    fetch = std::max(4 * fetch, suggested);
  }
}

}  // namespace cilia::index

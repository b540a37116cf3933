#include "engine.hpp"

#include <chrono>
#include <stdexcept>

namespace zk {

namespace {
std::mutex engines_mutex;
std::vector<Engine*> live_engines;
std::shared_ptr<Engine> process_engine;
}  // namespace

void key_released(uint64_t id) {
  std::lock_guard<std::mutex> lock(engines_mutex);
  for (Engine* e : live_engines) e->forget(id);
}

Engine::Engine(const EngineOptions& options) : options_(options) {
  if (options_.batch_max < 1) options_.batch_max = 1;
  if (options_.batch_wait_us < 0) options_.batch_wait_us = 0;
  if (options_.backend == "cpu") {
    cpu_ = std::make_unique<CpuCompute>(options_.threads);
    options_.batch_max = 1;  // nothing to gain: proofs run side by side on their own threads
  } else if (options_.backend == "emulate") {
    accel_.push_back(open_emulated(options_.threads, options_.device_budget_bytes));
  } else if (options_.backend == "cuda") {
    CudaStatus status = cuda_status();
    if (!status.ok) throw std::runtime_error(status.reason);
    std::vector<int> devices = options_.devices;
    if (devices.empty())
      for (const auto& d : status.devices) devices.push_back(d.index);
    for (int d : devices) {
      if (d < 0 || d >= (int)status.devices.size())
        throw std::runtime_error("CUDA device " + std::to_string(d) + " does not exist (" +
                                 std::to_string(status.devices.size()) + " visible)");
      accel_.push_back(open_cuda(d, options_.device_budget_bytes));
    }
  } else {
    throw std::runtime_error("unknown backend " + options_.backend);
  }
  for (size_t i = 0; i < accel_.size(); i++) accel_busy_.push_back(std::make_unique<std::mutex>());
  std::lock_guard<std::mutex> lock(engines_mutex);
  live_engines.push_back(this);
}

Engine::~Engine() {
  std::lock_guard<std::mutex> lock(engines_mutex);
  for (size_t i = 0; i < live_engines.size(); i++)
    if (live_engines[i] == this) live_engines.erase(live_engines.begin() + (long)i--);
}

void Engine::forget(uint64_t key_id) {
  for (auto& a : accel_) a->forget(key_id);
}

EngineStats Engine::stats() const {
  EngineStats s;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s = stats_;
  }
  s.resident_bytes = 0;
  for (const auto& a : accel_) s.resident_bytes += a->resident_bytes();
  return s;
}

std::string Engine::describe() const {
  std::string d = options_.backend;
  if (!accel_.empty()) d += " ×" + std::to_string(accel_.size());
  d += ", batches of up to " + std::to_string(options_.batch_max);
  if (options_.batch_max > 1) d += " within " + std::to_string(options_.batch_wait_us) + " µs";
  return d;
}

Compute& Engine::pick_compute(size_t& index) {
  index = next_accel_.fetch_add(1) % accel_.size();
  return *accel_[index];
}

Proof Engine::prove(const ZKey& key, const Scalar* witness, size_t n_witness, const Scalar& r, const Scalar& s,
                    Blinding blinding) {
  if (cpu_) {
    Proof p = zk::prove(key, witness, n_witness, r, s, *cpu_, nullptr, blinding);  // checks its arguments
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.proofs++;
    stats_.batches++;
    stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, 1);
    return p;
  }
  // The batched pass computes snarkjs's quotient from the coefficient section.
  if (key.coefs.empty() || key.gnark_quotient)
    throw std::runtime_error("this key (no coefficient section, or gnark's quotient) proves through prove_evals");
  // A bad witness fails alone, before it can join (and spoil) a batch.
  check_witness(key, witness, n_witness);
  check_blinding(r, blinding);
  Pending me;
  me.key = &key;
  me.witness = witness;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    groups_[&key].queue.push_back(&me);
    cv_.notify_all();
    while (!me.done) {
      if (!me.taken && !groups_[&key].leader) {
        lead(lock, &key);
        continue;
      }
      cv_.wait(lock);
    }
  }
  if (!me.error.empty()) throw std::runtime_error(me.error);
  // Accelerators compute B₁ with the rest (it costs them little): either blinding finishes.
  const CoreResult core = me.core->take(me.index);
  if (blinding == Blinding::rerandomized)
    if (std::optional<Proof> p = finish_rerandomized(key, core, r, s)) return *p;
  return finish_proof(key, core, r, s);
}

Proof Engine::prove_evals(const ZKey& key, const Scalar* witness, size_t n_witness, const Evals& evals,
                          const Scalar& r, const Scalar& s, Blinding blinding) {
  Proof p;
  try {
    if (cpu_) {
      p = zk::prove(key, witness, n_witness, r, s, *cpu_, &evals, blinding);
    } else {
      size_t which = 0;
      Compute& compute = pick_compute(which);
      std::lock_guard<std::mutex> busy(*accel_busy_[which]);
      p = zk::prove(key, witness, n_witness, r, s, compute, &evals, blinding);
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.failed++;
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.proofs++;
  stats_.batches++;
  stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, 1);
  return p;
}

// The leader waits (bounded) for its batch to fill, takes it, hands leadership on, runs it.
void Engine::lead(std::unique_lock<std::mutex>& lock, const ZKey* key) {
  Group& g = groups_[key];
  g.leader = true;
  const size_t max = (size_t)options_.batch_max;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(options_.batch_wait_us);
  while (g.queue.size() < max) {
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
  const size_t take = std::min(max, g.queue.size());
  std::vector<Pending*> batch(g.queue.begin(), g.queue.begin() + (long)take);
  g.queue.erase(g.queue.begin(), g.queue.begin() + (long)take);
  for (Pending* p : batch) p->taken = true;
  g.leader = false;
  if (g.queue.empty()) groups_.erase(key);
  cv_.notify_all();  // whoever waits next may lead the next batch while this one runs
  lock.unlock();
  run_batch(*key, batch);
  lock.lock();
  stats_.batches++;
  stats_.proofs += batch.size();
  stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, batch.size());
  for (Pending* p : batch) {
    if (!p->error.empty()) stats_.failed++;
    p->done = true;
  }
  cv_.notify_all();
}

void Engine::run_batch(const ZKey& key, std::vector<Pending*>& batch) {
  std::vector<const Scalar*> witnesses;
  for (Pending* p : batch) witnesses.push_back(p->witness);
  try {
    size_t which = 0;
    Compute& compute = pick_compute(which);
    std::lock_guard<std::mutex> busy(*accel_busy_[which]);
    std::shared_ptr<BatchCore> core = compute.prove_core_batch(key, witnesses.data(), witnesses.size());
    if (!core) throw std::runtime_error(std::string(compute.name()) + " has no batched path");
    for (size_t i = 0; i < batch.size(); i++) {
      batch[i]->core = core;
      batch[i]->index = i;
    }
  } catch (const std::exception& e) {
    for (Pending* p : batch) p->error = e.what();
  }
}

std::shared_ptr<Engine> configure_engine(const EngineOptions& options) {
  // Workers configure at once when the pool starts: one of them creates the engine, the others
  // find it (two would open every device twice).
  static std::mutex creating;
  std::lock_guard<std::mutex> one_at_a_time(creating);
  {
    std::lock_guard<std::mutex> lock(engines_mutex);
    if (process_engine && process_engine->options() == options) return process_engine;
  }
  // Built and swapped in outside the registry's lock: the constructor registers itself, and the
  // engine replaced here unregisters itself when its last user lets go of it.
  auto created = std::make_shared<Engine>(options);
  std::shared_ptr<Engine> replaced;
  {
    std::lock_guard<std::mutex> lock(engines_mutex);
    replaced = std::move(process_engine);
    process_engine = created;
  }
  return created;
}

std::shared_ptr<Engine> current_engine() {
  std::lock_guard<std::mutex> lock(engines_mutex);
  return process_engine;
}

}  // namespace zk

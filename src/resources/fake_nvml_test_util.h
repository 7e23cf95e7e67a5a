// fake_nvml_test_util.h — driving the fake libnvidia-ml (fake_nvml.cc) from tests.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>

namespace gpusweep {

// Sets an environment variable the fake reads for one test: FAKE_NVML_MODE (a failure
// to simulate) or FAKE_NVML_SCRIPT (the memory script file).
class ScopedFakeEnv {
 public:
  ScopedFakeEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedFakeEnv() { unsetenv(name_); }
  ScopedFakeEnv(const ScopedFakeEnv&) = delete;
  ScopedFakeEnv& operator=(const ScopedFakeEnv&) = delete;

 private:
  const char* name_;
};

class ScopedFakeMode : public ScopedFakeEnv {
 public:
  explicit ScopedFakeMode(const char* mode) : ScopedFakeEnv("FAKE_NVML_MODE", mode) {}
};

// Keeps the fake library loaded, so its counters survive the probe's dlclose and the
// probe's dlopen of the same path shares this instance.
class FakeNvml {
 public:
  explicit FakeNvml(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
  ~FakeNvml() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool loaded() const { return handle_ != nullptr; }
  int open_sessions() const { return Call("FakeNvmlOpenSessions"); }
  int init_calls() const { return Call("FakeNvmlInitCalls"); }

 private:
  int Call(const char* name) const {
    auto fn = reinterpret_cast<int (*)()>(dlsym(handle_, name));
    return fn != nullptr ? fn() : -1;
  }
  void* handle_;
};

}  // namespace gpusweep
